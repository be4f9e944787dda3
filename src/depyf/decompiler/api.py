"""The public entry point of the decompiler."""
from __future__ import annotations

import ast
import gc
import os
import threading
import types
from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Optional, Tuple

from ..bytecode import BytecodeError, CodeRecord, as_record, code_owner, read_pyc
from .constants import definition, definitions_text, has_literal, holds_odd_constants, name_constants
from .failure import DecompileFailure
from .fallback import fallback_body
from .functions import CodeDecompiler
from .line_map import offset_lines
from .readable.blocks import bodies
from .validate import (NotCompiled, Unavailable, best_of, import_context, method_called_names,
                       original_of, placeholders, put_back, record_paths, scope_path)
from .verdicts import count_verdicts, mark_unverified


class DecompilationError(Exception):
    """The input is not valid bytecode (a corrupt .pyc, a malformed code object)."""


def decompile(obj, layout: str = "lines", enclose: bool = True, readable=False,
              validate: bool = True) -> str:
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

    ``validate`` (the default) compiles the text again with the code's own
    interpreter and compares every code object with the original
    (:mod:`depyf.decompiler.validate`): what is neither identical nor
    equivalent is written by the fallback instead, so the text never behaves
    differently; where that interpreter is missing, each ``def`` line and the
    top of the text say the code is unverified. ``validate=False`` skips all
    of it. (The readable form is checked in its faithful form.)

    >>> def f(x):
    ...     return x + 1
    >>> print(decompile(f).strip())     # doctest: +SKIP
    def f(x):
        return x + 1
    """
    report = decompile_report(obj, layout, enclose, readable, define_constants=True,
                              validate=validate)
    return definitions_text(report.definitions) + report.source


@dataclass
class Decompiled:
    """The source of one decompilation and what it cost.

    ``fallbacks`` names the code objects written as dispatch loops (valid,
    equivalent Python, but not the original's shape) with the reason;
    ``stubs`` those that could not be written at all (their body raises).
    ``verdicts`` gives, when validated, each code object's path with its
    verdict (:data:`~depyf.decompiler.verdicts.VERDICTS`: identical,
    equivalent, fallback or unverified), ``unverified`` why the objects
    could not be checked.
    """
    source: str
    code_objects: int
    fallbacks: List[Tuple[str, str]] = field(default_factory=list)
    stubs: List[Tuple[str, str]] = field(default_factory=list)
    #: (name, expression): module-level definitions the source needs (``define_constants``)
    definitions: List[Tuple[str, str]] = field(default_factory=list)
    verdicts: List[Tuple[str, str]] = field(default_factory=list)
    unverified: Optional[str] = None
    #: validation compiled ``source`` as it is (it is known to compile)
    compiled: bool = False
    #: op offset -> line of ``source`` holding what was made of it, for the
    #: readable form of a function asked for it (:mod:`.line_map`); else None
    line_map: Optional[Dict[int, int]] = None

    def counts(self) -> Dict[str, int]:
        """Verdict -> number of code objects (all zero when not validated).

        >>> Decompiled("", 1, verdicts=[("<module>", "identical")]).counts()["identical"]
        1
        """
        return count_verdicts(self.verdicts)


def decompile_report(obj, layout: str = "lines", enclose: bool = True, readable=False,
                     define_constants: bool = False, name: Optional[str] = None,
                     validate: bool = True, line_map: bool = False) -> Decompiled:
    """Like :func:`decompile`, with counts of fallbacks and stubs and the
    verdict on each code object. ``define_constants`` names the constants no
    literal writes and gives their definitions apart (``definitions``), for
    the caller to place. ``name`` renames a function's ``def`` (a lambda's
    becomes a ``def`` of that name). ``line_map`` asks for the line each
    instruction of a function went into, when its readable form is made
    (``Decompiled.line_map``).

    >>> r = decompile_report(lambda x: x + 1)
    >>> r.code_objects, r.fallbacks, r.counts()["identical"]
    (1, [], 1)
    """
    try:
        record, kind, live = _record_of(obj)
    except BytecodeError as e:
        raise DecompilationError(str(e)) from e
    original, unverified = original_of(record) if validate else (None, None)
    odd = define_constants and holds_odd_constants(record)
    with rare_gc():
        try:
            built = _build_checked(record, kind, live, name, layout, original, odd,
                                   readable=bool(readable))
        except BytecodeError as e:
            raise DecompilationError(str(e)) from e
        log, node = built.log, built.node
        if built.unverified is not None:
            unverified = built.unverified
        checked = validate and not built.readable
        tree = ast.Module(body=built.scoped if enclose or node is None else [node], type_ignores=[])
        bare = node is None or enclose or (len(built.scoped) == 1 and built.scoped[0] is node)
        source = built.text if bare else None
        statement_lines = None
        if built.readable:
            readable_form(tree, record, readable)
            source = None
            statement_lines = {} if line_map else None
        definitions = name_constants(tree) if odd else []
        if source is None or definitions:
            source = render_module(tree, record.version, layout, statement_lines)
        lines = offset_lines(node, statement_lines) if statement_lines and node is not None else None
        compiled = checked and source is built.text
        # Freed here, the tree's nodes are not young objects for the collection
        # the restored threshold starts at once.
        del tree, built, original
    verdicts = log.verdicts if checked else []
    if not checked:
        unverified = None
    elif unverified is not None:
        verdicts = [(path, "unverified") for path in record_paths(record, _root(record))]
        source = mark_unverified(source, unverified)
    return Decompiled(source, sum(1 for _ in record.walk()), log.fallbacks, log.stubs, definitions,
                      verdicts, unverified, compiled and unverified is None, lines)


#: Rounds of validation, each sending what was found different to the
#: fallback, before every code object is written by the fallback.
MAX_ROUNDS = 4


@dataclass
class _Built:
    """One decompilation: the module body (the def inside its scopes), the
    def itself (None for a module), the failure log (with the verdicts) and
    the validated text when it is the one to print."""
    scoped: List[ast.stmt]
    node: Optional[ast.stmt]
    log: "_FailureLog"
    text: Optional[str] = None
    unverified: Optional[str] = None
    #: the readable form is to be made of it (and so it is not checked)
    readable: bool = False


def _build_checked(record, kind, live, name, layout, original, odd, readable=False) -> _Built:
    """Decompile ``record``; with an ``original`` to check against, until
    every code object not written by the fallback is identical or
    equivalent to its original (what is not goes to the fallback next).
    The readable form, when it applies, is left unchecked: it is not the
    original's code by design (its behaviour has tests of its own)."""
    forced: Dict[CodeRecord, str] = {}
    everything = False
    for round_ in range(MAX_ROUNDS + 1):
        log = _FailureLog(forced)
        scoped, node = _build(record, kind, log, live, name, forced)
        built = _Built(scoped, node, log)
        built.readable = readable and kind == "function" and not (log.fallbacks or log.stubs)
        if original is None or built.readable:
            return built
        if everything:
            log.verdicts = [(path, "fallback") for path in record_paths(record, original.root)]
            return built
        try:
            refuse = _check(built, record, original, name, layout, odd, live)
        except Unavailable as e:
            built.unverified = str(e)
            return built
        if not refuse:
            return built
        new = {rec: why for rec, why in refuse.items() if rec not in forced}
        if not new or round_ == MAX_ROUNDS - 1:
            # What the rounds could not settle: all of it to the fallback.
            reason = "validation: written by the fallback with the code around it"
            new = {rec: forced.get(rec, reason) for rec in record.walk()}
        forced.update(new)
        # (nothing left to check when the fallback writes it all: one code
        # object of Dynamo's, typically)
        everything = all(rec in forced for rec in record.walk())
    return built


