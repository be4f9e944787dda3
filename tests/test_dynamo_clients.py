"""depyf as its real clients use it: vLLM enters ``prepare_debug`` inside a
custom backend's ``__call__``, enters one at start-up and leaves it much later
(or never, when the process dies), and decompiles Dynamo's code from its own
bytecode hook; torchlens wraps one compiled call and lists the files."""
import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch", reason="the client tests need torch (pip install torch==2.13.0)")
pytestmark = pytest.mark.torch

import depyf  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def g(x, y):
    return (x.sin() + y).relu().sum()


class DumpingBackend:
    """vLLM's shape: the backend dumps what it compiles."""

    def __init__(self, path):
        self.path = path

    def __call__(self, gm, example_inputs):
        from torch._dynamo.backends.registry import lookup_backend
        with depyf.prepare_debug(self.path):
            return lookup_backend("aot_eager")(gm, example_inputs)


def test_prepare_debug_inside_a_backend_dumps_that_compile(tmp_path):
    torch._dynamo.reset()
    dump = tmp_path / "d1"
    x, y = torch.randn(8), torch.randn(8)
    f = torch.compile(g, backend=DumpingBackend(str(dump)))
    assert torch.allclose(f(x, y), g(x, y))
    names = sorted(os.listdir(dump))
    # the graphs compiled inside the block, and the frame whose compile it was part of
    assert "__compiled_fn_1.aot_inference_graph.py" in names or "__compiled_fn_1.aot_forward_graph.py" in names
    assert "__transformed_code_0_for_g.py" in names
    full = (dump / "full_code_for_g.py").read_text()
    assert "def __guard_0_for_g(L, G):" in full and "def __transformed_code_0_for_g(" in full
    assert "__meta_for_g.json" in names


def test_prepare_debug_inside_a_backend_each_compile(tmp_path):
    """A backend entering the block at each of its compiles, into one folder."""
    torch._dynamo.reset()
    dump = tmp_path / "d"
    f = torch.compile(g, backend=DumpingBackend(str(dump)))
    f(torch.randn(8), torch.randn(8))
    f(torch.randn(3, 2), torch.randn(3, 2))       # a recompile: another block
    full = (dump / "full_code_for_g.py").read_text()
    assert "def __guard_0_for_g(L, G):" in full and "def __guard_1_for_g(L, G):" in full


NO_EXIT = '''import os, sys, time, torch, depyf
from depyf.dynamo.quiet import QUIET
def g(x, y):
    return (x.sin() + y).relu().sum()
cm = depyf.prepare_debug(sys.argv[1])
cm.__enter__()
f = torch.compile(g, backend="eager")
f(torch.randn(8), torch.randn(8))
f(torch.randn(3, 2), torch.randn(3, 2))
'''


# How a process that never leaves the block ends: killed (os._exit, no atexit)
# after a moment's quiet, which the quiet writer waits for (depyf.dynamo.quiet),
# or leaving at once the ordinary way, without the block's __exit__.
# With DEPYF_QUIET_SECONDS=0 the files are written at once: killed at once, it keeps them.
ENDINGS = {"killed_after_a_quiet_spell": ("time.sleep(3 * QUIET)\nos._exit(0)\n", None),
           "exits_at_once": ("sys.exit(0)\n", None),
           "killed_at_once_with_no_quiet_spell": ("os._exit(0)\n", "0")}


@pytest.mark.parametrize("ending", sorted(ENDINGS))
def test_every_compile_is_on_disk_without_exit(tmp_path, ending):
    end, quiet = ENDINGS[ending]
    (tmp_path / "prog.py").write_text(NO_EXIT + end)
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"))
    env.pop("DEPYF_DUMP_DIR", None)
    env.pop("DEPYF_QUIET_SECONDS", None)
    if quiet is not None:
        env["DEPYF_QUIET_SECONDS"] = quiet
    res = subprocess.run([sys.executable, "prog.py", "d2"], cwd=str(tmp_path), env=env,
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    dump = tmp_path / "d2"
    full = (dump / "full_code_for_g.py").read_text()
    for k in (0, 1):
        assert "def __guard_%d_for_g(L, G):" % k in full
        assert "def __transformed_code_%d_for_g(" % k in full
        assert (dump / ("__transformed_code_%d_for_g.py" % k)).exists()
    assert '"guard_name": "__guard_1_for_g"' in (dump / "__meta_for_g.json").read_text()
    compile(full, "full_code_for_g.py", "exec")


def test_decompile_from_a_bytecode_hook_of_ones_own(tmp_path):
    from torch._dynamo.convert_frame import register_bytecode_hook
    torch._dynamo.reset()
    seen = []

    def hook(code, new_code):
        seen.append(depyf.decompile(new_code))

    handle = register_bytecode_hook(hook)
    try:
        with depyf.prepare_debug(str(tmp_path / "d3")):
            torch.compile(g, backend="eager")(torch.randn(8), torch.randn(8))
    finally:
        handle.remove()
    assert len(seen) == 1 and "__compiled_fn_" in seen[0]
    compile(seen[0], "<decompiled>", "exec")


def test_one_wrapped_call_lists_its_files(tmp_path):
    """torchlens: ``with prepare_debug(path): torch.compile(model)(*x)``, then the listing."""
    torch._dynamo.reset()
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU())
    x = torch.randn(2, 4)
    with depyf.prepare_debug(str(tmp_path / "d4")):
        out = torch.compile(model, backend="eager")(x)
    assert torch.allclose(out, model(x))
    names = sorted(os.listdir(tmp_path / "d4"))
    assert any(n.startswith("full_code_for_") for n in names)
    assert any(n.endswith(".dynamo_graph.py") for n in names)
    assert any(n.startswith("__transformed_code_0_for_") for n in names)
