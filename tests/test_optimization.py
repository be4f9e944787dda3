"""``depyf.optimization.TorchCompileWrapperWithCustomDispatcher`` on real torch.

The main case is the published depyf's ``test_wrapper.py``: a subclass lets
torch.compile compile ``forward`` twice (without and with a cache tensor),
then dispatches by argument to the compiled code objects itself.
"""
import os
import subprocess
import sys
from typing import Optional

import pytest

torch = pytest.importorskip("torch", reason="the dispatcher wraps torch.compile (pip install torch==2.13.0)")
pytestmark = pytest.mark.torch

from depyf.optimization import TorchCompileWrapperWithCustomDispatcher  # noqa: E402

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")


class AddOrDouble(torch.nn.Module):
    def forward(self, x: torch.Tensor, cache: Optional[torch.Tensor] = None):
        if cache is not None:
            return x + cache
        return x * 2


class Dispatcher(TorchCompileWrapperWithCustomDispatcher):
    """Compiles twice, then picks the compiled code by whether a cache is given."""

    def __init__(self, model):
        self.model = model
        super().__init__(torch.compile(self.forward, backend="eager"))

    def forward(self, x: torch.Tensor, cache: Optional[torch.Tensor] = None):
        return self.model(x, cache)

    def __call__(self, x: torch.Tensor, cache: Optional[torch.Tensor] = None):
        if len(self.compiled_codes) == 2:
            with self.dispatch_to_code(0 if cache is None else 1):
                return self.forward(x, cache)
        return self.compiled_callable(x, cache)


def compiled_twice(model):
    torch._dynamo.reset()
    wrapper = Dispatcher(model)
    x, cache = torch.tensor([1]), torch.tensor([2])
    assert torch.equal(wrapper(x, None), model(x, None))         # compiles code 0
    assert torch.equal(wrapper(x, cache), model(x, cache))       # recompiles: code 1
    return wrapper


def test_dispatches_by_argument_to_each_compiled_code():
    model = AddOrDouble()
    wrappers = [compiled_twice(model) for _ in range(3)]
    cache = torch.tensor([2])
    for wrapper in wrappers:
        for x in (torch.tensor([3]), torch.tensor([-7])):
            assert torch.equal(wrapper(x, None), model(x, None))
            assert torch.equal(wrapper(x, cache), model(x, cache))
    for wrapper in wrappers:
        # each instance keeps its own two codes, though all share forward's code object
        assert len(wrapper.compiled_codes) == 2
        assert len(set(map(id, wrapper.compiled_codes))) == 2
        for code in wrapper.compiled_codes:
            assert code is not wrapper.original_code_object
            # Dynamo keeps the signature, so the code can stand in for forward's
            assert code.co_varnames[:code.co_argcount] == ("self", "x", "cache")
    assert Dispatcher.forward.__code__ is wrappers[0].original_code_object     # put back after each call


def test_dispatched_code_runs_without_its_guards():
    """Code 0 was compiled for ``cache is None``: forced onto a call with a
    cache, it still doubles, which shows Dynamo's code ran, not forward's."""
    model = AddOrDouble()
    wrapper = compiled_twice(model)
    x, cache = torch.tensor([3]), torch.tensor([2])
    with wrapper.dispatch_to_code(0):
        assert torch.equal(wrapper.forward(x, cache), x * 2)
    assert torch.equal(wrapper.forward(x, cache), x + cache)       # forward is itself again


def test_forward_is_restored_when_the_block_raises():
    wrapper = compiled_twice(AddOrDouble())
    with pytest.raises(ZeroDivisionError):
        with wrapper.dispatch_to_code(1):
            assert Dispatcher.forward.__code__ is wrapper.compiled_codes[1]
            1 / 0
    assert Dispatcher.forward.__code__ is wrapper.original_code_object


def test_an_index_not_compiled_is_a_clear_error():
    wrapper = compiled_twice(AddOrDouble())
    with pytest.raises(IndexError, match=r"dispatch_to_code\(2\): 2 code object\(s\) compiled so far"):
        with wrapper.dispatch_to_code(2):
            pass
    assert Dispatcher.forward.__code__ is wrapper.original_code_object


def test_base_call_goes_through_torch_compile():
    class Plain(TorchCompileWrapperWithCustomDispatcher):
        def __init__(self):
            super().__init__(torch.compile(self.forward, backend="eager"))

        def forward(self, x):
            return x - 1

    torch._dynamo.reset()
    plain = Plain()
    assert plain.use_custom_dispatcher is True
    assert torch.equal(plain(torch.tensor([5])), torch.tensor([4]))
    assert len(plain.compiled_codes) == 1
    # other compiled functions are not collected
    torch.compile(lambda t: t * 3, backend="eager")(torch.tensor([1]))
    assert len(plain.compiled_codes) == 1


def test_a_torch_without_the_bytecode_hook_is_named(monkeypatch):
    monkeypatch.delattr(torch._dynamo.convert_frame, "register_bytecode_hook")
    with pytest.raises(RuntimeError, match=r"needs torch\._dynamo\.convert_frame\.register_bytecode_hook, "
                                           r"which torch .* lacks"):
        Dispatcher(AddOrDouble())


def test_a_collected_wrapper_takes_its_hook_away():
    import gc
    import weakref
    torch._dynamo.reset()
    hooks = torch._dynamo.convert_frame._bytecode_hooks
    gc.collect()                # the earlier tests' wrappers go first
    before = len(hooks)
    wrapper = Dispatcher(AddOrDouble())
    assert len(hooks) == before + 1
    gone = weakref.ref(wrapper)
    del wrapper
    gc.collect()
    assert gone() is None and len(hooks) == before


def test_importing_depyf_does_not_import_torch():
    env = dict(os.environ, PYTHONPATH=SRC)
    out = subprocess.run([sys.executable, "-c", "import sys, depyf, depyf.utils; print('torch' in sys.modules)"],
                         env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_torch_that_compiles_elsewhere_is_a_clear_error(monkeypatch):
    """The instance is told by the frame Dynamo compiles, read from its compile
    function up the stack; a torch that moved it gets an error naming that."""
    from depyf.dynamo import torch_compat
    monkeypatch.setattr(torch_compat, "COMPILE_FUNCTION", ("_no_such_compile", "convert_frame.py"))
    torch._dynamo.reset()
    wrapper = Dispatcher(AddOrDouble())
    with pytest.raises(Exception, match=r"cannot find the frame Dynamo is compiling \(no _no_such_compile\(\) "
                                        r"of convert_frame.py on the stack"):
        wrapper(torch.tensor([1]))
