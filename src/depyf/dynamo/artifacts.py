"""What torch's structured trace says about each compile.

Dynamo, AOTAutograd and Inductor report their graphs, generated code, graph
breaks and recompile reasons through ``torch._logging.trace_structured`` on the
``torch.__trace`` logger (what ``TORCH_TRACE``/tlparse read). A handler on that
logger sees every one of them with its compile id, whichever backend the user
chose, without wrapping the backend (a wrapper would see only the Dynamo graph:
AOT and Inductor graphs are made inside the backend).

Example::

    >>> cap = TraceCapture(print)        # doctest: +SKIP
    >>> cap.install(); ...; cap.uninstall()
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Callable, Optional

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
# Other events: Dynamo's per-compile figures (its compile time).
OTHER_EVENTS = {"compilation_metrics": "metrics"}
# ``artifact`` events (told apart by metadata name) worth keeping.
ARTIFACTS = {
    "inductor_post_grad_graph": "inductor_post_grad_graph",
    "dynamo_graph_break_reason": "graph_break",
    "recompile_reasons": "recompile",
}


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
    kind = GRAPH_EVENTS.get(name) or OTHER_EVENTS.get(name)
    if kind is None:
        if name != "artifact":
            return None
        inner = meta.get(name) or {}
        kind = ARTIFACTS.get(inner.get("name"))
        if kind is None:
            return None
    frame, compile_ = meta.get("frame_id"), meta.get("frame_compile_id")
    cid = None if frame is None or compile_ is None else "%s/%s" % (frame, compile_)
    payload = getattr(record, "payload", None)
    return Event(kind=kind, compile_id=cid, attempt=int(meta.get("attempt") or 0),
                 payload=payload if isinstance(payload, str) else "",
                 metadata=meta.get(name) if isinstance(meta.get(name), dict) else {})


class TraceCapture(logging.Handler):
    """A ``torch.__trace`` handler passing kept events to ``sink(event)``."""

    def __init__(self, sink: Callable[[Event], None]):
        super().__init__(level=logging.DEBUG)
        self.sink = sink
        self._saved = None

    def emit(self, record) -> None:
        try:
            event = event_of(record)
            if event is not None:
                self.sink(event)
        except Exception:       # never let a log call fail inside torch
            pass

    def install(self) -> None:
        from torch._logging._internal import trace_log
        # trace_structured only works when the logger has handlers and lets DEBUG
        # through (torch sets both up at import, but a user may have changed them).
        self._saved = (trace_log.level, trace_log.propagate)
        trace_log.setLevel(logging.DEBUG)
        trace_log.propagate = False
        trace_log.addHandler(self)

    def uninstall(self) -> None:
        from torch._logging._internal import trace_log
        trace_log.removeHandler(self)
        if self._saved is not None:
            level, propagate = self._saved
            trace_log.setLevel(level)
            trace_log.propagate = propagate
            self._saved = None


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
