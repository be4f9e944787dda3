"""Resume functions Dynamo makes, as the dump writes them (their readable
form), called with the arguments Dynamo's transformed code passes them: the
same results as Dynamo's own, on every way out.

A graph break inside a ``with`` block makes the hardest one: its prologue
enters the block again and jumps into the middle of the original code, and
where ``__exit__`` swallows an exception it raises instead of going on after
the block.
"""
import types

import pytest

torch = pytest.importorskip("torch")

from depyf.dynamo import fullcode  # noqa: E402

pytestmark = pytest.mark.torch

FALLBACK_MARKER = "depyf: unstructured fallback"


def with_block_break(x):
    with torch.no_grad():
        y = x * 2
        print("depyf test: a graph break in a with block")
        y = y + 1
    return y


class Swallowing:
    """A context manager that swallows every exception."""

    def __init__(self, *args):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return True


class Refusing:
    """A value every arithmetic operation on raises."""

    def _refuse(self, other):
        raise ValueError("refused")

    __add__ = __radd__ = __mul__ = __rmul__ = _refuse


def _resume_calls(fn, *args):
    """(resume code object, the arguments the transformed code passed it) of
    each resume function Dynamo made for ``fn`` compiled and run on ``args``."""
    namespace = fn.__globals__
    torch._dynamo.reset()
    compiled = torch.compile(fn, backend="eager")
    compiled(*args)
    calls = []
    saved = {name: value for name, value in namespace.items() if name.startswith("__resume_at_")}

    def recorder(resume):
        def record(*a, **k):
            calls.append((resume.__code__, a, k))
            return resume(*a, **k)
        return torch._dynamo.disable(record)

    try:
        for name, resume in saved.items():
            namespace[name] = recorder(resume)
        compiled(*args)         # (a cache hit: the transformed code calls the recorders)
    finally:
        namespace.update(saved)
        torch._dynamo.reset()
    assert calls, "no resume function was called"
    return calls


def _outcome(fn, args, kwargs):
    try:
        return "returned", fn(*args, **kwargs)
    except Exception as e:
        return "raised", type(e)


def _same(a, b):
    if a[0] != b[0]:
        return False
    if isinstance(a[1], torch.Tensor):
        return isinstance(b[1], torch.Tensor) and torch.equal(a[1], b[1])
    return a[1] == b[1]


def test_resume_function_reentering_a_with_block_is_structured_and_behaves():
    for code, args, kwargs in _resume_calls(with_block_break, torch.ones(3)):
        text, problem = fullcode.safe_decompile(code, "resumed", readable=fullcode.readable_hints(None, {}))
        assert problem is None and FALLBACK_MARKER not in text, text
        assert "with " in text, text
        namespace = dict(with_block_break.__globals__)
        exec(compile(text, "<resumed>", "exec"), namespace)
        mine = namespace["resumed"]
        theirs = types.FunctionType(code, with_block_break.__globals__)
        # the block's normal way out
        assert _same(_outcome(theirs, args, kwargs), _outcome(mine, args, kwargs)), text
        # an exception the context manager swallows: Dynamo's code goes on
        # to its prologue's way out, not to the code after the block
        odd = [Swallowing if a is torch.set_grad_enabled or a is torch.no_grad else
               Refusing() if isinstance(a, torch.Tensor) else a for a in args]
        if any(a is Swallowing for a in odd):
            expected = _outcome(theirs, odd, kwargs)
            assert _same(expected, _outcome(mine, odd, kwargs)), (expected, text)
