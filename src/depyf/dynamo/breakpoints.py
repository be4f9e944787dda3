"""Make breakpoints in a ``prepare_debug`` dump hit: the code that runs names the dumped files.

Three kinds of code run when a compiled function is called, and each is
pointed at the file that shows it (see :mod:`.linemap`: file name and line
table change, the instructions never do):

* the transformed code of every frame Dynamo compiled, resume functions
  included: the bytecode hook returns it retargeted at
  ``__transformed_code_<k>_for_<fn>.py`` (this must happen as Dynamo
  compiles: a cache entry's code cannot be swapped later);
* the ``forward`` of the graph modules that run, Dynamo's own graph (backend
  "eager") or AOTAutograd's forward and backward graphs ("aot_eager"),
  pointed at ``<graph>.dynamo_graph.py``, ``<graph>.aot_forward_graph.py``...
  The module objects are seen when torch prints them for the structured
  trace (``GraphModule.print_readable``), and tied to the dumped file by that
  text; a module compiled later from the same graph (AOTAutograd compiles a
  deep copy of the backward graph at the first ``backward()``) is known by
  its nodes when it is (re)compiled;
* Inductor's wrapper ``call()``: the output code module torch loaded from its
  cache is found by the file path the trace names, and its ``call`` pointed
  at ``<graph>.inductor_output_code.py``.

Functions can take new code at any time, so graphs and ``call()`` are only
noted while compiling and pointed at their files when ``depyf.debug()``
starts (:func:`apply_all`): compiling pays for the transformed code alone.
Every failure leaves torch's code in place, with one warning.

Example::

    with depyf.prepare_debug("./dump"):
        f(x)                                  # compiled: code now names ./dump files
    with depyf.debug():
        breakpoint(); f(x)                    # b ./dump/__transformed_code_0_for_f.py:12
"""
from __future__ import annotations

import os
import threading
import types
import warnings
import weakref
from typing import Dict, List, Optional, Set, Tuple

from .linemap import child, find_code, retarget, retarget_by_offsets
from .sessions import active_sessions
from .warning import DepyfWarning

# Graph files whose module runs a ``forward`` worth stepping through.
FX_KINDS = ("dynamo_graph", "aot_forward_graph", "aot_backward_graph", "aot_inference_graph")
OUTPUT_CODE = "output_code"

# Breakpoints of prepare_debug blocks that ended (their graphs are pointed at
# their files when debug() starts), newest last.
_finished: List["Breakpoints"] = []
_KEEP = 8
# Open debug() blocks: compiles inside one point their graphs at once.
debugging = [0]


def _known() -> List["Breakpoints"]:
    return _finished + [s.breakpoints for s in list(active_sessions)]


def apply_all() -> None:
    """Point the graphs and ``call()`` noted by every known dump at their files."""
    for breakpoints in _known():
        breakpoints.apply()


def dumps() -> List[Tuple[str, List[str]]]:
    """(dump directory, files that code now points into) of the open and the
    recently closed ``prepare_debug`` blocks of this process, one per directory."""
    seen: Dict[str, Set[str]] = {}
    for breakpoints in _known():
        seen.setdefault(breakpoints.path, set()).update(breakpoints.retargeted)
    return [(path, sorted(files)) for path, files in seen.items()]


