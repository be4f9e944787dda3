"""What depyf's torch layer takes from torch, and how torch releases differ in it.

Everything that is not the same in every torch depyf is tested on lives here,
as data or as one small adapter each, so the rest of :mod:`depyf.dynamo` reads
one shape of torch:

* :data:`FEATURES`: each hook or table of torch depyf reads, where it lives and
  what the dump lacks without it. :func:`feature` finds one at call time (a
  test may take one away); :func:`warn_missing` names those a torch lacks,
  once per process each.
* :data:`TRACE_ARTIFACTS`: the structured-trace artifact names depyf keeps,
  under each name torch has given them.
* :func:`cache_entries`, :func:`compile_id_text`, :func:`recorded_global_state`,
  :func:`nan_guards_keep_their_value`, :func:`aot_eager_interprets_graphs`:
  where a cache entry keeps its compile id and guards, where the guards keep
  the global state they compare, what a NaN guard compares, and whether an
  AOT graph's code runs at all.

(The prelude of dumped guard functions reads torch itself at run time: its
cuBLAS readers take either shape of torch's answer.)

Releases tested (README's table): 2.9.1, 2.13.0, 2.14.1, 2.15.0.

Example::

    >>> feature("no_such_feature")
    Traceback (most recent call last):
    ...
    KeyError: 'no_such_feature'
    >>> release("2.15.0+cu130"), release("2.9.1")
    ((2, 15), (2, 9))
"""
from __future__ import annotations

import functools
import importlib
import os
import re
import sys
import threading
import warnings
from dataclasses import dataclass
from typing import Iterable, List, Optional


@dataclass(frozen=True)
class Feature:
    module: str
    name: str
    #: what a dump (or log) lacks on a torch without it
    loses: str

    @property
    def where(self) -> str:
        return "%s.%s" % (self.module, self.name)


FEATURES = {
    # every compile's original and transformed code
    "bytecode_hook": Feature("torch._dynamo.convert_frame", "register_bytecode_hook",
                             "no transformed code, guards or full_code files"),
    # graphs, graph breaks and recompile reasons with their compile ids
    "structured_trace": Feature("torch._logging._internal", "trace_log",
                                "no graphs, graph-break or recompile reasons"),
    # a code object's cache entries, with their guard managers
    "cache_entries": Feature("torch._dynamo.eval_frame", "_debug_get_cache_entry_list", "no guards"),
    "compile_metrics": Feature("torch._dynamo.utils", "get_compilation_metrics", "no compile times"),
    # the resume functions Dynamo made of a code object, by resume offset
    "resume_cache": Feature("torch._dynamo.resume_execution", "ContinueExecutionCache",
                            "resume functions not tied to where they resume"),
    "compile_context": Feature("torch._guards", "CompileContext", "graphs not tied to their code"),
    # the folders Dynamo never compiles a frame of (depyf's own joins them: untraced.py)
    "skip_dirs": Feature("torch._dynamo.trace_rules", "add",
                         "Dynamo may compile depyf's own wrappers when it meets them"),
}

# Artifact events (``trace_structured("artifact", {"name": ...})``) kept, by the
# names torch gives them -> the kind a dump file is named after.
TRACE_ARTIFACTS = {
    "inductor_post_grad_graph": "inductor_post_grad_graph",     # 2.13-2.15 (tested)
    "after_post_grad_graph": "inductor_post_grad_graph",        # 2.9
    "dynamo_graph_break_reason": "graph_break",
    "recompile_reasons": "recompile",
}


def feature(name: str):
    """The object :data:`FEATURES` ``[name]`` names in this torch, or None.

    >>> feature("bytecode_hook")                          # doctest: +SKIP
    <function register_bytecode_hook at ...>
    """
    spec = FEATURES[name]
    # (looked up in sys.modules first: the trace filter asks at every record,
    # and import_module's own checks cost more than the look-up)
    module = sys.modules.get(spec.module)
    try:
        if module is None:
            module = importlib.import_module(spec.module)
        return getattr(module, spec.name)
    except (ImportError, AttributeError):
        return None


