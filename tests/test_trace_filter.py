"""The structured-trace filter: torch builds only the records depyf reads
while depyf alone listens, and gets its own ``trace_structured`` back after.
"""
import contextlib
import logging
import sys
import types

import pytest

torch = pytest.importorskip("torch")

from depyf.dynamo.artifacts import TraceCapture  # noqa: E402


def _holders():
    """Modules whose ``trace_structured`` is depyf's filter."""
    return [name for name, m in list(sys.modules.items())
            if isinstance(getattr(m, "__dict__", None), dict)
            and getattr(m.__dict__.get("trace_structured"), "_depyf_filter", False)]


def _built(name, meta=None):
    """Whether torch built the payload of a ``name`` record (through the
    binding a torch module holds)."""
    import torch._dynamo.utils       # noqa: F401  (imports the modules holding the name)
    import torch._inductor.compile_fx as holder
    calls = []
    holder.trace_structured(name, lambda: dict(meta or {}),
                            payload_fn=lambda: calls.append(name) or "x")
    return bool(calls)


@contextlib.contextmanager
def only_torch_listens():
    """pytest's log capture (added around each test's call) listens on every
    logger, torch's trace included: another reader, for whom the filter lets
    every record through."""
    from torch._logging._internal import trace_log
    saved = [h for h in trace_log.handlers if type(h).__module__.startswith("_pytest")]
    for handler in saved:
        trace_log.removeHandler(handler)
    try:
        yield
    finally:
        for handler in saved:
            trace_log.addHandler(handler)


@pytest.mark.torch
def test_only_kept_records_are_built_and_torch_gets_its_function_back():
    seen = []
    capture = TraceCapture(seen.append)
    with only_torch_listens():
        capture.install()
        try:
            assert _holders(), "no module's trace_structured was filtered"
            assert _built("dynamo_output_graph")
            assert _built("artifact", {"name": "recompile_reasons", "encoding": "string"})
            assert not _built("chromium_event")
            assert not _built("artifact", {"name": "torch._functorch.config", "encoding": "json"})
            # a module imported meanwhile takes the name as it finds it: the filter
            late = types.ModuleType("depyf_test_late_import")
            exec("from torch._logging import trace_structured", late.__dict__)
            sys.modules[late.__name__] = late
        finally:
            capture.uninstall()
            sys.modules.pop("depyf_test_late_import", None)
        assert not getattr(late.trace_structured, "_depyf_filter", False)
        assert [e.kind for e in seen] == ["dynamo_graph", "recompile"]
        assert _holders() == []
        # nobody listening: torch builds nothing, as before
        assert not _built("dynamo_output_graph")


@pytest.mark.torch
def test_other_listeners_get_every_record():
    from torch._logging._internal import trace_log
    other = logging.Handler()
    other.emit = lambda record: None
    trace_log.addHandler(other)
    capture = TraceCapture(lambda e: None)
    try:
        capture.install()
        assert _holders() == []
        assert _built("chromium_event")
    finally:
        capture.uninstall()
        trace_log.removeHandler(other)


@pytest.mark.torch
def test_nested_captures_filter_until_the_last_leaves():
    outer, inner = TraceCapture(lambda e: None), TraceCapture(lambda e: None)
    with only_torch_listens():
        outer.install()
        inner.install()
        try:
            inner.uninstall()
            assert not _built("chromium_event")
        finally:
            outer.uninstall()
        assert _holders() == []


@pytest.mark.torch
def test_graph_break_record_skips_torchs_own_traceback():
    # Dynamo's graph-break payload is its report of the user's code plus
    # traceback.format_exc() of its own frames, which depyf cuts off
    # (user_part): while depyf alone listens, the traceback is not formatted.
    import torch._inductor.compile_fx as holder
    seen, formatted = [], []
    user_stack_trace = 'Graph break in user code at f.py:3\nGraph Break Reason: x\n  File "f.py", line 3'

    def format_exc():
        formatted.append(1)
        return "Traceback (most recent call last):\n  torch's frames"
    meta = {"name": "dynamo_graph_break_reason", "encoding": "string"}
    capture = TraceCapture(seen.append)
    with only_torch_listens():
        capture.install()
        try:
            holder.trace_structured("artifact", lambda: dict(meta),
                                    payload_fn=lambda: f"{user_stack_trace}\n{format_exc()}")
        finally:
            capture.uninstall()
    assert formatted == []
    assert [(e.kind, e.payload.rstrip()) for e in seen] == [("graph_break", user_stack_trace)]
    # beside another listener the record is whole, as torch builds it
    from torch._logging._internal import trace_log
    other = logging.Handler()
    other.emit = lambda record: None
    trace_log.addHandler(other)
    try:
        capture.install()
        holder.trace_structured("artifact", lambda: dict(meta),
                                payload_fn=lambda: f"{user_stack_trace}\n{format_exc()}")
    finally:
        capture.uninstall()
        trace_log.removeHandler(other)
    assert formatted == [1]
    assert "torch's frames" in seen[-1].payload


def _events_of_a_compile(other_listener: bool):
    from torch._logging._internal import trace_log
    import re
    seen = []
    capture = TraceCapture(seen.append)
    other = logging.Handler()
    other.emit = lambda record: None
    with only_torch_listens():
        if other_listener:
            trace_log.addHandler(other)
        capture.install()
        try:
            torch._dynamo.reset()

            def f(x):
                x = x.sin()
                print("a graph break")
                return x.cos() + 1
            torch.compile(f, backend="aot_eager")(torch.randn(4))
        finally:
            capture.uninstall()
            trace_log.removeHandler(other)
    torch._dynamo.reset()
    # (torch's graph counter goes on from run to run)
    from depyf.dynamo.artifacts import user_part
    # (a graph break's record is built without Dynamo's traceback while depyf
    # alone listens: what the dump keeps of it is compared)
    def same_text(text):
        # (the two calls below stand on their own lines: their carets differ)
        return re.sub(r"\d+", "N", re.sub(r"(?m)^[ ~^]*\^[ ~^]*$", "", text))
    return [(e.kind, e.compile_id, e.attempt,
             same_text(user_part(e.payload) if e.kind == "graph_break" else e.payload),
             sorted(e.metadata))
            for e in seen if e.kind not in ("guards", "compile_started")]


@pytest.mark.torch
def test_events_made_without_torchs_record_are_those_of_the_record():
    # (one line for both: the graph break's report quotes the caller's line)
    direct, recorded = [_events_of_a_compile(other_listener) for other_listener in (False, True)]
    assert [e[0] for e in direct] == [e[0] for e in recorded]
    assert "dynamo_graph" in [e[0] for e in direct] and "graph_break" in [e[0] for e in direct]
    assert direct == recorded
