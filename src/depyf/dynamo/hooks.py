"""``prepare_debug``: record what torch.compile does and dump it as Python.

Two hooks do the recording while the context is open:

* Dynamo's bytecode hook (``torch._dynamo.convert_frame.register_bytecode_hook``)
  gets each original code object with the code Dynamo made for it; the
  transformed code is decompiled and written at once.
* A handler on torch's structured trace (:mod:`.artifacts`) gets the graphs of
  Dynamo, AOTAutograd and Inductor, graph-break and recompile reasons, each
  with its compile id, which ties it to the code the bytecode hook saw.

A compile's guards exist only after the bytecode hook returns. Dynamo's
record of the finished guard tree (which the trace filter takes without
printing the tree) is the moment the compile is done: the session holds the
tree then, and its guards are rendered and ``full_code_for_<fn>.py`` and
``__meta_for_<fn>.json`` written after a quiet spell (:mod:`.quiet`: half a
second with no compile finishing, or the block's end, or the interpreter's
exit), so that a process that never leaves the block (a server's
``__enter__()`` at start-up, then ``os._exit`` or a crash) keeps the files
of every compile half a second behind it, and a burst of compiles renders
its guards one after another, on warm caches. Where that record does not
reach depyf (another reader of the whole trace, an older torch), guards are
taken from the cache entry at the next compile and at exit. Graph files are
written as torch reports them (a backward graph Inductor compiles at the
first ``backward()`` comes late).

Entered inside a backend (``with prepare_debug(d): return compile_fx(gm, x)``,
as vLLM does), the session joins the compile in progress: it keeps listening
after the block until that compile's code and guards have come.

Nothing here may break the user's program: every failure becomes one warning
naming the function, and Dynamo goes on with its own code.

Example::

    >>> import depyf, torch                                # doctest: +SKIP
    >>> with depyf.prepare_debug("./dump"):                # doctest: +SKIP
    ...     torch.compile(f)(x)
"""
from __future__ import annotations

import atexit
import contextlib
import json
import linecache
import os
import re
import threading
import time
import types
import warnings
import weakref
from dataclasses import dataclass, field
from typing import Dict, List, NamedTuple, Optional, Tuple

from . import fullcode, torch_compat
from .artifacts import GUARDS, STARTED, Event, TraceCapture, stale, user_part
from .breakpoints import Breakpoints
from ..decompiler.api import rare_gc
from .dump import DumpDir, as_python, identifier
from .quiet import LATER
from .sessions import active_sessions
from .untraced import keep_dynamo_out
from .warning import DepyfWarning

_PLACEHOLDER = "__depyf_function__"


@dataclass
class Entry:
    """One compile of a function: one cache entry of Dynamo.

    Dynamo's code is held weakly (:attr:`new_code`): Dynamo frees a compile's
    graphs (the globals holding them, and the tensors their modules hold)
    when the code it made dies, and a dump must not keep them alive."""
    index: int
    compile_id: str
    code_ref: Optional["weakref.ref"] = None
    graphs: Dict[str, str] = field(default_factory=dict)      # torch's name -> stable name
    graph_files: List[str] = field(default_factory=list)
    transformed: str = ""                                     # source, stable names
    transformed_module: Optional[types.CodeType] = None      # its file, compiled
    #: op offset of Dynamo's code -> line of the file made of it (empty: not known,
    #: the faithful form, say: breakpoints.py aligns the compiled file instead)
    lines: Dict[int, int] = field(default_factory=dict)
    problem: Optional[str] = None
    guard: Optional[str] = None                               # guard function source
    guard_count: int = 0
    guard_lines: List[str] = field(default_factory=list)
    guard_problem: Optional[str] = None
    guard_manager: object = None        # Dynamo's, held from the next compile until rendered
    resume: Dict[str, types.CodeType] = field(default_factory=dict)   # global name -> code
    globals_used: List[str] = field(default_factory=list)
    #: Dynamo's name of a module it installed by id -> its ``__import_`` name
    #: (fullcode.module_aliases)
    modules: Dict[str, str] = field(default_factory=dict)
    compile_seconds: Optional[float] = None                   # the frame compile's wall time (to its guards, or torch's figure)

    @property
    def new_code(self) -> Optional[types.CodeType]:
        """The code Dynamo runs for this entry; None once Dynamo let it go."""
        return self.code_ref() if self.code_ref is not None else None

    @new_code.setter
    def new_code(self, code: types.CodeType) -> None:
        self.code_ref = weakref.ref(code)

    def renames(self) -> Dict[str, str]:
        """Dynamo's name -> the dump's, of every global renamed in the dumped text."""
        return {**self.graphs, **self.modules}

    def names(self, fn: str) -> Dict[str, str]:
        return {"guard": "__guard_%d_for_%s" % (self.index, fn),
                "transformed": "__transformed_code_%d_for_%s" % (self.index, fn)}


@dataclass
class Function:
    """A code object Dynamo compiled, with everything known about it."""
    name: str
    code: types.CodeType
    key: str = ""                   # what the dump directory knows it by
    entries: List[Entry] = field(default_factory=list)
    graph_breaks: List[str] = field(default_factory=list)
    recompiles: List[str] = field(default_factory=list)
    dirty: bool = True              # its full code and meta files are behind
    times_changed: bool = False     # its meta file is behind on compile times


