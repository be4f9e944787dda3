"""What torch's structured trace says about each compile.

Dynamo, AOTAutograd and Inductor report their graphs, generated code, graph
breaks and recompile reasons through ``torch._logging.trace_structured`` on the
``torch.__trace`` logger (what ``TORCH_TRACE``/tlparse read). A handler on that
logger sees every one of them with its compile id, whichever backend the user
chose, without wrapping the backend (a wrapper would see only the Dynamo graph:
AOT and Inductor graphs are made inside the backend).

Example::

    >>> cap = TraceCapture(print)        # doctest: +SKIP
    >>> cap.install(); ...; cap.uninstall()      # doctest: +SKIP
"""
from __future__ import annotations

import json
import logging
import sys
import threading
import time
from dataclasses import dataclass
from typing import Callable, List, Optional

from .torch_compat import TRACE_ARTIFACTS, attempt_of, compile_id_text, current_compile_id, feature

# Event name -> the kind a dump file is named after.
GRAPH_EVENTS = {
    "dynamo_output_graph": "dynamo_graph",
    "aot_joint_graph": "aot_joint_graph",
    "aot_forward_graph": "aot_forward_graph",
    "aot_backward_graph": "aot_backward_graph",
    "aot_inference_graph": "aot_inference_graph",
    "inductor_post_grad_graph": "inductor_post_grad_graph",
    "inductor_output_code": "inductor_output_code",
}
# Not kept: compilation_metrics. A compile's time runs from its COMPILE_START
# record to its GUARDS_READY one, else comes from the figures torch keeps of
# its last compiles (hooks.Session._take_compile_times); the trace's copy of
# them costs a dataclass copy and a JSON dump each.
#: Dynamo's record of a finished guard tree (its payload prints the tree): the
#: moment a compile's guards exist, before the cache entry holds them
GUARDS_READY = "dynamo_cpp_guards_str"
#: the kind of the event sent then, its metadata holding the guard manager
GUARDS = "guards"
#: Dynamo's record of a frame compile starting, and the kind of the event sent
#: then (its metadata holding the wall-clock time): with GUARDS, a compile's time
#: is known as it finishes (torch's own figure comes after the compile)
COMPILE_START = "dynamo_start"
STARTED = "compile_started"
# ``artifact`` events (told apart by metadata name) worth keeping, under every
# name a torch release gives them.
ARTIFACTS = TRACE_ARTIFACTS
#: kinds that say why (a graph break, a recompile) rather than hold a graph's
#: text: true of the compile whichever attempt of it they came in
REASONS = frozenset({"graph_break", "recompile"})


def stale(event: Event, attempt: int) -> bool:
    """Whether ``event`` is a graph of an attempt before ``attempt``: one
    Dynamo threw away when it restarted the compile's analysis (AOTAutograd
    may have printed its joint graph by then).

    >>> stale(Event("aot_joint_graph", "1/1", 0, "", {}), 1), stale(Event("graph_break", "1/1", 0, "", {}), 1)
    (True, False)
    """
    return event.attempt < attempt and event.kind not in REASONS


@dataclass
class Event:
    kind: str                   # a GRAPH_EVENTS / ARTIFACTS value
    compile_id: Optional[str]   # "frame/compile" like str(CompileId); None outside a compile
    attempt: int
    payload: str
    metadata: dict


def event_of(record) -> Optional[Event]:
    """The :class:`Event` of a ``torch.__trace`` log record, or None if not kept."""
    meta = getattr(record, "metadata", None)
    if not isinstance(meta, dict) or not meta:
        return None
    name = next(iter(meta))
    kind = kept_kind(name, lambda: meta[name])     # (a key of meta: never UNKNOWN)
    if kind is None:
        return None
    frame, compile_ = meta.get("frame_id"), meta.get("frame_compile_id")
    cid = None if frame is None or compile_ is None else "%s/%s" % (frame, compile_)
    payload = getattr(record, "payload", None)
    return Event(kind=kind, compile_id=cid, attempt=int(meta.get("attempt") or 0),
                 payload=payload if isinstance(payload, str) else "",
                 metadata=meta.get(name) if isinstance(meta.get(name), dict) else {})