def _build(record, kind, on_failure, live, name, forced=None
           ) -> Tuple[List[ast.stmt], Optional[ast.stmt]]:
    """(module body, the def or None): a module's statements, or a function's
    ``def`` (a lambda: ``_lambda = lambda ...``) inside the scopes it needs;
    the fallback writes the records in ``forced``."""
    decompiler = CodeDecompiler(record, "module" if kind == "module" else "function",
                                on_failure=on_failure, forced=forced)
    if kind == "module":
        return decompiler.statements(), None
    from .live import enclosing_scopes, function_value
    value = function_value(record, live)
    if record.name == "<lambda>" and name is None:
        node = ast.Assign(targets=[ast.Name(id="_lambda", ctx=ast.Store())],
                          value=decompiler.lambda_expr(value))
    else:
        node = decompiler.function_def(value, [])
        if name is not None:
            node.name = name
    return enclosing_scopes(record, live, node), node


def _check(built: _Built, record, original, name, layout, odd, live) -> Dict[CodeRecord, str]:
    """Check ``built`` against ``original``; record the verdicts in its log
    and return the records to refuse the structured form of, with why."""
    module = ast.Module(body=built.scoped, type_ignores=[])
    node = built.node
    renamed = name is not None and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
        and record.name.isidentifier()
    if renamed:
        # Up to 3.10 the name is in the qualified names of the functions inside.
        node.name = record.name
    hidden = placeholders(module, _named_constant) if odd else {}
    try:
        text = render_module(module, record.version, layout)
        path = "<module>" if node is None else scope_path(built.scoped, node)
    finally:
        put_back(module, hidden)
        if renamed:
            node.name = name
    if not (hidden or renamed):
        built.text = text
    paths = record_paths(record, original.root)
    log = built.log
    written, stubbed = log.written(module)
    # (what the fallback wrote is compiled, not compared: it is never the original's code)
    skip = {p for p, rec in paths.items() if rec in written}
    # A function's module has most likely imported the globals it calls
    # attributes of (torch.abs): checked in such a module first, then
    # (for what differs there) in an empty one.
    namespace = getattr(getattr(live, "__func__", live), "__globals__", None)
    context = "" if node is None else import_context(text, record, namespace)
    checks = None
    if context:
        try:
            checks = original.check(context + text, path, hidden, skip)
        except NotCompiled:
            pass
    try:
        if checks is None or not _settled(checks, skip):
            plain = original.check(text, path, hidden, skip)
            checks = plain if checks is None else best_of(checks, plain)
        wider = "" if node is None or _settled(checks, skip) else import_context(
            text, record, namespace, method_called_names(record))
        if wider and wider != context:
            # (as the original calls them: the module may import, at its top,
            # what the function imports too)
            checks = best_of(checks, original.check(wider + text, path, hidden, skip))
        if not _settled(checks, skip) and node is not None and built.scoped == [node] \
                and not (hidden or renamed):
            # A top-level def of a method or nested function, where it was
            # defined: up to 3.10 what it nests has that place in its qualified name.
            checks = best_of(checks, _check_in_place(record, original, node, live, layout,
                                                     context, skip))
    except NotCompiled as e:
        log.verdicts = []
        why = "validation: the text does not compile (%s)" % e
        if record not in log.forced:
            return {record: why}
        return {rec: why for rec in record.walk()}
    refuse: Dict[CodeRecord, str] = {}
    verdicts = []
    for check in checks:
        rec = paths.get(check.path)
        if rec is None:
            continue
        if rec in written:
            verdict = "fallback"        # (the fallback's text is not the original's code)
        elif check.missing and _under(check.path, paths, stubbed):
            verdict = "fallback"        # inside a body that raises: not written at all
        elif check.equal:
            verdict = "identical"
        elif check.equivalent:
            verdict = "equivalent"
        else:
            why = "validation: %s" % ("missing from the text" if check.missing else
                                      "compiles to other bytecode (%s)" % (check.kind or "?"))
            refuse[rec] = why
            parent = paths.get(check.path.rpartition("/")[0])
            if not rec.name.isidentifier() and rec.name != "<module>" and parent is not None:
                # A lambda, comprehension or PEP 695 helper is written by the
                # fallback of the code around it, which makes it a def.
                refuse.setdefault(parent, why)
            verdict = None
        verdicts.append((check.path, verdict))
    log.verdicts = verdicts
    return refuse