class Session:
    """The state of one ``prepare_debug`` context."""

    def __init__(self, path: str, clean_wild_fx_code: bool = True, log_bytecode: bool = False,
                 faithful: bool = False):
        self.dir = DumpDir(rank_dir(path))
        self.clean_wild_fx_code = clean_wild_fx_code
        self.log_bytecode = log_bytecode
        #: show Dynamo's code instruction by instruction, not in its readable form
        self.faithful = faithful
        self.functions: Dict[int, Function] = {}          # id(code) -> Function
        self._seen_keys: Dict[str, int] = {}               # per-process ordinal of equal keys
        self._by_cid: Dict[str, Entry] = {}
        self._fn_of_cid: Dict[str, Function] = {}
        self._pending: Dict[str, List[Event]] = {}          # events before their compile's hook
        self._last_graph: Dict[str, str] = {}               # compile id -> stable graph name
        self._graph_seen: Dict[str, int] = {}
        # A session after another one into the same folder in this process (a
        # backend entering prepare_debug at each compile) goes on with its numbers
        # and with the functions whose compiles are still cached (see _function).
        before = _last_sessions.get(self.dir.path)
        self._graph_numbers: Dict[str, int] = before.graph_numbers if before else {}   # key -> n-th graph
        self._before: Dict[int, Function] = before.functions if before else {}
        _last_sessions[self.dir.path] = FolderCarry(self._graph_numbers, self.functions)
        self._kind_count: Dict[tuple, int] = {}
        self._sources: Dict[int, tuple] = {}                # id(code) -> (code, text, problem)
        self._shapes: Dict[bytes, tuple] = {}               # shape -> (co_names, name, text, problem)
        self._warned = set()
        self._local = threading.local()     # (its depth: how deep in _guarded this thread is)
        self.own_seconds = 0.0          # CPU time spent in depyf's hooks, its quiet writes and at exit
        self._lock = threading.RLock()
        _live_sessions.add(self)
        self._handle = None
        self._handle_missing = False
        self._capture: Optional[TraceCapture] = None
        self.breakpoints = Breakpoints(self)
        self._metrics = None            # torch's list of its last compiles' figures
        self._metrics_read: Dict[int, object] = {}      # id -> figures already read (kept: ids stay theirs)
        self._started = time.time()
        self._compile_started: Dict[str, float] = {}   # compile id -> when it started
        self._joined: Optional[str] = None  # the compile in progress at the start
        self._lingering = False             # stopped, waiting for the joined compile
        self._finished = False

    # -- lifetime -------------------------------------------------------------
    def start(self) -> None:
        remove_stale_hooks()
        # What this torch lacks is named once (torch_compat); the rest is dumped.
        lacking = torch_compat.missing(["bytecode_hook", "structured_trace", "cache_entries",
                                        "compile_metrics", "skip_dirs"])
        register = torch_compat.feature("bytecode_hook")
        self._handle_missing = register is None
        if register is not None:
            self._handle = register(self._bytecode_hook)
        if "structured_trace" not in lacking:
            try:
                self._capture = TraceCapture(self._on_event)
                self._capture.install()
            except (ImportError, AttributeError):      # a trace of another shape
                self._capture = None
                lacking.append("structured_trace")
        self._metrics = torch_compat.feature("compile_metrics")
        # Entered inside a backend (vLLM's pattern): Dynamo is compiling a frame
        # already, whose transformed code and guards come after the block ends.
        self._joined = torch_compat.current_compile_id()
        keep_dynamo_out()
        # (the quiet writer renders guards on its own thread: imported here, not there,
        # where an import could wait on a lock the main thread holds)
        from . import guards  # noqa: F401
        # depyf.debug(): the code that runs names the dumped files (breakpoints.py)
        self._guarded("breakpoints", self.breakpoints.install)
        torch_compat.warn_missing("prepare_debug", lacking, DepyfWarning, stacklevel=4)

    def stop(self) -> None:
        """End the session; entered during a compile whose code has not come
        yet, it goes on listening until that compile's guards are written
        (or the next compile, or the process's exit)."""
        with self._lock:
            if self._joined is not None and not self._joined_done() and not self._lingering:
                self._lingering = True
                atexit.register(self._finish)
                return
        self._finish()

    def _joined_done(self) -> bool:
        entry = self._by_cid.get(self._joined)
        return entry is not None and (entry.guard is not None or entry.guard_problem is not None)

    def _finish(self, in_hook: bool = False) -> None:
        """Stop listening and write what is left. ``in_hook``: called from the
        bytecode hook, while Dynamo goes through its hooks: the hook is taken
        out later (a change to them then would fail Dynamo's compile), and
        does nothing meanwhile."""
        with self._lock:
            if self._finished:
                return
            self._finished = True
        if self._lingering:
            atexit.unregister(self._finish)
        if self._handle is not None and not in_hook:
            self._handle.remove()
            self._handle = None
        elif self._handle is not None:
            _stale_hooks.append(self._handle)
            self._handle = None
        if self._capture is not None:
            self._capture.uninstall()
            self._capture = None
        LATER.cancel(self)
        self._guarded("the dump", self.flush, final=True)
        self.dir.close()
        self._guarded("breakpoints", self.breakpoints.uninstall)

    # -- failure containment ----------------------------------------------------
    def _guarded(self, who: str, fn, *args, **kwargs):
        # (per thread: the quiet writer's flush may run while a hook does)
        depth = getattr(self._local, "depth", 0)
        outermost = depth == 0
        self._local.depth = depth + 1
        start = time.thread_time() if outermost else 0.0
        try:
            if outermost:
                # depyf's work makes short-lived objects; collections they would
                # trigger also walk torch's young objects (gen 0 time: +35%)
                with rare_gc():
                    return fn(*args, **kwargs)
            return fn(*args, **kwargs)
        except Exception as e:      # the user's program must go on, with Dynamo's own code
            self._warn(who, "%s: %s" % (type(e).__name__, e))
            return None
        finally:
            self._local.depth = depth
            if outermost:
                self.own_seconds += time.thread_time() - start

    def _warn(self, who: str, why: str, part: str = "") -> None:
        """One warning per function (``who``, its qualname) whatever part failed."""
        if who in self._warned:
            return
        self._warned.add(who)
        warnings.warn("depyf: could not dump %s%s: %s (the program is unaffected)"
                      % (part, who, why), DepyfWarning, stacklevel=2)

    # -- bytecode hook ------------------------------------------------------------
    def _bytecode_hook(self, code: types.CodeType, new_code: types.CodeType):
        if self._finished:
            return None         # (left registered: see _finish)
        self._guarded(_qualname(code), self._record, code, new_code)
        # Dynamo's own code, naming the dumped file (None: unchanged)
        return self._guarded(_qualname(code), self.breakpoints.transformed, code, new_code)

    def _record(self, code: types.CodeType, new_code: types.CodeType) -> None:
        with self._lock:
            cid = torch_compat.current_compile_id()
            if self._lingering and cid != self._joined:
                self._finish(in_hook=True)      # (the joined compile's guards never came)
                return
            fn = self._function(code, new_code)
            entry = Entry(index=len(fn.entries), compile_id=cid or "?", code_ref=weakref.ref(new_code))
            entry.graphs = self._stable_graph_names(fn, new_code)
            fn.entries.append(entry)
            fn.dirty = True
            entry.resume = self._resume_functions(code, new_code)
            entry.modules = fullcode.module_aliases(new_code.co_names)
            entry.globals_used = [n for n in new_code.co_names if n.startswith("__import_")] + list(
                entry.modules.values())     # (import_globals sorts them and drops repeats)
            names = entry.names(fn.name)
            text, entry.problem, lines = self._transformed_source(
                new_code, names["transformed"], None if self.faithful else fullcode.readable_hints(
                    code, entry.resume))
            entry.transformed = fullcode.rename(text, entry.renames())  # (lines stay where they are)
            if entry.problem:
                self._warn(_qualname(code), entry.problem, "the transformed code of ")
            self._write_transformed(fn, entry, lines)
            self._guarded(_qualname(code), self._decompile_ahead, code, entry)
            if cid is not None:
                self._by_cid[cid] = entry
                self._fn_of_cid[cid] = fn
                # A restarted trace (after a graph break, or when AOTAutograd made a
                # scalar dynamic) throws its earlier graphs away: only the graphs of
                # the attempt whose code this is are placed.
                attempt = torch_compat.current_attempt()
                for event in self._pending.pop(cid, []):
                    if not stale(event, attempt):
                        self._place(fn, entry, event)
            # The entries of earlier compiles exist by now: where their guards did not
            # come as they were built, hold their guard managers before an eviction
            # or reset can take them (rendered when the context exits).
            self._take_compile_times()
            for other in self.functions.values():
                if other.dirty:
                    self._guarded(_qualname(other.code), self._read_guards, other, render=False)

    def _decompile_ahead(self, code: types.CodeType, entry: Entry) -> None:
        """Decompile the original and the resume functions for the full code
        file (:meth:`_source` keeps them), which wants them once the guards
        come: now, while the decompiler's own code is still in the CPU's caches
        (Dynamo flushes them just before it hands over the guards), they cost
        half as much."""
        for rcode in entry.resume.values():
            self._source(rcode, _PLACEHOLDER)
        self._source(code, _PLACEHOLDER)

    def _transformed_source(self, new_code: types.CodeType, name: str, readable=None):
        """(text, problem, lines): ``new_code`` decompiled as ``def name`` (in
        its readable form with ``readable``'s hints) and the line of the text
        each of its instructions went into (see Entry.lines), once per shape
        (fullcode.shape_key) and hints: compiled with the file it goes into
        (_write_transformed), not here."""
        shape = fullcode.shape_key(new_code)
        if shape is not None and readable is not None:
            shape = (shape, fullcode.hints_key(readable))
        seen = self._shapes.get(shape) if shape is not None else None
        if seen is not None:
            # (one shape, one code: the offsets, so the lines, are the same)
            old_names, old_name, text, problem, lines = seen
            return fullcode.renamed_text(text, old_names, old_name, new_code, name), problem, lines
        lines: Dict[int, int] = {}
        text, problem = fullcode.safe_decompile(new_code, name, check=False, readable=readable,
                                                lines=lines)
        if shape is not None:
            self._shapes[shape] = (new_code.co_names, name, text, problem, lines)
        return text, problem, lines

    def _function(self, code: types.CodeType, new_code: types.CodeType) -> Function:
        """The Function of ``code``, named (with the graphs ``new_code`` calls,
        under one lock of the dump directory) on its first compile."""
        fn = self.functions.get(id(code))
        if fn is not None and fn.code is code:
            return fn
        fn = self._before.get(id(code))
        if fn is not None and fn.code is code and _still_cached(fn):
            # Compiled under an earlier session into this folder, and Dynamo still
            # runs those compiles: this one is the next entry of the same function.
            self.functions[id(code)] = fn
            fn.dirty = True
            return fn
        qualname = _qualname(code)
        offset = _resume_offset(code)
        if offset is not None:
            # Two resume functions of one line (the two sides of a branch on a
            # tensor) are compiled in whatever order the data decides; the
            # offset where each resumes tells them apart for good.
            qualname = "%s_offset_%d" % (qualname, offset)
        key = "%s:%s" % (code.co_filename.replace("\\", "/").rsplit("/", 1)[-1], qualname)
        # Two live code objects with one key (a function defined twice) are told
        # apart by the order they were compiled.
        n = self._seen_keys.get(key, 0)
        self._seen_keys[key] = n + 1
        if n:
            key = "%s#%d" % (key, n)
        preferred = identifier(qualname.replace(".<locals>.", "__"))
        name = self.dir.allocate_many([("function", key, preferred)] +
                                      self._graph_requests(key, 0, new_code))[0]
        fn = Function(name=name, code=code, key=key)
        self.functions[id(code)] = fn     # fn keeps code alive: the id stays its own
        return fn

    def _graph_requests(self, fn_key: str, index: int, new_code: types.CodeType):
        """Name requests for the graphs of cache entry ``index``: the j-th graph
        it calls (in torch's counter order) is known by (function, entry, j)
        and would like to be ``__compiled_fn_<n>``, the n-th graph this session
        met. (torch's own number counts every graph Dynamo made in the process,
        of code nobody dumps too, and differs between runs with Inductor's
        cache cold and warm.)"""
        numbers = self._graph_numbers
        requests = []
        for j in range(len(_graph_callables(new_code))):
            key = "%s:%d:%d" % (fn_key, index, j)
            n = numbers.setdefault(key, len(numbers) + 1)
            requests.append(("graph", key, "__compiled_fn_%d" % n))
        return requests

    def _stable_graph_names(self, fn: Function, new_code: types.CodeType) -> Dict[str, str]:
        """torch's name -> stable name of the graphs ``new_code`` calls."""
        names = self.dir.allocate_many(self._graph_requests(fn.key, len(fn.entries), new_code))
        return {real: name for (real, _), name in zip(_graph_callables(new_code), names)}

    def _resume_functions(self, code, new_code) -> Dict[str, types.CodeType]:
        """Resume functions the transformed code calls, by their global name.
        ``__resume_at_<offset>_<n>`` resumes ``code`` at bytecode offset
        ``<offset>``; Dynamo keeps each one keyed by (offset, ...)."""
        made = torch_compat.resume_functions_made(code)
        found = {}
        for name in new_code.co_names:
            m = fullcode.RESUME.match(name)
            if not m:
                continue
            codes = [c for key, c in made.items() if key and key[0] == int(m.group(1))]
            if len(codes) == 1:
                found[name] = codes[0]
        return found

    def _write_transformed(self, fn: Function, entry: Entry, lines: Dict[int, int]) -> None:
        """Write the transformed code's file; ``lines`` (op offset -> line of
        entry.transformed) become Entry.lines, lines of the file."""
        name = entry.names(fn.name)["transformed"]
        path = self.dir.file(name + ".py")
        text, above = self._transformed_text(fn, entry)
        try:
            # The breakpoints' line map reads this compile of the file (where the
            # function starts; all of it where no lines came with the text).
            module = compile(text, path, "exec", dont_inherit=True)
        except (SyntaxError, ValueError) as e:
            if entry.problem:
                raise
            entry.transformed, entry.problem = fullcode.uncompilable(entry.new_code, name, entry.transformed, e)
            self._warn(_qualname(fn.code), entry.problem, "the transformed code of ")
            text, above = self._transformed_text(fn, entry)
            compile(text, path, "exec", dont_inherit=True)      # the stand-in must compile
            module = None
        self.dir.write(name + ".py", text)
        entry.lines = {} if entry.problem else {at: line + above for at, line in lines.items()}
        entry.transformed_module = module       # only once the file holds it

    def _transformed_text(self, fn: Function, entry: Entry) -> Tuple[str, int]:
        """(text of the file, how many lines come before entry.transformed)."""
        parts = [fullcode.header("Transformed code of cache entry %d (compile %s) of"
                                 % (entry.index, entry.compile_id), fn.code)]
        if entry.graphs:
            parts.append(fullcode.comment("Graphs it calls: %s (see <name>.dynamo_graph.py)."
                                          % ", ".join(sorted(entry.graphs.values()))))
        imports = fullcode.import_globals(entry.globals_used)
        if imports:
            parts.append("import importlib\n" + "\n".join(imports) + "\n")
        parts.append("\n")
        above = "".join(parts).count("\n")
        parts.append(entry.transformed)
        if self.log_bytecode:
            parts.append("\n# Bytecode Dynamo made:\n" + fullcode.bytecode_listing(entry.new_code))
        return "".join(parts), above

    # -- structured trace ---------------------------------------------------------
    def _on_event(self, event: Event) -> None:
        if _stale_hooks:
            remove_stale_hooks()
        self._guarded("the %s of compile %s" % (event.kind, event.compile_id), self._event, event)

    def _event(self, event: Event) -> None:
        with self._lock:
            cid = event.compile_id
            entry = self._by_cid.get(cid) if cid is not None else None
            if event.kind == STARTED:
                self._compile_started.setdefault(cid, event.metadata["time"])
                return
            if event.kind == GUARDS:
                started = self._compile_started.pop(cid, None)
                if entry is not None and entry.guard is None and entry.guard_problem is None:
                    if started is not None and entry.compile_seconds is None:
                        # (torch's own figure, read later, would need the meta file again)
                        entry.compile_seconds = time.time() - started
                    # The compile is done: its files are written after a quiet
                    # spell (with the other compiles of its burst: see quiet.py),
                    # so that a process that never reaches the block's end keeps them.
                    entry.guard_manager = event.metadata["manager"]
                    self._fn_of_cid[cid].dirty = True
                    LATER.request(self, self._write_later)
                if self._lingering and cid == self._joined:
                    self._finish()
                return
            if entry is not None:       # a late event: a backward compiled at first backward()
                self._place(self._fn_of_cid[cid], entry, event)
                return
            self._pending.setdefault(cid, []).append(event)

    def _place(self, fn: Function, entry: Entry, event: Event) -> None:
        fn.dirty = True
        if event.kind == "graph_break":
            fn.graph_breaks.append(user_part(event.payload))
            return
        if event.kind == "recompile":
            fn.recompiles.append(self._recompile_text(fn, event.payload))
            return
        cid = entry.compile_id
        if event.kind == "dynamo_graph" or cid not in self._last_graph:
            # The k-th graph Dynamo printed is the k-th __compiled_fn the code calls;
            # AOT and Inductor events belong to the graph printed last.
            k = self._graph_seen.get(cid, 0)
            self._graph_seen[cid] = k + 1
            ordered = sorted(entry.graphs.values(), key=_natural)
            if k < len(ordered):
                self._last_graph[cid] = ordered[k]
            else:
                self._last_graph[cid] = self.dir.allocate(
                    "graph", "%s:%d:%d" % (fn.key, entry.index, k),
                    "__graph_%d_for_%s" % (entry.index, fn.name) + ("_%d" % k if k else ""))
        graph = self._last_graph[cid]
        kind = self._kind_name(entry, graph, event.kind)
        name = "%s.%s.py" % (graph, kind)
        title = "%s of %s (compile %s, cache entry %d of %s)" % (
            kind.replace("_", " "), graph, cid, entry.index, fn.name)
        payload = event.payload
        if payload.startswith("class ") and "import torch" not in payload:
            # print_readable's GraphModule classes name torch.nn.Module: importable this way.
            payload = "import torch\n\n" + payload
        # Text torch printed of code it runs itself is not compiled to check it.
        generated = event.kind == "inductor_output_code" or self.breakpoints.printed(event.payload)
        self.dir.write(name, as_python(payload, title, generated))
        # the text torch printed ties the file to the graph module that runs it
        self._guarded(graph, self.breakpoints.graph_written, self.dir.file(name), kind,
                      event.payload, event.metadata)
        if name not in entry.graph_files:
            entry.graph_files.append(name)

    def _kind_name(self, entry: Entry, graph: str, kind: str) -> str:
        """Inductor compiles a forward and (with autograd) a backward for one
        graph: they are told apart by order, the forward always coming first
        (AOTAutograd prints both graphs before Inductor compiles either)."""
        if not kind.startswith("inductor_"):
            return kind
        key = (entry.compile_id, graph, kind)
        n = self._kind_count.get(key, 0)
        self._kind_count[key] = n + 1
        if "%s.aot_backward_graph.py" % graph in entry.graph_files:
            return kind.replace("inductor_", "inductor_%s_" % ("forward" if n == 0 else "backward"), 1) \
                + ("_%d" % (n - 1) if n > 1 else "")
        return kind if n == 0 else "%s_%d" % (kind, n)

    def _recompile_text(self, fn: Function, reasons: str) -> str:
        code = fn.code
        line = linecache.getline(code.co_filename, code.co_firstlineno).rstrip()
        try:
            parsed = json.loads(reasons)
            reasons = "\n".join(parsed) if isinstance(parsed, list) else str(parsed)
        except ValueError:
            pass
        return ('Recompiling %s, File "%s", line %d:\n    %s\ntriggered by the guard failure(s):\n%s'
                % (code.co_name, code.co_filename, code.co_firstlineno, line.strip(),
                   "\n".join("- " + r for r in reasons.splitlines() if r.strip())))

    def _take_compile_times(self) -> None:
        """Dynamo's whole-frame compile time of each entry, from the figures torch
        keeps of its last 64 compiles (those of a compile come after its bytecode
        hook: they are read at the next compile and at exit). Frame ids start
        again after a reset: a figure counts only if its compile started after
        this session did, for the same function."""
        if self._metrics is None:
            return
        read = self._metrics_read
        fresh = []
        # Each compile's figures are final when they appear, and the same 64 are
        # listed at every compile, newest last: the new ones are those after the
        # last one read.
        for m in reversed(self._metrics()):
            if id(m) in read:
                break
            fresh.append(m)
        for m in reversed(fresh):
            read[id(m)] = m
            cid = getattr(m, "compile_id", None)
            entry = self._by_cid.get(cid) if isinstance(cid, str) else None
            if entry is None or entry.compile_seconds is not None:
                continue
            fn = self._fn_of_cid[cid]
            seconds = getattr(m, "entire_frame_compile_time_s", None)
            if (isinstance(seconds, (int, float)) and (getattr(m, "start_time", None) or 0) >= self._started
                    and getattr(m, "co_name", None) == fn.code.co_name):
                entry.compile_seconds = float(seconds)
                fn.times_changed = True     # (only the meta file shows them)

    def _source(self, code: types.CodeType, name: str):
        """Decompiled ``code`` as ``def name``: each code object is decompiled
        once (full code files are rewritten as guards arrive, and a resume
        function shows both in its parent's file and in its own). Code Dynamo
        generated (a resume function) comes in its readable form unless the
        session is faithful."""
        key = id(code)
        cached = self._sources.get(key)
        if cached is None or cached[0] is not code:
            generated = code.co_name.startswith(RESUME_PREFIX)
            readable = fullcode.readable_hints(None, {}) if generated and not self.faithful else None
            text, problem = fullcode.safe_decompile(code, _PLACEHOLDER, readable=readable)
            cached = self._sources[key] = (code, text, problem)
        # (enclose() names the maker of a closure after the function)
        return fullcode.rename(cached[1], {_PLACEHOLDER: name, fullcode.closure_maker(_PLACEHOLDER):
                                           fullcode.closure_maker(name)}), cached[2]

    # -- guards and full code -----------------------------------------------------
    def flush(self, final: bool = False, settled: bool = False) -> None:
        """Read the guards of entries that exist by now and write each changed
        function's ``full_code_for_<fn>.py`` and its meta file;
        ``final`` also writes what no compile claimed; ``settled`` leaves out
        a function whose latest compile has not handed over its guards yet."""
        with self._lock:
            self._take_compile_times()
            for fn in list(self.functions.values()):
                if settled and not all(_settled(e) for e in fn.entries):
                    continue
                if fn.dirty:
                    self._guarded(_qualname(fn.code), self._write_function, fn)
                elif fn.times_changed:
                    self._guarded(_qualname(fn.code), self._write_meta, fn)
            if final:
                self._write_leftovers()

    def _write_later(self) -> None:
        """The quiet writer's turn (see quiet.py): the compiles done by now."""
        with self._lock:
            if not self._finished:
                # (a compile still going on asks again when its guards come)
                self._guarded("the dump", self.flush, settled=True)

    def _write_function(self, fn: Function) -> None:
        self._read_guards(fn)
        self.dir.write("full_code_for_%s.py" % fn.name, self._full_code(fn))
        self._write_meta(fn)
        fn.dirty = any(e.guard is None and e.guard_problem is None for e in fn.entries)

    def _write_meta(self, fn: Function) -> None:
        self.dir.write("__meta_for_%s.json" % fn.name, self._meta(fn))
        fn.times_changed = False

    def _read_guards(self, fn: Function, render: bool = True) -> None:
        """Take hold of the guard managers of ``fn``'s entries (they exist once
        Dynamo has finished the compile: by the next compile, or at exit);
        ``render`` also writes each held one as Python and lets it go.

        Held, a manager outlives an eviction or a reset of its cache entry, so
        compiles only take hold and the exit renders them all, one after the
        other: in a hook each rendering ran on caches torch had just flushed
        (``profile_guard_manager``), twice its time in a row."""
        todo = {e.compile_id: e for e in fn.entries
                if e.guard is None and e.guard_problem is None and e.guard_manager is None}
        if todo:
            # (the codes held while their ids are in use)
            held = [(e.new_code, e) for e in todo.values()]
            by_code = {id(code): e for code, e in held if code is not None}
            for cid, guard_manager, new_code in torch_compat.cache_entries(fn.code):
                entry = todo.get(cid) or by_code.get(id(new_code))
                if entry is not None:
                    entry.guard_manager = guard_manager
        if render:
            from .guards import render_guards
            for entry in fn.entries:
                manager, entry.guard_manager = entry.guard_manager, None
                if manager is None:
                    continue
                try:
                    guard = render_guards(manager, entry.names(fn.name)["guard"])
                    entry.guard, entry.guard_count, entry.guard_lines = guard.source, guard.count, list(guard.lines)
                except Exception as e:
                    entry.guard_problem = "%s: %s" % (type(e).__name__, e)
                    self._warn(_qualname(fn.code), entry.guard_problem, "the guards of ")

    def _full_code(self, fn: Function) -> str:
        from .guards import PRELUDE
        code = fn.code
        out = [fullcode.header("Everything torch.compile made of", code)]
        if fn.graph_breaks:
            out.append("\n# Graph breaks:\n" + "".join(
                fullcode.comment(text) + "#\n" for text in fn.graph_breaks))
        if fn.recompiles:
            out.append("\n# Recompiles:\n" + "".join(
                fullcode.comment(text) + "#\n" for text in fn.recompiles))
        imports = fullcode.import_globals(n for e in fn.entries for n in e.globals_used)
        out.append("\nimport importlib\n" + "".join(line + "\n" for line in imports))
        out.append("\n" + PRELUDE + "\n")
        dispatch = []
        resume_done = set()
        for entry in fn.entries:
            names = entry.names(fn.name)
            out.append("\n# ---- cache entry %d (compile %s) ----\n" % (entry.index, entry.compile_id))
            if entry.guard is not None:
                out.append("\n" + entry.guard)
            else:
                why = entry.guard_problem or "the cache entry was gone before its guards were read"
                out.append("\ndef %s(L, G):\n    # guards unknown: %s\n    return False\n" % (names["guard"], why))
            if entry.graph_files:
                out.append("\n" + fullcode.comment("Graphs: " + ", ".join(entry.graph_files)))
            out.append("\n" + entry.transformed)
            for gname, rcode in sorted(entry.resume.items()):
                if gname in resume_done:
                    continue
                resume_done.add(gname)
                text, problem = self._source(rcode, gname)
                out.append("\n# Resume function %s: %s, which Dynamo compiles in its turn\n%s"
                           % (gname, rcode.co_name, text))
            dispatch.insert(0, (names["guard"], names["transformed"]))
        original = "__original_%s" % fn.name
        text, problem = self._source(code, original)
        if problem:
            self._warn(_qualname(code), problem, "the original code of ")
        out.append("\n# ---- the original function ----\n" + text)
        if self.log_bytecode:
            out.append("\n# Bytecode of the original function:\n" + fullcode.bytecode_listing(code))
        out.append("\n# ---- dispatch ----\n" + fullcode.dispatch(fn.name, code, dispatch, original))
        return "".join(out)

    def _meta(self, fn: Function) -> str:
        code = fn.code
        data = {
            "function": fn.name, "co_name": code.co_name,
            "qualname": getattr(code, "co_qualname", code.co_name),
            "filename": code.co_filename, "firstlineno": code.co_firstlineno,
            "full_code": "full_code_for_%s.py" % fn.name,
            "graph_breaks": fn.graph_breaks, "recompiles": fn.recompiles,
            "entries": [{
                "index": e.index, "compile_id": e.compile_id,
                "transformed_code": e.names(fn.name)["transformed"] + ".py",
                "transformed_name": e.names(fn.name)["transformed"],
                # the file that defines guard_name (None: guards unknown)
                "guard": ("full_code_for_%s.py" % fn.name) if e.guard is not None else None,
                "guard_name": e.names(fn.name)["guard"],
                "guard_count": e.guard_count, "guard_lines": e.guard_lines,
                "compile_seconds": e.compile_seconds,
                "graphs": {stable: real_name_pattern(real) for real, stable in sorted(e.graphs.items())},
                "graph_files": e.graph_files,
                "resume_functions": {g: c.co_name for g, c in sorted(e.resume.items())},
                "problem": e.problem or e.guard_problem,
            } for e in fn.entries],
        }
        return readable_json(data)

    def _write_leftovers(self) -> None:
        """Events no compile's bytecode claimed: graph breaks of frames Dynamo
        skipped whole, and graphs of compiles that produced no code."""
        notes = []
        for cid, events in sorted(self._pending.items(), key=lambda kv: str(kv[0])):
            seen: Dict[str, int] = {}
            for event in events:
                n = seen[event.kind] = seen.get(event.kind, -1) + 1
                if event.kind == "graph_break":
                    notes.append("compile %s:\n%s" % (cid, user_part(event.payload)))
                elif event.kind == "recompile":
                    notes.append("compile %s: recompile\n%s" % (cid, event.payload))
                elif self._handle_missing or not self.clean_wild_fx_code:
                    # Without a bytecode hook (older torch) no graph can be tied to
                    # code: they are all kept, named after their compile.
                    self.dir.write("__graph_of_compile_%s.%s%s.py" % (
                        str(cid).replace("/", "_"), event.kind, "_%d" % n if n else ""),
                                   as_python(event.payload, "%s of compile %s" % (event.kind, cid)))
        if notes:
            self.dir.write("unattributed_compile_log.txt", "\n\n".join(notes) + "\n")


