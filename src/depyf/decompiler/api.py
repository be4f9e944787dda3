"""The public entry point of the decompiler."""
from __future__ import annotations

import ast
import contextlib
import gc
import os
import threading
import types
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

from ..bytecode import BytecodeError, CodeRecord, as_record, code_owner, read_pyc
from .constants import definitions_text, holds_odd_constants, name_constants
from .failure import DecompileFailure
from .fallback import fallback_body
from .functions import CodeDecompiler


class DecompilationError(Exception):
    """The input is not valid bytecode (a corrupt .pyc, a malformed code object)."""


def decompile(obj, layout: str = "lines", enclose: bool = True, readable=False) -> str:
    """Python source for ``obj``: a function, method, lambda, code object,
    :class:`~depyf.bytecode.CodeRecord` or path of a .pyc file, or any
    callable the published depyf takes, as the function whose code it runs:
    a ``functools.partial``'s ``func``, an ``lru_cache`` or other
    ``__wrapped__`` wrapper's wrapped function, a callable instance's
    ``__call__`` (:func:`~depyf.bytecode.code_owner`). Anything else (a
    class, a builtin) is a ``TypeError`` that names it.

    ``layout`` is ``"lines"`` (each statement on the line the bytecode
    records) or ``"compact"``. A function comes as a top-level ``def``,
    unless its free variables need enclosing scopes (a closure, a method
    using ``super()``): then it comes inside rebuilt ones so that it
    recompiles to the same code; ``enclose=False`` gives the bare ``def``
    for callers that supply those scopes themselves.

    ``readable`` (True, or a :class:`~depyf.decompiler.readable.Readable`
    with what is known of the names) rewrites a function's body from the
    faithful form, every instruction shown, into the few lines a person
    would write, under the contract of :mod:`depyf.decompiler.readable`:
    for code no source produced (Dynamo's transformed code). In either form,
    constants that no literal writes (``torch.device('cpu')``, a class) are
    names, defined above the function by an expression that gives them back
    (:mod:`depyf.decompiler.constants`).

    >>> def f(x):
    ...     return x + 1
    >>> print(decompile(f).strip())     # doctest: +SKIP
    def f(x):
        return x + 1
    """
    report = decompile_report(obj, layout, enclose, readable, define_constants=True)
    return definitions_text(report.definitions) + report.source


@dataclass
class Decompiled:
    """The source of one decompilation and what it cost.

    ``fallbacks`` names the code objects written as dispatch loops (valid,
    equivalent Python, but not the original's shape) with the reason;
    ``stubs`` those that could not be written at all (their body raises).
    """
    source: str
    code_objects: int
    fallbacks: List[Tuple[str, str]] = field(default_factory=list)
    stubs: List[Tuple[str, str]] = field(default_factory=list)
    #: (name, expression): module-level definitions the source needs (``define_constants``)
    definitions: List[Tuple[str, str]] = field(default_factory=list)


def decompile_report(obj, layout: str = "lines", enclose: bool = True, readable=False,
                     define_constants: bool = False, name: Optional[str] = None) -> Decompiled:
    """Like :func:`decompile`, with counts of fallbacks and stubs.
    ``define_constants`` names the constants no literal writes and gives their
    definitions apart (``definitions``), for the caller to place. ``name``
    renames a function's ``def`` (a lambda's becomes a ``def`` of that name).

    >>> r = decompile_report(lambda x: x + 1)        # doctest: +SKIP
    >>> r.code_objects, r.fallbacks
    (1, [])
    """
    try:
        record, kind, live = _record_of(obj)
    except BytecodeError as e:
        raise DecompilationError(str(e)) from e
    log = _FailureLog()
    with rare_gc():
        try:
            tree = decompile_tree(record, kind, log, live=live, enclose=enclose, name=name)
        except BytecodeError as e:
            raise DecompilationError(str(e)) from e
        if readable and kind == "function" and not (log.fallbacks or log.stubs):
            readable_form(tree, record, readable)
        definitions = name_constants(tree) if define_constants and holds_odd_constants(record) else []
        source = render_module(tree, record.version, layout)
        # Freed here, the tree's nodes are not young objects for the collection
        # the restored threshold starts at once.
        del tree
    return Decompiled(source, sum(1 for _ in record.walk()), log.fallbacks, log.stubs, definitions)


_GC_LOCK = threading.Lock()
_gc_depth = 0
_gc_saved = None


@contextlib.contextmanager
def rare_gc():
    """Collect garbage less often while decompiling (or dumping, for the torch
    hooks): the decompiler allocates many short-lived, acyclic nodes, and the
    collections they trigger cost about 3% of its time. The caller's threshold
    comes back when the outermost block (in any thread) ends, so the observed
    program's gc is as it was.

    >>> before = gc.get_threshold()
    >>> with rare_gc():
    ...     pass
    >>> gc.get_threshold() == before
    True
    """
    global _gc_depth, _gc_saved
    with _GC_LOCK:
        if _gc_depth == 0:
            _gc_saved = gc.get_threshold()
            if _gc_saved[0]:        # 0 means the caller turned collection off
                gc.set_threshold(max(_gc_saved[0], 50000), *_gc_saved[1:])
        _gc_depth += 1
    try:
        yield
    finally:
        with _GC_LOCK:
            _gc_depth -= 1
            if _gc_depth == 0:
                gc.set_threshold(*_gc_saved)


