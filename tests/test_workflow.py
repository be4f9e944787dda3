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


def run(args, cwd, env_extra=None):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"))
    env.pop("DEPYF_DUMP_DIR", None)
    env.update(env_extra or {})
    return subprocess.run(args, cwd=str(cwd), env=env, capture_output=True, text=True, timeout=600)


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
                    reason="depyf_autorun.pth is not in site-packages (an editable install; "
                           "scripts/test.sh makes a regular one)")
def test_dump_dir_variable_without_depyf_in_the_command(tmp_path):
    (tmp_path / "train.py").write_text(SCRIPT)
    res = run([sys.executable, "train.py", "3"], tmp_path, {"DEPYF_DUMP_DIR": str(tmp_path / "d")})
    assert res.returncode == 0, res.stderr[-3000:]
    assert os.path.exists(tmp_path / "d" / "full_code_for_toy_example.py")
    assert os.path.exists(tmp_path / "d" / "index.html")