def _settled(checks, skip) -> bool:
    """Every object checked is the original's code, or one the fallback wrote."""
    return all(c.equal or c.path in skip for c in checks)


def _check_in_place(record, original, node, live, layout, context, skip):
    """Checks of ``node`` compiled inside the scopes its qualified name names
    (none when it names none)."""
    from .live import defining_scopes
    scopes = defining_scopes(record, live, node)
    if scopes == [node]:
        return []
    text = render_module(ast.Module(body=scopes, type_ignores=[]), record.version, layout)
    try:
        return original.check(context + text, scope_path(scopes, node), skip=skip)
    except NotCompiled:
        return []


def _under(path: str, paths, records) -> bool:
    """Is some code object around ``path`` one of ``records``?"""
    while "/" in path:
        path = path.rpartition("/")[0]
        if paths.get(path) in records:
            return True
    return False


def _named_constant(value) -> bool:
    """Is ``value`` a constant :func:`~.constants.name_constants` will name?"""
    return not has_literal(value) and definition(value) is not None


def _root(record) -> str:
    return "<module>" if record.name == "<module>" else (record.qualname or record.name)


_GC_LOCK = threading.Lock()
_gc_depth = 0           # blocks open, in all threads
_gc_saved = None
_gc_here = threading.local()        # (its depth: blocks open in this thread)


class _RareGc:
    """The context manager :func:`rare_gc` gives: one shared object, its state
    the module's (a generator-based one cost more than the rest of a hook's
    bookkeeping: it is entered for every hook and every decompilation)."""
    __slots__ = ()

    def __enter__(self):
        global _gc_depth, _gc_saved
        with _GC_LOCK:
            if _gc_depth == 0:
                _gc_saved = gc.get_threshold()
                if _gc_saved[0]:        # 0 means the caller turned collection off
                    gc.set_threshold(max(_gc_saved[0], 50000), *_gc_saved[1:])
            _gc_depth += 1
            _gc_here.depth = getattr(_gc_here, "depth", 0) + 1
        return None

    def __exit__(self, *exc):
        global _gc_depth
        with _GC_LOCK:
            _gc_depth -= 1
            _gc_here.depth -= 1
            if _gc_depth == 0:
                gc.set_threshold(*_gc_saved)
        return False