#: the kind of a record whose metadata could not be built: kept, so that torch
#: meets its own error as it would have
UNKNOWN = "<unknown>"


def kept_kind(name: str, metadata_fn) -> Optional[str]:
    """The kind of the event :func:`event_of` keeps of a
    ``trace_structured(name, metadata_fn, ...)`` call (:data:`UNKNOWN` when
    ``metadata_fn`` raises), or None when it keeps none (an ``artifact``'s
    name is in its metadata, which torch builds with a cheap lambda).

    >>> kept_kind("artifact", lambda: {"name": "recompile_reasons"}), kept_kind("chromium_event", dict)
    ('recompile', None)
    """
    if name in GRAPH_EVENTS:
        return GRAPH_EVENTS[name]
    if name != "artifact":
        return None
    try:
        meta = metadata_fn()
    except Exception:
        return UNKNOWN
    return ARTIFACTS.get(meta.get("name")) if isinstance(meta, dict) else None


class TraceFilter:
    """Skip the structured-trace records depyf does not read while only depyf listens.

    With any handler on ``torch.__trace`` torch builds every record: about
    ten times as many as depyf keeps (timing events, guard-tree strings,
    tensor descriptions), each with a log record, a JSON dump and an md5 of
    its payload, a few per cent of a cold compile. (A graph-break record
    is built without Dynamo's own traceback, which depyf cuts off anyway:
    :func:`_user_part_only`.) Modules hold torch's
    ``trace_structured`` by name (``from torch._logging import
    trace_structured``), so the filter takes the place of that name in each
    module holding it (modules imported meanwhile take the filter from
    ``torch._logging``), and puts torch's back in all of them when the last
    user leaves. Wherever it stays behind (a copy held under another name),
    it passes every call on unchanged once no session is open, or while
    another handler is on the trace (``TORCH_TRACE``); a module still
    holding torch's own only costs time, never an event.

    >>> TraceFilter.acquire(capture)          # doctest: +SKIP
    >>> TraceFilter.release(capture)          # doctest: +SKIP
    """
    _lock = threading.Lock()
    _users: List[logging.Handler] = []
    # Looking through ~2,500 modules at each start and end costs as much as
    # the filter saves on a small program: modules once looked at are
    # remembered, with the namespaces that hold the name.
    _looked_at: set = set()
    _holders: List[dict] = []
    # (size, newest name, newest module) of sys.modules at the last look: when
    # equal, nothing was imported since (imports append), and even the set
    # difference over every module name (~0.2 ms a start and an end) is spared
    _last_seen: tuple = ()

    @classmethod
    def acquire(cls, handler: logging.Handler) -> None:
        import torch._logging._internal as internal
        with cls._lock:
            cls._users.append(handler)
            # Someone else reads the whole trace: torch builds it all anyway, and
            # their records keep naming torch's caller, not this filter.
            others = [h for h in internal.trace_log.handlers
                      if h not in cls._users and not _undecided(h) and not _test_capture(h)]
            if len(cls._users) == 1 and not others:
                cls._look_at_new_modules()
                original = _unfiltered(internal.trace_structured)
                replacement = _make_filter(original, cls._users)
                for namespace in cls._holders:
                    if namespace.get("trace_structured") is original:
                        namespace["trace_structured"] = replacement

    @classmethod
    def release(cls, handler: logging.Handler) -> None:
        with cls._lock:
            if handler in cls._users:
                cls._users.remove(handler)
                if not cls._users:
                    # modules imported meanwhile hold the filter too: all get torch's back
                    cls._look_at_new_modules()
                    for namespace in cls._holders:
                        namespace["trace_structured"] = _unfiltered(namespace["trace_structured"])

    @classmethod
    def _look_at_new_modules(cls) -> None:
        modules = sys.modules
        newest = next(reversed(modules), None)
        seen = (len(modules), newest, modules.get(newest))
        if seen == cls._last_seen:
            return
        cls._last_seen = seen
        for name in modules.keys() - cls._looked_at:
            cls._looked_at.add(name)
            namespace = getattr(modules.get(name), "__dict__", None)
            if isinstance(namespace, dict) and _is_torchs(namespace.get("trace_structured")):
                cls._holders.append(namespace)