class Breakpoints:
    """What one ``prepare_debug`` session points at its files; ``session``
    gives the dump directory, the recorded functions and the set of names
    already warned about (one warning per function)."""

    def __init__(self, session):
        self.session = session
        self.path = session.dir.path
        self._warned = session._warned
        self.retargeted: List[str] = []                     # files code now points into
        self._printed: Dict[str, List[weakref.ref]] = {}    # print_readable text -> modules
        self._by_graph: Dict[tuple, str] = {}               # graph nodes -> dumped file
        self._sizes: Set[int] = set()                       # node counts of those graphs
        self._modules: List[Tuple[weakref.ref, str]] = []   # graph modules to point, with their file
        self._outputs: Dict[str, str] = {}                  # Inductor module path -> dumped file
        self._originals: Dict[str, tuple] = {}
        self._lock = threading.RLock()

    # -- lifetime -------------------------------------------------------------
    def install(self) -> None:
        import torch.fx
        cls = torch.fx.GraphModule
        printed, recompiled = cls.print_readable, cls.recompile
        breakpoints = self

        def print_readable(module, *args, **kwargs):
            text = printed(module, *args, **kwargs)
            breakpoints._saw(module, text)
            return text

        def recompile(module, *args, **kwargs):
            out = recompiled(module, *args, **kwargs)
            if breakpoints._sizes:
                breakpoints._recompiled(module)
            return out

        for name, wrapper, original in (("print_readable", print_readable, printed),
                                        ("recompile", recompile, recompiled)):
            wrapper.__wrapped__ = original
            wrapper.__doc__ = original.__doc__
            self._originals[name] = (wrapper, original)
            setattr(cls, name, wrapper)

    def uninstall(self) -> None:
        """Stop watching graph modules; what was noted is kept for :meth:`apply`."""
        if self._originals:
            import torch.fx
            for name, (wrapper, original) in self._originals.items():
                if torch.fx.GraphModule.__dict__.get(name) is wrapper:
                    setattr(torch.fx.GraphModule, name, original)
            self._originals.clear()
        self._printed.clear()
        self._by_graph.clear()
        self._sizes.clear()
        self.session = None         # the dump's records are not needed any more
        _finished.append(self)
        del _finished[:-_KEEP]

    def _saw(self, module, text) -> None:
        try:
            if isinstance(text, str):
                with self._lock:
                    refs = self._printed.setdefault(text, [])
                    if not any(r() is module for r in refs):
                        refs.append(weakref.ref(module))
        except Exception:       # a module that cannot be weakly referenced: no breakpoints in it
            pass

    def printed(self, text: str) -> bool:
        """A graph module's ``print_readable`` returned ``text`` (not yet written)."""
        with self._lock:
            return text in self._printed

    # -- transformed code (at compile time) -------------------------------------
    def transformed(self, code: types.CodeType, new_code: types.CodeType) -> Optional[types.CodeType]:
        """``new_code`` pointed at its dumped file, or None (keep Dynamo's)."""
        try:
            return self._transformed(code, new_code)
        except Exception as e:
            self._failed(getattr(code, "co_qualname", code.co_name), e)
            return None

    def _transformed(self, code: types.CodeType, new_code: types.CodeType) -> Optional[types.CodeType]:
        if self.session is None:        # the session ended during this compile
            return None
        fn = self.session.functions.get(id(code))
        if fn is None or fn.code is not code:
            return None
        entry = next((e for e in reversed(fn.entries) if e.new_code is new_code), None)
        if entry is None or entry.problem:
            return None         # no transformed text (the dump warned already)
        name = entry.names(fn.name)["transformed"]
        path = self.session.dir.file(name + ".py")
        if entry.transformed_module is None:
            raise LookupError("%s was not written" % path)
        dumped = find_code(entry.transformed_module, name)      # what the file holds, compiled
        if dumped is None:
            raise LookupError("no function %s in %s" % (name, path))
        if entry.lines:
            # (the decompiler said where each instruction went: exact, and no alignment to run)
            new = retarget_by_offsets(new_code, entry.lines, dumped, path)
        else:
            new = retarget(new_code, dumped, path, entry.renames())
        entry.new_code = new    # what the cache entry will hold (the dump finds entries by it)
        self.retargeted.append(path)
        if debugging[0]:
            self.apply()        # this compile's graphs, noted just before
        return new

    # -- graphs (noted now, pointed at their files by apply) --------------------
    def graph_written(self, path: str, kind: str, payload: str, metadata: dict) -> None:
        """A graph file was written: note the code that runs it."""
        try:
            with self._lock:
                if kind in FX_KINDS:
                    for ref in self._printed.pop(payload, []):
                        module = ref()
                        if module is not None:
                            self._by_graph[_nodes(module)] = path
                            self._sizes.add(len(module.graph.nodes))
                            self._modules.append((ref, path))
                elif OUTPUT_CODE in kind:
                    where = (metadata or {}).get("file_path") or (metadata or {}).get("filename")
                    if where:
                        self._outputs[os.path.abspath(where)] = path
        except Exception as e:
            self._failed(_graph_name(path), e)

    def _recompiled(self, module) -> None:
        path = None
        try:
            if len(module.graph.nodes) not in self._sizes:
                return
            with self._lock:
                path = self._by_graph.get(_nodes(module))
                if path is not None:
                    self._modules.append((weakref.ref(module), path))
        except Exception as e:  # the module keeps torch's code
            self._failed(_graph_name(path) if path else "a graph", e)

    def apply(self) -> None:
        """Point every noted graph module's ``forward`` and Inductor's ``call``
        at their dumped files (again after a recompile; a no-op otherwise)."""
        with self._lock:
            modules, self._modules = self._modules, []
            outputs = dict(self._outputs)
        compiled: Dict[str, types.CodeType] = {}
        for ref, path in modules:
            module = ref()
            if module is None:
                continue
            try:
                if path not in compiled:
                    compiled[path] = _compile_file(path)
                self._retarget_forward(module, compiled[path], path)
            except Exception as e:
                self._failed(_graph_name(path), e)
        if outputs:
            self._apply_outputs(outputs)

    def _retarget_forward(self, module, dumped_module: types.CodeType, path: str) -> None:
        forward = type(module).__dict__.get("forward")
        if not isinstance(forward, types.FunctionType) or forward.__code__.co_freevars:
            return              # not fx's generated method: nothing of ours to point
        if forward.__code__.co_filename == path:
            return
        dumped = _forward_of(dumped_module)
        if dumped is None:
            raise LookupError("no GraphModule.forward in %s" % path)
        forward.__code__ = retarget(forward.__code__, dumped, path)
        self.retargeted.append(path)

    def _apply_outputs(self, outputs: Dict[str, str]) -> None:
        try:
            from torch._inductor.codecache import PyCodeCache
            loaded = {os.path.abspath(getattr(m, "__file__", "") or ""): m for m in list(PyCodeCache.modules)}
        except Exception:
            return
        for where, path in outputs.items():
            module = loaded.get(where)
            if module is None:
                continue        # not loaded (yet): tried again at the next apply
            try:
                self._retarget_call(module, path)
            except Exception as e:
                self._failed(_graph_name(path), e)
            with self._lock:
                self._outputs.pop(where, None)

    def _retarget_call(self, module, path: str) -> None:
        call = getattr(module, "call", None)
        # ``call`` is a function, or (newer torch) the bound method of a Runner instance.
        function = getattr(call, "__func__", call)
        if not isinstance(function, types.FunctionType):
            raise TypeError("call is a %s" % type(call).__name__)
        if function.__code__.co_filename == path:
            return
        where = () if function is call else (type(call.__self__).__name__,)
        dumped = child(_compile_file(path), *where, "call")
        if dumped is None:
            raise LookupError("no %s in %s" % (".".join(where + ("call",)), path))
        function.__code__ = retarget(function.__code__, dumped, path)
        self.retargeted.append(path)

    def _failed(self, who: str, error: Exception) -> None:
        """One warning per function or graph, shared with the dump's own."""
        if who in self._warned:
            return
        self._warned.add(who)
        warnings.warn("depyf: breakpoints in the dumped files of %s will not be hit: %s: %s "
                      "(it runs the code torch made, unchanged)" % (who, type(error).__name__, error),
                      DepyfWarning, stacklevel=2)


def _graph_name(path: str) -> str:
    """``__compiled_fn_1`` of ``.../__compiled_fn_1.dynamo_graph.py``."""
    return os.path.basename(path).split(".", 1)[0]


def _nodes(module) -> tuple:
    """What tells a graph apart from others (node names are kept by deep copies)."""
    return tuple((n.op, n.name, str(n.target)) for n in module.graph.nodes)


def _forward_of(dumped_module: types.CodeType) -> Optional[types.CodeType]:
    """``forward`` of the first class in a dumped graph file."""
    for const in dumped_module.co_consts:
        if isinstance(const, types.CodeType):
            found = child(const, "forward")
            if found is not None:
                return found
    return None


def _compile_file(path: str) -> types.CodeType:
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return compile(text, path, "exec", dont_inherit=True)