class FolderCarry(NamedTuple):
    """What a session into a dump folder hands on to the next one into it
    (the live dicts, shared: a block nested in another into the same folder
    sees the outer one's compiles as they come): not the session itself,
    which holds its compiles' events and Dynamo's guard managers, and would
    otherwise stay alive for every folder a process ever dumped into."""
    graph_numbers: Dict[str, int]       # key -> n-th graph
    functions: Dict[int, "Function"]    # id(code) -> Function


#: what the latest session of each dump folder in this process hands on
_last_sessions: Dict[str, FolderCarry] = {}


def _settled(entry: Entry) -> bool:
    """Whether ``entry``'s guards are rendered, held or known to be lost."""
    return entry.guard is not None or entry.guard_manager is not None or entry.guard_problem is not None


def _still_cached(fn: Function) -> bool:
    """Dynamo's cache for ``fn.code`` still holds one of ``fn``'s entries (no
    reset since: a reset starts the function's entries again from 0)."""
    try:
        live = {id(code) for _, _, code in torch_compat.cache_entries(fn.code)}
    except Exception:
        return False
    return any(code is not None and id(code) in live for code in (e.new_code for e in fn.entries))


#: bytecode-hook handles of sessions that ended inside the hook, to remove
#: once Dynamo is done going through its hooks
_stale_hooks: list = []