def _is_torchs(fn) -> bool:
    """``fn`` is torch's trace_structured (or this filter in its place)."""
    return getattr(_unfiltered(fn), "__module__", None) == "torch._logging._internal" \
        and getattr(fn, "__name__", None) == "trace_structured"


def _undecided(handler) -> bool:
    """torch's own trace handler before its first record: without a trace
    directory it removes itself then (and until then the filter lets every
    call through, so it decides as it would have)."""
    return (type(handler).__name__ == "LazyTraceHandler"
            and getattr(handler, "stream", True) is None and getattr(handler, "root_dir", True) is None)


def _test_capture(handler) -> bool:
    """pytest's log capture, which it puts on every logger a test touches:
    it reads no trace (torch's records have an empty message), and a test
    should see what a program run outside pytest does."""
    return type(handler).__module__.startswith("_pytest.")


def _unfiltered(fn):
    return fn.__wrapped__ if getattr(fn, "_depyf_filter", False) else fn


def _make_filter(original, users: List[logging.Handler]):
    from torch._logging._internal import trace_log

    def trace_structured(name, metadata_fn=dict, **kwargs):
        handlers = trace_log.handlers
        # (the common case first: a session's handler alone, at each of ~100 records a compile)
        alone = len(handlers) == 1 and handlers[0] in users
        if not alone and (not users or any(h not in users and not _test_capture(h) for h in handlers)):
            return original(name, metadata_fn, **kwargs)
        if name == COMPILE_START:
            _give(users, Event(kind=STARTED, compile_id=current_compile_id(), attempt=0,
                               payload="", metadata={"time": time.time()}))
            return None
        if name == GUARDS_READY:
            # Nobody reads the tree's text (printing it costs more than rendering it):
            # the sessions take the tree itself, to render the guards from it.
            manager = guard_manager_of(kwargs.get("payload_fn"))
            if manager is not None:
                _give(users, Event(kind=GUARDS, compile_id=current_compile_id(), attempt=0,
                                   payload="", metadata={"manager": manager}))
            return None
        kind = kept_kind(name, metadata_fn)
        if kind is None:
            return None
        if kind == "graph_break" and "payload_fn" in kwargs:
            kwargs["payload_fn"] = _user_part_only(kwargs["payload_fn"])
        if kind != UNKNOWN:
            try:
                event = direct_event(kind, metadata_fn, kwargs)
            except Exception:       # torch meets its own error, as it would have
                event = None
            if event is not None:
                _give(users, event)
                return None
        return original(name, metadata_fn, **kwargs)
    trace_structured._depyf_filter = True
    trace_structured.__wrapped__ = original
    trace_structured.__doc__ = original.__doc__
    return trace_structured


def _give(users: List[logging.Handler], event: Event) -> None:
    for handler in list(users):
        handler.take(event)


def direct_event(kind: str, metadata_fn, kwargs: dict) -> Event:
    """The :class:`Event` :func:`event_of` would make of the record torch
    builds from a ``trace_structured`` call, made without the record: only
    depyf listens, and the record's JSON, digest and log call cost more
    than the payload is worth to nobody else. The compile id and attempt are
    torch's (the trace id of the compile in progress, else the call's
    ``compile_id``), a payload that is no string is laid out as torch lays it.
    """
    meta = metadata_fn()
    context = feature("compile_context")
    trace_id = context.current_trace_id() if context is not None else None
    cid = trace_id.compile_id if trace_id is not None else kwargs.get("compile_id")
    if kwargs.get("suppress_context"):
        cid = trace_id = None
    payload_fn = kwargs.get("payload_fn")
    payload = payload_fn() if payload_fn is not None else None
    if payload is not None and not isinstance(payload, str):
        if isinstance(payload, list):
            payload = "[\n" + ",\n".join(json.dumps(item) for item in payload) + "\n]"
        else:
            payload = json.dumps(payload, indent=0, default=lambda o: list(o) if isinstance(o, set) else str(o))
    return Event(kind=kind, compile_id=compile_id_text(cid),
                 attempt=attempt_of(trace_id),
                 payload=payload or "", metadata=meta if isinstance(meta, dict) else {})


