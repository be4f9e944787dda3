"""A compile Dynamo restarts after its backend has begun: the graphs of the
attempt thrown away must not take the names of the attempt that stays.

The resume function after ``.item()`` gets the Python float the break
returned. Its second compile (the float differs: a recompile) makes the
float dynamic, and AOTAutograd's pass that turns such scalars into tensors
restarts the analysis *after* printing the first attempt's joint graph. The
dump numbers graphs by the order Dynamo printed them, so that leftover joint
graph, taken for the compile's first graph, used to claim
``__compiled_fn_3`` and push the real graph, and its AOT graphs, to a name
of depyf's own (``__graph_1_for_..._1``) that the transformed code never
calls.

The program runs in a process of its own (this file, as a script): torch's
state would leak between tests.
"""
import glob
import os
import re
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(os.path.dirname(HERE), "src")

pytestmark = pytest.mark.torch


def test_a_restarted_compile_keeps_the_names_of_its_graphs(tmp_path):
    pytest.importorskip("torch")
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""),
               PYTHONWARNINGS="ignore")
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), str(tmp_path)],
                          env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "restarted" in proc.stdout, proc.stdout     # (the case this test is about happened)
    names = sorted(os.path.basename(p) for p in glob.glob(str(tmp_path / "*.py")))
    assert not [n for n in names if n.startswith("__graph_")], names
    for path in glob.glob(str(tmp_path / "__transformed_code_*.py")):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for graph in re.findall(r"__compiled_fn_\d+", text):
            assert "%s.dynamo_graph.py" % graph in names, (path, graph, names)
    # every AOT graph sits beside the Dynamo graph it was made of
    for name in names:
        if ".aot_" in name:
            assert name.split(".")[0] + ".dynamo_graph.py" in names, (name, names)


def _main(dump_dir: str) -> None:
    import torch
    import depyf

    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(16, 16)
            self.norm = torch.nn.LayerNorm(16)

        def forward(self, x):
            h = self.lin(x)
            if h.sum().item() > 0:      # a graph break; the float goes to the resume function
                h = h * 2
            return self.norm(h + x)

    torch.manual_seed(0)
    model = torch.compile(Block(), backend="aot_eager")
    with depyf.prepare_debug(dump_dir):
        for _ in range(3):
            model(torch.randn(4, 16))
    from torch._dynamo.utils import counters
    if counters["stats"].get("unique_graphs", 0) and any(
            "compile_attempt_1" in k for k in _compile_times()):
        print("restarted")


def _compile_times():
    from torch._dynamo.utils import compile_times
    try:
        return compile_times(repr="csv")[0]
    except Exception:
        return []


if __name__ == "__main__":
    _main(sys.argv[1])