#: every Session not yet collected, for the reset of their locks in a forked child
_live_sessions: "weakref.WeakSet[Session]" = weakref.WeakSet()


def _after_fork_in_child() -> None:
    # The quiet writer's thread may have held a session's lock at the fork: the
    # child's copy would stay locked for good (a DataLoader worker compiling, say).
    for session in list(_live_sessions):
        session._lock = threading.RLock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def remove_stale_hooks() -> None:
    while _stale_hooks:
        _stale_hooks.pop().remove()


def _graph_callables(new_code: types.CodeType) -> List[tuple]:
    """(torch's name, name without the uuid) of each graph ``new_code`` calls,
    in the order torch's counter made them."""
    found = []
    for name in new_code.co_names:
        m = fullcode.COMPILED_FN.match(name)
        if m:
            found.append((int(m.group(1).rsplit("_", 1)[1]), name, m.group(1)))
    return [(real, plain) for _, real, plain in sorted(found)]


def readable_json(data: dict) -> str:
    """``data`` as JSON with a line per key and per entry: json's indenting
    encoder is its pure-Python one, ten times slower than the C one used here.

    >>> print(readable_json({"a": 1, "entries": [{"b": 2}, {"b": 3}]}), end="")
    {
     "a": 1,
     "entries": [
      {"b": 2},
      {"b": 3}
     ]
    }
    """
    items = []
    for key, value in data.items():
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            text = "[\n%s\n ]" % ",\n".join("  " + json.dumps(v) for v in value)
        else:
            text = json.dumps(value)
        items.append(" %s: %s" % (json.dumps(key), text))
    return "{\n%s\n}\n" % ",\n".join(items)


