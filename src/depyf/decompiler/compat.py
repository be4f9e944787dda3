"""The published depyf's ``Decompiler`` class, over :func:`~depyf.decompile`.

Code written for the published depyf calls
``depyf.Decompiler(code_or_fn).decompile(indentation=4, temp_prefix="__temp_",
overwite_fn_name=None)`` (its spelling of "overwrite"). This class takes the
same arguments and gives the same source :func:`~depyf.decompile` gives:

* ``indentation``: spaces per block level (honoured);
* ``overwite_fn_name``: the name the ``def`` gets (honoured; a lambda then
  comes as a ``def`` of that name rather than ``_lambda = lambda ...``);
* ``temp_prefix``: accepted and ignored: depyf names the few temporaries it
  needs after what they hold (``stack_N`` otherwise), never with a prefix.

Example::

    >>> def f(a, b):
    ...     return a * b
    >>> print(Decompiler(f).decompile(indentation=2, overwite_fn_name="g"))   # doctest: +SKIP
    def g(a, b):
      return a * b
"""
from __future__ import annotations

import io
import keyword
import tokenize
import types
from typing import Optional

from ..bytecode import code_owner
from .api import decompile_report
from .constants import definitions_text

# The renderer's indentation step, which ``indentation`` rescales.
_RENDERED_INDENT = 4


class Decompiler:
    """A decompiler for one function or code object (the published depyf's
    class); ``decompile()`` gives the same source as :func:`depyf.decompile`.

    ``code`` is whatever :func:`depyf.decompile` takes but a .pyc path: a
    function, method, lambda, code object, ``functools.partial``, a
    ``__wrapped__`` wrapper or a callable instance. ``self.code`` is the code
    object that is decompiled.

    >>> Decompiler(len)      # doctest: +SKIP
    TypeError: depyf.Decompiler: builtin_function_or_method 'len' has no Python bytecode; ...
    """

    def __init__(self, code):
        try:
            owner = code_owner(code)
        except TypeError as e:
            raise TypeError("depyf.Decompiler: %s" % e) from None
        self._target = code
        #: the code object (or CodeRecord) whose source ``decompile`` gives
        self.code = owner.__code__ if isinstance(owner, types.FunctionType) else owner

    def __repr__(self) -> str:
        return "Decompiler(%r)" % (self.code,)

    def decompile(self, indentation: int = 4, temp_prefix: str = "__temp_",
                  overwite_fn_name: Optional[str] = None) -> str:
        """The source, each block indented by ``indentation`` spaces, the
        ``def`` named ``overwite_fn_name`` if given; ``temp_prefix`` is
        accepted for the published signature and has no effect.

        >>> Decompiler(lambda a: a + 1).decompile(overwite_fn_name="inc")   # doctest: +SKIP
        'def inc(a):\\n    return a + 1\\n'
        """
        if isinstance(indentation, bool) or not isinstance(indentation, int) or indentation < 1:
            raise ValueError("indentation must be a positive number of spaces, not %r"
                             % (indentation,))
        if not isinstance(temp_prefix, str):
            raise TypeError("temp_prefix must be a str, not %s" % type(temp_prefix).__name__)
        check_function_name(overwite_fn_name)
        report = decompile_report(self._target, name=overwite_fn_name)
        source = definitions_text(report.definitions) + report.source
        return reindent(source, indentation)


def check_function_name(name: Optional[str]) -> None:
    """``ValueError`` unless ``name`` is None or can name a ``def``.

    >>> check_function_name("class")
    Traceback (most recent call last):
    ...
    ValueError: overwite_fn_name must be a Python identifier that is not a keyword, not 'class'
    """
    if name is None:
        return
    if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name):
        raise ValueError("overwite_fn_name must be a Python identifier that is not a keyword, "
                         "not %r" % (name,))


def reindent(source: str, width: int) -> str:
    """``source`` (as the renderer writes it, 4 spaces a level) with ``width``
    spaces a level; the insides of strings that span lines are left alone.

    >>> reindent("if x:\\n    y = '''a\\n    b'''\\n", 2)
    "if x:\\n  y = '''a\\n    b'''\\n"
    """
    if width == _RENDERED_INDENT:
        return source
    lines = source.splitlines(keepends=True)
    starts, covered = set(), set()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            starts.add(tok.start[0])
            # A token over several lines (a string) owns the beginnings of all but its first.
            covered.update(range(tok.start[0] + 1, tok.end[0] + 1))
    except (tokenize.TokenError, SyntaxError):
        return source       # not the renderer's output: better as it is than half changed
    out = []
    for number, line in enumerate(lines, 1):
        if number in starts and number not in covered:
            body = line.lstrip(" ")
            depth, rest = divmod(len(line) - len(body), _RENDERED_INDENT)
            line = " " * (depth * width + rest) + body
        out.append(line)
    return "".join(out)
