"""The no-code-change workflow on real torch: `depyf run` on an unmodified
script, `DEPYF_DUMP_DIR` for a program started another way, and the report
of the dump loaded in a real headless browser."""
import glob
import os
import re
import subprocess
import sys
import sysconfig

import pytest

from browser import load

torch = pytest.importorskip("torch", reason="the workflow tests need torch (pip install torch==2.13.0)")
pytestmark = pytest.mark.torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SCRIPT = '''import sys
import torch


def toy_example(a, b):
    x = a / (torch.abs(a) + 1)
    if b.sum() < 0:
        b = b * -1
    return x * b


def main(n):
    torch.manual_seed(0)
    f = torch.compile(toy_example, backend="eager")
    total = 0.0
    for _ in range(n):
        total += float(f(torch.randn(10), torch.randn(10)).sum())
    print("total %.6f" % total)


if __name__ == "__main__":
    main(int(sys.argv[1]))
'''


def run(args, cwd, env_extra=None, timeout=600):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"))
    env.pop("DEPYF_DUMP_DIR", None)
    env.update(env_extra or {})
    return subprocess.run(args, cwd=str(cwd), env=env, capture_output=True, text=True, timeout=timeout)


def test_depyf_run_dump_and_report_in_browser(tmp_path):
    (tmp_path / "train.py").write_text(SCRIPT)
    plain = run([sys.executable, "train.py", "6"], tmp_path)
    res = run([sys.executable, "-m", "depyf", "run", "--dump-dir", "dump", "train.py", "6"], tmp_path)
    assert res.returncode == 0, res.stderr[-3000:]
    assert res.stdout == plain.stdout                   # same results, same output
    dump = tmp_path / "dump"
    assert "report: %s" % (dump / "index.html") in res.stderr
    names = sorted(os.listdir(dump))
    assert "full_code_for_toy_example.py" in names
    assert any(n.startswith("__transformed_code_0_for_toy_example") for n in names)
    for path in glob.glob(str(dump / "*.py")):
        compile(open(path).read(), path, "exec")         # every dumped file is valid Python

    dom, console = load((dump / "index.html").as_uri())
    assert console == [], console
    assert "toy_example" in dom and "report/toy_example.html" in dom
    page = dump / "report" / "toy_example.html"
    dom, console = load(page.as_uri())
    assert console == [], console
    for section in ("Graph breaks (1)", "Cache entry 0", "Your code", "Transformed code (decompiled)",
                    "Guards (", "Graphs and kernels", "if b.sum() &lt; 0:"):
        assert section in dom, section
    for link in re.findall(r'href="([^"#]+)"', dom):
        assert os.path.exists(os.path.normpath(os.path.join(page.parent, link))), link


def _autorun_installed():
    return os.path.exists(os.path.join(sysconfig.get_paths()["purelib"], "depyf_autorun.pth"))


@pytest.mark.skipif(not _autorun_installed(),
                    reason="depyf_autorun.pth is not in site-packages (depyf is imported from "
                           "a source tree, not installed: scripts/test.sh installs it)")
def test_dump_dir_variable_without_depyf_in_the_command(tmp_path):
    (tmp_path / "train.py").write_text(SCRIPT)
    res = run([sys.executable, "train.py", "3"], tmp_path, {"DEPYF_DUMP_DIR": str(tmp_path / "d")})
    assert res.returncode == 0, res.stderr[-3000:]
    assert os.path.exists(tmp_path / "d" / "full_code_for_toy_example.py")
    assert os.path.exists(tmp_path / "d" / "index.html")


DDP_SCRIPT = '''import os
import gc

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(8, 16)
        self.b = torch.nn.Linear(16, 4)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = torch.compile(DDP(Net()), backend="aot_eager")
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(2):
        x = torch.randn(4, 8) + rank
        loss = model(x).pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
    print("rank %d loss %.6f" % (rank, float(loss)))
    # DDP's reducer holds the process group: freed after destroy_process_group,
    # it tears gloo down while holding the GIL and can deadlock with gloo's own
    # thread (seen in torch 2.13 with and without depyf). Free it first.
    del model, opt, loss
    gc.collect()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''


def test_torchrun_two_ranks(tmp_path):
    torchrun = os.path.join(os.path.dirname(sys.executable), "torchrun")
    if not os.path.exists(torchrun):
        pytest.skip("no torchrun beside %s" % sys.executable)
    (tmp_path / "ddp.py").write_text(DDP_SCRIPT)
    res = run([torchrun, "--nproc_per_node", "2", "--master_port", "29517", "-m", "depyf", "run",
               "--dump-dir", "dump", "ddp.py"], tmp_path, {"OMP_NUM_THREADS": "1"}, timeout=300)
    assert res.returncode == 0, (res.stdout + res.stderr)[-4000:]
    assert "rank 0 loss" in res.stdout and "rank 1 loss" in res.stdout
    dump = tmp_path / "dump"
    assert sorted(n for n in os.listdir(dump) if n.startswith("rank_")) == ["rank_0", "rank_1"]
    for rank in ("rank_0", "rank_1"):
        files = os.listdir(dump / rank)
        assert any(f.startswith("full_code_for_") for f in files), (rank, files)
        assert any(f.endswith(".aot_forward_graph.py") for f in files), (rank, files)
        assert any(f.endswith(".aot_backward_graph.py") for f in files), (rank, files)
        assert "index.html" in files
    from depyf.cli import main
    assert main(["report", str(dump)]) == 0
    dom, console = load((dump / "index.html").as_uri())
    assert console == []
    assert "Rank 0" in dom and "Rank 1" in dom
    assert "report/rank_0_" in dom and "report/rank_1_" in dom