def missing(names: Iterable[str]) -> List[str]:
    """Those of ``names`` this torch lacks.

    >>> missing(["bytecode_hook", "cache_entries"])       # doctest: +SKIP
    []
    """
    return [n for n in names if feature(n) is None]


_warned = set()
_lock = threading.Lock()


def warn_missing(who: str, names: Iterable[str], category=UserWarning, loses: Optional[str] = None,
                 stacklevel: int = 3) -> None:
    """One warning naming the features of ``names`` this torch lacks and what
    ``who`` (``"prepare_debug"``...) does without them (``loses``, else each
    feature's own); a feature is named once per process and ``who``.

    >>> warn_missing("prepare_debug", missing(["bytecode_hook"]))      # doctest: +SKIP
    """
    with _lock:
        fresh = [n for n in names if (who, n) not in _warned]
        _warned.update((who, n) for n in fresh)
    if not fresh:
        return
    import torch
    parts = ["%s (%s)" % (FEATURES[n].where, FEATURES[n].loses) if loses is None else FEATURES[n].where
             for n in fresh]
    tail = loses if loses is not None else "the rest works"
    warnings.warn("depyf %s: torch %s lacks %s: %s." % (who, torch.__version__, "; ".join(parts), tail),
                  category, stacklevel=stacklevel)


def bytecode_log():
    """Dynamo's ``bytecode`` artifact logger (the one TORCH_LOGS=+bytecode
    switches on): a module global of convert_frame where torch keeps one, else
    torch's own for that module and artifact (the same logger).

    >>> bytecode_log().name                           # doctest: +SKIP
    'torch._dynamo.convert_frame.__bytecode'
    """
    import torch._dynamo.convert_frame as convert_frame
    found = getattr(convert_frame, "bytecode_log", None)
    if found is None:
        import torch._logging
        found = torch._logging.getArtifactLogger(convert_frame.__name__, "bytecode")
    return found


def release(version: str) -> tuple:
    """(major, minor) of a torch version string.

    >>> release("2.14.1+cu130")
    (2, 14)
    """
    m = re.match(r"(\d+)\.(\d+)", version)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


def current_compile_id() -> Optional[str]:
    """The compile under way as ``"frame/compile"`` (str(CompileId) without a
    restart's attempt), or None outside one.

    >>> current_compile_id()                          # doctest: +SKIP
    '0/1'
    """
    context = feature("compile_context")
    cid = context.current_compile_id() if context is not None else None
    return compile_id_text(cid)


def current_attempt() -> int:
    """The attempt of the compile under way: 0, and one more each time Dynamo
    restarted its analysis (0 outside a compile, or where torch keeps none).

    >>> current_attempt()                             # doctest: +SKIP
    1
    """
    context = feature("compile_context")
    return attempt_of(context.current_trace_id() if context is not None else None)


def attempt_of(trace_id) -> int:
    """The attempt a trace id (torch's ``TraceId``, or None) names."""
    return int(getattr(trace_id, "attempt", 0) or 0) if trace_id is not None else 0


def compile_id_text(cid) -> Optional[str]:
    """``"frame/compile"`` of a CompileId (None: None).

    >>> compile_id_text(None) is None
    True
    """
    if cid is None:
        return None
    return "%s/%s" % (cid.frame_id, cid.frame_compile_id)


def cache_entries(code) -> list:
    """(compile id text or None, guard manager, code Dynamo made) of each cache
    entry of ``code``, newest first; an older torch's cache entry has no
    compile id (None: told apart by their code).

    >>> cache_entries(f.__code__)                     # doctest: +SKIP
    [('0/0', <GuardManagerWrapper ...>, <code object f ...>)]
    """
    entries = feature("cache_entries")
    if entries is None:
        return []
    return [(compile_id_text(getattr(e, "compile_id", None)), e.guard_manager, e.code) for e in entries(code)]


def resume_functions_made(code) -> dict:
    """{key: resume code} Dynamo made of ``code``; a key's first item is the
    offset the resume function resumes at ({} where torch keeps none).

    >>> resume_functions_made(f.__code__)             # doctest: +SKIP
    {(102, ...): <code object torch_dynamo_resume_in_f_at_5 ...>}
    """
    cache = feature("resume_cache")
    try:
        return dict(cache.cache.get(code) or {}) if cache is not None else {}
    except Exception:           # an internal table of another shape: nothing tied
        return {}