def _qualname(code: types.CodeType) -> str:
    return getattr(code, "co_qualname", code.co_name)


def rank_dir(path: str) -> str:
    """Under torchrun (or any launcher that sets RANK) each rank writes its own
    ``rank_<n>`` subdirectory: ranks compile the same functions with their own
    shapes, which one set of names could not hold.

    >>> rank_dir("dump")                 # one process, no RANK set   # doctest: +SKIP
    'dump'
    """
    from ..autorun import dump_dir_for_process
    return dump_dir_for_process(path)


#: how Dynamo names the code of its resume functions
RESUME_PREFIX = "torch_dynamo_resume_in_"


def _resume_offset(code: types.CodeType) -> Optional[int]:
    """The offset in its parent where a Dynamo resume function resumes, or None."""
    if not code.co_name.startswith(RESUME_PREFIX):
        return None
    for key, resume in torch_compat.all_resume_functions_made():
        if resume is code and key and isinstance(key[0], int):
            return key[0]
    return None


def real_name_pattern(real: str) -> str:
    """torch's name with its random part shown as a pattern (for the index)."""
    m = fullcode.COMPILED_FN.match(real)
    return m.group(1) + ("_<uuid>" if m and m.group(2) else "") if m else real


def _natural(name: str):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


@contextlib.contextmanager
def prepare_debug(dump_src_dir, clean_wild_fx_code: bool = True, log_bytecode: bool = False,
                  faithful: bool = False):
    """Dump what torch.compile does inside the ``with`` block into ``dump_src_dir``.

    For each function Dynamo compiles: ``full_code_for_<fn>.py`` (guards,
    transformed code, resume functions, original code and the dispatch between
    them), ``__transformed_code_<k>_for_<fn>.py`` per cache entry, and the
    graphs as ``<graph>.<kind>.py``. With ``clean_wild_fx_code=False`` graphs
    no compiled code claims are kept too;
    ``log_bytecode=True`` appends the bytecode listings. Dynamo's code is
    shown in its readable form (the few lines a person would write, see
    :mod:`depyf.decompiler.readable` for what may differ); ``faithful=True``
    shows it instruction by instruction instead.

    >>> import depyf, torch                                      # doctest: +SKIP
    >>> with depyf.prepare_debug("./dump"):                # doctest: +SKIP
    ...     torch.compile(lambda x: x.sin() + 1)(torch.ones(3))
    """
    try:
        import torch  # noqa: F401
    except ImportError as e:
        raise ImportError("depyf.prepare_debug needs torch (pip install torch)") from e
    session = None
    try:
        session = Session(str(dump_src_dir), clean_wild_fx_code, log_bytecode, faithful)
        session.start()
    except Exception as e:      # an unusable dump dir or torch: say so, run the program anyway
        warnings.warn("depyf: prepare_debug could not start: %s: %s (nothing is dumped)"
                      % (type(e).__name__, e), DepyfWarning, stacklevel=3)
        if session is not None:
            session.stop()
        yield None
        return
    active_sessions.append(session)
    try:
        yield session
    finally:
        active_sessions.remove(session)
        session.stop()
