"""What a finished prepare_debug block leaves alive in the process.

A training script may dump each step or each rank into a folder of its own:
the sessions of blocks that ended must not pile up (each holds its compiles'
records, the graphs' events and Dynamo's guard managers), only the little a
later block into the same folder goes on from. Run in a fresh process: torch
state would leak between tests.
"""
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SCRIPT = textwrap.dedent("""
    import gc, os, sys, weakref
    import torch, depyf

    def f(x):
        return torch.relu(x) * 2

    alive = []
    for i in range(12):
        torch._dynamo.reset()
        with depyf.prepare_debug(os.path.join(sys.argv[1], "step%d" % i)) as session:
            torch.compile(f, backend="eager")(torch.randn(3))
        alive.append(weakref.ref(session))
        del session
    gc.collect()
    print(sum(r() is not None for r in alive))
    # a block into a folder used before goes on from its numbers
    torch._dynamo.reset()
    with depyf.prepare_debug(os.path.join(sys.argv[1], "step0")):
        torch.compile(f, backend="eager")(torch.randn(3))
    print(sorted(n for n in os.listdir(os.path.join(sys.argv[1], "step0")) if n.endswith(".py")))
""")


def run_fresh(script: str, folder) -> str:
    """``script``'s output, run in a fresh process with ``folder`` as its argument."""
    pytest.importorskip("torch")
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"))
    run = subprocess.run([sys.executable, "-c", script, str(folder)], env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    return run.stdout


@pytest.mark.torch
def test_finished_sessions_do_not_pile_up(tmp_path):
    alive, files = run_fresh(SCRIPT, tmp_path).splitlines()[-2:]
    # (the last few stay, for debug() to point their graphs at their files)
    assert int(alive) <= 8, alive
    assert "full_code_for_f.py" in files


GRAPHS_SCRIPT = textwrap.dedent("""
    import gc, os, sys, weakref
    import torch, depyf

    graphs = []

    def backend(gm, example_inputs):
        graphs.append(weakref.ref(gm))
        return gm.forward

    def f(x):
        x = torch.relu(x) * 2
        print("a graph break")
        return x + 1

    def alive_after(rounds, dump):
        graphs.clear()
        for i in range(rounds):
            torch._dynamo.reset()
            if dump:
                with depyf.prepare_debug(os.path.join(sys.argv[1], "step%d" % i)):
                    torch.compile(f, backend=backend)(torch.randn(3))
            else:
                torch.compile(f, backend=backend)(torch.randn(3))
        torch._dynamo.reset()
        gc.collect()
        return sum(r() is not None for r in graphs)

    print(alive_after(4, dump=False), alive_after(4, dump=True))
""")


@pytest.mark.torch
def test_graphs_go_when_dynamo_lets_them_go(tmp_path):
    # Dynamo frees a compile's graph (the global that holds it) when the code it
    # made dies; a dump that kept that code alive kept every graph (and the
    # tensors its module holds) for good, once per folder.
    plain, dumped = map(int, run_fresh(GRAPHS_SCRIPT, tmp_path).split()[-2:])
    assert dumped <= plain, (plain, dumped)