_RARE_GC = _RareGc()


def _gc_after_fork_in_child() -> None:
    # Forked while another thread (depyf's quiet writer) was inside rare_gc: the
    # child has only the forking thread, so the lock that thread may have held
    # is made anew and the threshold is put back unless this thread raised it.
    global _GC_LOCK, _gc_depth
    _GC_LOCK = threading.Lock()
    raised, _gc_depth = _gc_depth, getattr(_gc_here, "depth", 0)
    if raised and not _gc_depth:
        gc.set_threshold(*_gc_saved)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_gc_after_fork_in_child)


def rare_gc() -> _RareGc:
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
    return _RARE_GC


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
    what to call the ``def`` (then a lambda is written as a ``def`` too).
    Not validated."""
    scoped, node = _build(record, kind, on_failure or unstructured, live, name)
    return ast.Module(body=scoped if enclose or node is None else [node], type_ignores=[])


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
    """An ``on_failure`` callback that also remembers what went to the
    fallback: names with reasons, and the bodies it wrote (``notes``, for
    :meth:`written`). ``forced`` is what the fallback must write (record ->
    reason); ``verdicts`` what validation found."""

    def __init__(self, forced=None):
        self.fallbacks: List[Tuple[str, str]] = []
        self.stubs: List[Tuple[str, str]] = []
        self.forced: Dict[CodeRecord, str] = forced if forced is not None else {}
        #: (the note that opens the body, record, a stub?) of each body the
        #: fallback wrote; a body can be dropped after (a comprehension's,
        #: when the code around it goes to the fallback too)
        self.notes: List[Tuple[ast.stmt, CodeRecord, bool]] = []
        self.verdicts: List[Tuple[str, str]] = []

    def __call__(self, code, failure):
        body = unstructured(code, failure, on_failure=self, forced=self.forced)
        name = code.qualname or code.name
        stub = _is_stub(body)
        if stub:
            self.stubs.append((name, str(failure)))
        else:
            self.fallbacks.append((name, str(failure)))
        note = next((s for s in body if isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)
                     and str(s.value.value).startswith("depyf: ")), None)
        if note is not None:
            self.notes.append((note, code, stub))
        return body

    def written(self, tree: ast.AST) -> Tuple[set, set]:
        """(records whose body in ``tree`` the fallback wrote, those of them a stub)."""
        if not self.notes:
            return set(), set()
        present = {node for node in _statements(tree.body) if type(node) is ast.Expr}
        written = {code for note, code, _ in self.notes if note in present}
        return written, {code for note, code, stub in self.notes if stub and note in present}


def _statements(body: List[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of ``body`` and of every body inside them, nested
    functions' and classes' included (no expression holds a statement: a
    walk of them all would visit ten times the nodes)."""
    todo = list(body)
    while todo:
        stmt = todo.pop()
        yield stmt
        if isinstance(stmt, _DEFINITIONS):      # (bodies() stops at a nested scope)
            todo += stmt.body
        else:
            for inner in bodies(stmt):
                todo += inner


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _is_stub(body) -> bool:
    return (len(body) == 2 and isinstance(body[1], ast.Raise)
            and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
            and str(body[0].value.value).startswith("depyf: "))


def unstructured(code, failure, on_failure=None, forced=None):
    """Bytecode the structured decompiler cannot shape (``failure`` says why): the
    fallback's dispatch-loop Python, which behaves like the bytecode. Should even
    that be impossible, a body that raises and says why.

    >>> from depyf.bytecode import as_record
    >>> body = unstructured(as_record(lambda x: x + 1), DecompileFailure("why"))
    >>> type(body[-1]).__name__
    'Return'
    """
    try:
        return fallback_body(code, failure, on_failure=on_failure or unstructured, forced=forced)
    except Exception as e:      # even a fallback bug only costs this code object
        reason = "%s; fallback: %s" % (failure, e if isinstance(e, DecompileFailure)
                                       else "%s: %s" % (type(e).__name__, e))
        return [ast.Expr(value=ast.Constant(value="depyf: %s" % reason)),
                ast.Raise(exc=ast.Call(func=ast.Name(id="NotImplementedError", ctx=ast.Load()),
                                       args=[ast.Constant(value="depyf could not decompile %s: %s"
                                                          % (code.qualname or code.name, reason))],
                                       keywords=[]), cause=None)]


def render_module(tree: ast.Module, version, layout: str, statement_lines=None) -> str:
    try:
        from .render import render
    except ImportError:
        render = None
    if render is not None:
        return render(tree, layout=layout, target=tuple(version), statement_lines=statement_lines)
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"
