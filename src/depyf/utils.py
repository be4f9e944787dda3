"""Helpers under the names the published depyf gives them in ``depyf.utils``.

* :func:`decompile_ensure`: source that always compiles, a stub when the
  code cannot be read;
* :func:`collect_all_code_objects`: a code object and every one nested in it;
* :func:`safe_create_directory`: ``mkdir -p`` that several processes may race on;
* :func:`get_code_owner`: the function whose code a callable runs;
* :func:`get_function_signature`: the ``def`` line of a code object.

Importing this module never imports torch.

Example::

    >>> from depyf.utils import collect_all_code_objects
    >>> [c.co_name for c in collect_all_code_objects(compile("def f(): pass", "<s>", "exec"))]
    ['<module>', 'f']
"""
from __future__ import annotations

import os
import types
from typing import List, Optional

from .bytecode import as_record, code_owner
from .bytecode.code import parameters
from .decompiler.compat import Decompiler, check_function_name

__all__ = ["collect_all_code_objects", "decompile_ensure", "get_code_owner",
           "get_function_signature", "safe_create_directory"]

#: The body of the stub :func:`decompile_ensure` gives for code it cannot read.
FAILED_BODY = "    'Failed to decompile.'\n"


def decompile_ensure(fn_code, overwite_fn_name: Optional[str] = None) -> str:
    """The source of ``fn_code`` (a code object or anything ``depyf.Decompiler``
    takes), its ``def`` named ``overwite_fn_name`` if given; where decompiling
    fails, a stub with the same signature whose body is the string
    ``'Failed to decompile.'``. Input that holds no code at all (a class, a
    builtin) is a ``TypeError``, as for ``depyf.decompile``.

    >>> print(decompile_ensure(corrupt_code_of_f, overwite_fn_name="g"), end="")  # doctest: +SKIP
    def g(a, b):
        'Failed to decompile.'
    """
    decompiler = Decompiler(fn_code)
    check_function_name(overwite_fn_name)
    try:
        return decompiler.decompile(overwite_fn_name=overwite_fn_name)
    except Exception:       # the promise is source that compiles, whatever went wrong
        return get_function_signature(decompiler.code, overwite_fn_name) + FAILED_BODY


def get_function_signature(code_obj, overwite_fn_name: Optional[str] = None) -> str:
    """The ``def`` line (with its newline) of ``code_obj``'s signature, named
    ``overwite_fn_name`` or else after the code; names the compiler invents
    (a comprehension's ``.0``) and ``<lambda>`` are made valid identifiers.

    >>> def f(a, /, b, *args, c, **kw): pass
    >>> get_function_signature(f.__code__)
    'def f(a, /, b, *args, c, **kw):\\n'
    """
    record = as_record(code_obj)
    found = parameters([_identifier(n) for n in record.varnames], record.argcount,
                       record.posonlyargcount, record.kwonlyargcount, record.flags)
    name = overwite_fn_name if overwite_fn_name is not None else _identifier(record.name)
    return "def %s(%s):\n" % (name, found.text())


def _identifier(name: str) -> str:
    """``name``, or for one no source can write (``.0``, ``<lambda>``) a valid one."""
    if name.isidentifier():
        return name
    if name.startswith("."):
        return "comp_arg_" + name[1:]
    cleaned = "".join(c if c.isalnum() or c == "_" else "_" for c in name).strip("_")
    return "_" + (cleaned or "code")


def collect_all_code_objects(code: types.CodeType) -> List[types.CodeType]:
    """``code`` and every code object nested in its constants, parents before
    children, in the order of the constants (depth first).

    >>> module = compile("def f():\\n    def g(): pass\\nh = lambda: 0", "<s>", "exec")
    >>> [c.co_name for c in collect_all_code_objects(module)]
    ['<module>', 'f', 'g', '<lambda>']
    """
    if not isinstance(code, types.CodeType):
        raise TypeError("collect_all_code_objects takes a code object, not %s"
                        % type(code).__name__)
    found, pending = [], [code]
    while pending:
        current = pending.pop()
        found.append(current)
        pending.extend(reversed([c for c in current.co_consts if isinstance(c, types.CodeType)]))
    return found


def safe_create_directory(path) -> None:
    """Create ``path`` and its missing parents; a directory that exists, or
    that another process creates at the same moment, is not an error, a file
    in its place is (``FileExistsError``).

    >>> safe_create_directory("build/a/b")    # doctest: +SKIP
    """
    try:
        os.makedirs(path, exist_ok=True)
    except OSError:
        # makedirs can still lose a race on a parent; only a missing directory matters.
        if not os.path.isdir(path):
            raise


def get_code_owner(fn):
    """The function (or code object) whose code ``fn`` runs: a bound method's
    ``__func__``, a wrapper's ``__wrapped__``, a partial's ``func``, an
    instance's ``__call__``, followed to the end; see
    :func:`depyf.bytecode.code_owner`.

    >>> import functools
    >>> def f(a, b): return a + b
    >>> get_code_owner(functools.partial(f, 1)) is f
    True
    """
    return code_owner(fn)