def all_resume_functions_made() -> list:
    """[(key, resume code)] of every code object's resume functions.

    >>> all_resume_functions_made()                   # doctest: +SKIP
    [((102, ...), <code object torch_dynamo_resume_in_f_at_5 ...>)]
    """
    cache = feature("resume_cache")
    try:
        tables = list(cache.cache.values.values()) if cache is not None else []
        return [item for made in tables for item in list(made.items())]
    except Exception:
        return []


# Where Dynamo's compile step keeps the frame it is compiling: the function
# (its name and file) on the call stack of a bytecode hook, and the locals
# naming that frame (a frame object) or its locals (a dict), first found wins.
COMPILE_FUNCTION = ("_compile", "convert_frame.py")
FRAME_LOCALS = (("frame", "frame"), ("locals", "dict"))


def locals_being_compiled(code) -> Optional[dict]:
    """The locals of the frame of ``code`` Dynamo is compiling, read from its
    compile function (:data:`COMPILE_FUNCTION`) up the stack of a bytecode
    hook; None when that function is not found.

    >>> locals_being_compiled(f.__code__)["self"]     # doctest: +SKIP
    <__main__.Model object at ...>
    """
    name, file_name = COMPILE_FUNCTION
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == name and os.path.basename(frame.f_code.co_filename) == file_name:
            compile_locals = frame.f_locals
            for local, kind in FRAME_LOCALS:
                held = compile_locals.get(local)
                if held is None:
                    continue
                if kind == "frame":
                    if getattr(held, "f_code", None) is code:
                        return held.f_locals
                elif isinstance(held, dict):
                    return held
            return None
        frame = frame.f_back
    return None


_STATE_IN_TEXT = re.compile(r"^___check_global_state\(\) against (\{.*\})$")


def recorded_global_state(text: str, wrapper) -> Optional[str]:
    """The JSON of the global state a GLOBAL_STATE guard compares: torch 2.13+
    writes it in the guard's text (``___check_global_state() against {...}``);
    2.9 only names ``___check_global_state()``, the check of the state object
    the guard function's closure holds. None when neither has it.

    >>> recorded_global_state('___check_global_state() against {"grad_mode":true}', None)
    '{"grad_mode":true}'
    """
    match = _STATE_IN_TEXT.match(text)
    if match:
        return match.group(1)
    if text.strip() != "___check_global_state()":
        return None
    check = (getattr(wrapper, "closure_vars", None) or {}).get("___check_global_state")
    state = getattr(check, "__self__", None)
    try:
        return state.__getstate__() if state is not None else None
    except Exception:
        return None


@functools.lru_cache(maxsize=None)
def nan_guards_keep_their_value() -> bool:
    """Whether FLOAT_IS_NAN and COMPLEX_IS_NAN compare a value bit for bit with
    the NaN they recorded (torch 2.15: their builders take that value, which
    only the C++ guard keeps) rather than pass any NaN (2.13, 2.14).

    >>> nan_guards_keep_their_value()                # doctest: +SKIP
    False
    """
    from torch._C._dynamo import guards
    builder = getattr(guards.GuardManager, "add_float_is_nan_guard", None)
    # (pybind's signature line names each argument: the value comes first, as arg0)
    return "arg2" in (getattr(builder, "__doc__", None) or "").split("\n", 1)[0]


def aot_eager_interprets_graphs() -> bool:
    """Whether torch's ``aot_eager`` backend runs AOTAutograd's graphs with
    torch.fx.Interpreter, node by node (torch 2.9), rather than their code
    (2.13+): no line of such a graph's file then runs, so no breakpoint there
    is hit.

    >>> aot_eager_interprets_graphs()                # doctest: +SKIP
    False
    """
    try:
        from torch._dynamo.backends.debugging import boxed_nop
    except ImportError:
        return False
    inner = [c for c in boxed_nop.__code__.co_consts if hasattr(c, "co_names")]
    return any("Interpreter" in c.co_names for c in inner)