def guard_manager_of(payload_fn):
    """The guard manager whose text ``payload_fn`` (of a :data:`GUARDS_READY`
    record) prints, or None. Dynamo's is a lambda over its
    ``CheckFunctionManager`` (``f"{self.guard_manager}..."``): the manager
    is that object's ``guard_manager``, whichever cell holds it.
    """
    for cell in getattr(payload_fn, "__closure__", None) or ():
        try:
            held = cell.cell_contents
        except ValueError:      # a cell not filled yet
            continue
        manager = getattr(held, "guard_manager", None)
        if manager is not None and hasattr(manager, "root"):
            return manager
    return None


def _user_part_only(payload_fn):
    """``payload_fn`` of a graph-break record without what :func:`user_part`
    cuts off. Dynamo's is ``lambda: f"{user_stack_trace}\\n{traceback.format_exc()}"``:
    its report of the user's code, then its own frames, whose formatting
    (source lines read, carets placed) cost 0.8 ms a graph break. Any other
    function is left as it is.
    """
    code, cells = getattr(payload_fn, "__code__", None), getattr(payload_fn, "__closure__", None)
    if code is None or not cells or "user_stack_trace" not in code.co_freevars:
        return payload_fn
    try:
        text = cells[code.co_freevars.index("user_stack_trace")].cell_contents
    except (ValueError, IndexError):
        return payload_fn
    return (lambda: text) if isinstance(text, str) else payload_fn


class TraceCapture(logging.Handler):
    """A ``torch.__trace`` handler passing kept events to ``sink(event)``;
    ``install(filtered=True)`` also keeps torch from building the records
    nobody reads (:class:`TraceFilter`)."""

    def __init__(self, sink: Callable[[Event], None]):
        super().__init__(level=logging.DEBUG)
        self.sink = sink
        self._saved = None
        self._filtered = False

    def emit(self, record) -> None:
        try:
            event = event_of(record)
            if event is not None:
                self.sink(event)
        except Exception:       # never let a log call fail inside torch
            pass

    def take(self, event: Event) -> None:
        """An event the filter made without a log record (while depyf alone listens)."""
        try:
            self.sink(event)
        except Exception:
            pass

    def install(self, filtered: bool = True) -> None:
        from torch._logging._internal import trace_log
        # trace_structured only works when the logger has handlers and lets DEBUG
        # through (torch sets both up at import, but a user may have changed them).
        self._saved = (trace_log.level, trace_log.propagate)
        _set_level(trace_log, logging.DEBUG)
        trace_log.propagate = False
        trace_log.addHandler(self)
        if filtered:
            TraceFilter.acquire(self)
            self._filtered = True

    def uninstall(self) -> None:
        from torch._logging._internal import trace_log
        if self._filtered:
            TraceFilter.release(self)
            self._filtered = False
        trace_log.removeHandler(self)
        if self._saved is not None:
            level, propagate = self._saved
            _set_level(trace_log, level)
            trace_log.propagate = propagate
            self._saved = None


def _set_level(logger: logging.Logger, level: int) -> None:
    # setLevel empties the level cache of every logger (torch has ~1,000): ~0.5 ms
    if logger.level != level:
        logger.setLevel(level)


def user_part(graph_break_text: str) -> str:
    """A graph-break report without torch's own traceback: the reason and the
    user's frames (file, line and source text), as Dynamo printed them."""
    cut = graph_break_text.find("\nTraceback (most recent call last)")
    text = graph_break_text if cut < 0 else graph_break_text[:cut]
    text = text.rstrip()
    # traceback.format_exc() outside an except block (how some breaks are logged)
    if text.endswith("NoneType: None"):
        text = text[:-len("NoneType: None")].rstrip()
    return text.strip("\n")
