"""`depyf dis` on files of every installed version, and its error reporting."""
import os
import subprocess
import sys

import pytest

from depyf.cli import main
from depyf.verify.interpreters import find_interpreter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE = "def greet(name):\n    return f'hello {name!r}'\n\nclass K:\n    def m(self):\n        return [x * 2 for x in range(3)]\n"


def compile_with(python, tmp_path, tag):
    src = tmp_path / ("m%s.py" % tag)
    src.write_text(SOURCE)
    out = tmp_path / ("m%s.pyc" % tag)
    subprocess.run([python, "-c", "import py_compile, sys; py_compile.compile(sys.argv[1], sys.argv[2], doraise=True)",
                    str(src), str(out)], check=True)
    return out


@pytest.mark.parametrize("version", ["3.8", "3.9", "3.10", "3.11", "3.12", "3.13"])
def test_dis_any_version(version, tmp_path, capsys):
    python = find_interpreter(version)
    if python is None:
        pytest.skip("Python %s is not installed under pyenv" % version)
    pyc = compile_with(python, tmp_path, version.replace(".", ""))
    assert main(["dis", str(pyc)]) == 0
    out = capsys.readouterr().out
    assert "Python %s bytecode" % version in out
    newer = tuple(map(int, version.split(".")))
    assert "Disassembly of <module> (" in out and "Disassembly of greet (" in out
    # co_qualname exists from 3.11; comprehensions are inlined from 3.12.
    assert ("Disassembly of K.m (" if newer >= (3, 11) else "Disassembly of m (") in out
    assert ("<listcomp>" in out) == (newer < (3, 12))
    assert "'hello '" in out


def test_dis_reports_bad_file(tmp_path, capsys):
    bad = tmp_path / "bad.pyc"
    bad.write_bytes(b"\x00\x00\r\n" + b"\0" * 12 + b"c")
    assert main(["dis", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "bad.pyc" in err and "unknown magic" in err
    assert "Traceback" not in err


def test_python_dash_m(tmp_path):
    pyc = tmp_path / "x.pyc"
    import importlib.util, marshal, struct
    pyc.write_bytes(importlib.util.MAGIC_NUMBER + struct.pack("<I", 0) + b"\0" * 8
                    + marshal.dumps(compile("y = 2", "x.py", "exec")))
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"))
    res = subprocess.run([sys.executable, "-m", "depyf", "dis", str(pyc)], capture_output=True,
                         text=True, env=env)
    assert res.returncode == 0, res.stderr
    assert "STORE_NAME" in res.stdout and "(y)" in res.stdout