def readable_form(tree: ast.Module, record: CodeRecord, readable) -> None:
    """Rewrite the ``def`` of ``record`` in ``tree`` into its readable form."""
    from .readable import Readable, make_readable
    from .readable.scope import DYNAMO_TEMPORARY
    hints = readable if isinstance(readable, Readable) else Readable()
    own = tuple(record.varnames) + tuple(record.cellvars) + tuple(record.freevars)
    keep = hints.keep if hints.keep is not None else [n for n in own if not DYNAMO_TEMPORARY.match(n)]
    hints = Readable(keep=frozenset(keep) | frozenset(record.cellvars) | frozenset(record.freevars),
                     callees=hints.callees)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == record.name:
            make_readable(node, hints)
            return


def decompile_tree(record: CodeRecord, kind: str, on_failure=None, live=None,
                   enclose: bool = True, name: Optional[str] = None) -> ast.Module:
    """The module ``ast`` for a module record, or for a function's record a
    ``def`` (a lambda: ``_lambda = lambda ...``) inside the scopes it needs;
    ``live`` is the function object, if any, for defaults and cells; ``name``
    what to call the ``def`` (then a lambda is written as a ``def`` too)."""
    decompiler = CodeDecompiler(record, "module" if kind == "module" else "function",
                                on_failure=on_failure or unstructured)
    if kind == "module":
        body = decompiler.statements()
    else:
        from .live import enclosing_scopes, function_value
        value = function_value(record, live)
        if record.name == "<lambda>" and name is None:
            node = ast.Assign(targets=[ast.Name(id="_lambda", ctx=ast.Store())],
                              value=decompiler.lambda_expr(value))
        else:
            node = decompiler.function_def(value, [])
            if name is not None:
                node.name = name
        body = enclosing_scopes(record, live, node) if enclose else [node]
    return ast.Module(body=body, type_ignores=[])


def _record_of(obj):
    """``(record, kind, live)``: the record to decompile, ``"module"`` or
    ``"function"``, and the function object it came from (None for a code
    object, record or file), for its defaults and cells."""
    if isinstance(obj, (str, os.PathLike)):
        pyc = read_pyc(obj)
        return pyc.code, "module", None
    try:
        owner = code_owner(obj)
    except TypeError as e:
        raise TypeError("depyf.decompile: %s, or the path of a .pyc file" % e) from None
    record = as_record(owner)
    kind = "module" if record.name == "<module>" else "function"
    live = owner if isinstance(owner, types.FunctionType) else None
    return record, kind, live


class _FailureLog:
    """An ``on_failure`` callback that also remembers what went to the fallback."""

    def __init__(self):
        self.fallbacks: List[Tuple[str, str]] = []
        self.stubs: List[Tuple[str, str]] = []

    def __call__(self, code, failure):
        body = unstructured(code, failure, on_failure=self)
        name = code.qualname or code.name
        if _is_stub(body):
            self.stubs.append((name, str(failure)))
        else:
            self.fallbacks.append((name, str(failure)))
        return body


def _is_stub(body) -> bool:
    return (len(body) == 2 and isinstance(body[1], ast.Raise)
            and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
            and str(body[0].value.value).startswith("depyf: "))


def unstructured(code, failure, on_failure=None):
    """Bytecode the structured decompiler cannot shape (``failure`` says why): the
    fallback's dispatch-loop Python, which behaves like the bytecode. Should even
    that be impossible, a body that raises and says why.

    >>> from depyf.bytecode import as_record
    >>> body = unstructured(as_record(lambda x: x + 1), DecompileFailure("why"))
    >>> type(body[-1]).__name__
    'Return'
    """
    try:
        return fallback_body(code, failure, on_failure=on_failure or unstructured)
    except Exception as e:      # even a fallback bug only costs this code object
        reason = "%s; fallback: %s" % (failure, e if isinstance(e, DecompileFailure)
                                       else "%s: %s" % (type(e).__name__, e))
        return [ast.Expr(value=ast.Constant(value="depyf: %s" % reason)),
                ast.Raise(exc=ast.Call(func=ast.Name(id="NotImplementedError", ctx=ast.Load()),
                                       args=[ast.Constant(value="depyf could not decompile %s: %s"
                                                          % (code.qualname or code.name, reason))],
                                       keywords=[]), cause=None)]


def render_module(tree: ast.Module, version, layout: str) -> str:
    try:
        from .render import render
    except ImportError:
        render = None
    if render is not None:
        return render(tree, layout=layout, target=tuple(version))
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"
