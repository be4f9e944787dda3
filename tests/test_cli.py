"""`depyf dis` on files of every installed version, and its error reporting."""
import os
import subprocess
import sys

import pytest

from depyf.cli import main
from depyf.verify.interpreters import find_interpreter, missing_reason

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE = "def greet(name):\n    return f'hello {name!r}'\n\nclass K:\n    def m(self):\n        return [x * 2 for x in range(3)]\n"


def compile_with(python, tmp_path, tag):
    src = tmp_path / ("m%s.py" % tag)
    src.write_text(SOURCE)
    out = tmp_path / ("m%s.pyc" % tag)
    subprocess.run([python, "-c", "import py_compile, sys; py_compile.compile(sys.argv[1], sys.argv[2], doraise=True)",
                    str(src), str(out)], check=True)
    return out


def need_python(version):
    """The interpreter of ``version``, or a skip printing where it was looked for."""
    python = find_interpreter(version)
    if python is None:
        reason = missing_reason(version)
        print(reason)
        pytest.skip(reason)
    return python


@pytest.mark.parametrize("version", ["3.8", "3.9", "3.10", "3.11", "3.12", "3.13", "3.14", "3.15"])
def test_dis_any_version(version, tmp_path, capsys):
    python = need_python(version)
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
    assert "bad.pyc" in err and "unknown magic" in err and "3.8-3.15" in err
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


# --------------------------------------------------------------------------
# depyf decompile


@pytest.mark.parametrize("version", ["3.8", "3.9", "3.10", "3.11", "3.12", "3.13"])
def test_decompile_one_file_any_version(version, tmp_path, capsys):
    python = need_python(version)
    pyc = compile_with(python, tmp_path, version.replace(".", ""))
    assert main(["decompile", "--verify", str(pyc)]) == 0
    captured = capsys.readouterr()
    assert "def greet(name):" in captured.out
    assert "return f'hello {name!r}'" in captured.out
    assert "return [x * 2 for x in range(3)]" in captured.out
    assert "verified 4/4 code objects identical" in captured.err \
        or "verified 5/5 code objects identical" in captured.err


@pytest.mark.parametrize("version", ["3.14", "3.15"])
def test_decompile_newest_versions(version, tmp_path, capsys):
    python = need_python(version)
    pyc = compile_with(python, tmp_path, version.replace(".", ""))
    assert main(["decompile", str(pyc)]) == 0
    out, err = capsys.readouterr()
    assert "def greet(name):" in out and "return [x * 2 for x in range(3)]" in out
    assert "unstructured fallback" not in out and " 0 fallback" in err and "Traceback" not in err


def test_decompile_folder_in_parallel(tmp_path, capsys):
    pythons = [(v, find_interpreter(v)) for v in ("3.8", "3.13")]
    pythons = [(v, p) for v, p in pythons if p is not None]
    if not pythons:
        pytest.skip("neither Python 3.8 nor 3.13 is installed under pyenv")
    cache = tmp_path / "pkg" / "__pycache__"
    cache.mkdir(parents=True)
    for version, python in pythons:
        tag = version.replace(".", "")
        pyc = compile_with(python, tmp_path, tag)
        pyc.rename(cache / ("m.cpython-%s.pyc" % tag))
    (tmp_path / "pkg" / "broken.pyc").write_bytes(b"\x55\x0d\r\n" + b"\0" * 8)
    out = tmp_path / "out"
    status = main(["decompile", str(tmp_path / "pkg"), "-o", str(out), "-j", "2"])
    err = capsys.readouterr().err
    assert status == 1                                 # one file was unreadable
    assert "broken.pyc" in err and "Traceback" not in err
    written = sorted(p.name for p in out.iterdir())
    if len(pythons) == 2:                              # one module, two caches: both kept
        assert written == ["m.cpython-313.py", "m.cpython-38.py"]
    else:
        assert written == ["m.py"]
    for path in out.iterdir():
        assert "def greet(name):" in path.read_text()
    assert "%d files" % (len(pythons) + 1) in err and "1 files unreadable" in err


@pytest.mark.host_decompiles
def test_decompile_single_file_to_output(tmp_path, capsys):
    pyc = tmp_path / "x.pyc"
    import importlib.util, marshal, struct
    pyc.write_bytes(importlib.util.MAGIC_NUMBER + struct.pack("<I", 0) + b"\0" * 8
                    + marshal.dumps(compile("y = 2\nif y:\n    print(y)\n", "x.py", "exec")))
    target = tmp_path / "x.py"
    assert main(["decompile", str(pyc), "-o", str(target)]) == 0
    assert capsys.readouterr().out == ""
    assert target.read_text() == "y = 2\nif y:\n    print(y)\n"


def _host_pyc(tmp_path, name="x"):
    """A .pyc of SOURCE written by this interpreter (validated in-process)."""
    import importlib.util, marshal, struct
    pyc = tmp_path / ("%s.pyc" % name)
    pyc.write_bytes(importlib.util.MAGIC_NUMBER + struct.pack("<I", 0) + b"\0" * 8
                    + marshal.dumps(compile(SOURCE, "%s.py" % name, "exec")))
    return pyc


@pytest.mark.host_decompiles
def test_decompile_prints_the_verdict_counts_on_stderr(tmp_path, capsys):
    pyc = _host_pyc(tmp_path)
    assert main(["decompile", str(pyc)]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("def greet(name):")        # stdout: the source alone
    objects = 4 if sys.version_info >= (3, 12) else 5         # (3.12+ inlines the listcomp)
    assert "x.pyc: %d code objects: %d identical, 0 equivalent, 0 fallback, 0 unverified" % (
        objects, objects) in captured.err
    assert main(["decompile", "--no-validate", str(pyc)]) == 0
    captured = capsys.readouterr()
    assert "identical" not in captured.err and "def greet(name):" in captured.out


@pytest.mark.host_decompiles
def test_decompile_folder_counts_per_file_and_in_total(tmp_path, capsys):
    folder = tmp_path / "pkg"
    folder.mkdir()
    _host_pyc(folder, "a")
    _host_pyc(folder, "b")
    assert main(["decompile", str(folder), "-o", str(tmp_path / "out")]) == 0
    err = capsys.readouterr().err
    assert err.count(" identical, 0 equivalent, 0 fallback, 0 unverified") == 3  # 2 files, total
    assert "a.pyc: " in err and "b.pyc: " in err and "; validated: " in err


def test_decompile_says_when_no_interpreter_can_check(tmp_path, capsys, monkeypatch):
    version = next((v for v in ("3.8", "3.9", "3.10", "3.12", "3.13")
                    if v != "%d.%d" % sys.version_info[:2] and find_interpreter(v)), None)
    if version is None:
        pytest.skip("no pyenv interpreter of another version")
    pyc = compile_with(find_interpreter(version), tmp_path, "other")
    from depyf.verify import interpreters
    monkeypatch.setattr(interpreters, "find_interpreter", lambda v: None)
    assert main(["decompile", str(pyc)]) == 0
    captured = capsys.readouterr()
    reason = "no Python %s to check against" % version
    assert captured.out.splitlines()[0].endswith("# depyf: unverified, " + reason)
    assert "unverified: " + reason in captured.err
    import re
    counts = re.search(r"(\d+) code objects: 0 identical, 0 equivalent, 0 fallback, (\d+) unverified",
                       captured.err)
    assert counts and counts.group(1) == counts.group(2) != "0", captured.err


def test_output_names_strip_cache_tags():
    from depyf.pyc_files import output_names
    items = [("a/__pycache__/m.cpython-38.pyc", "a"), ("a/sub/__pycache__/n.cpython-311.opt-1.pyc", "a"),
             ("a/old.pyc", "a")]
    names = output_names(items, "o")
    assert names == {"a/__pycache__/m.cpython-38.pyc": os.path.join("o", "m.py"),
                     "a/sub/__pycache__/n.cpython-311.opt-1.pyc": os.path.join("o", "sub", "n.opt-1.py"),
                     "a/old.pyc": os.path.join("o", "old.py")}


# --------------------------------------------------------------------------
# depyf run (the torch side is tested in test_dynamo_*.py)


def test_run_passes_arguments_and_exit_status(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("import sys\nprint('args', sys.argv[1:], __name__)\nsys.exit(3)\n")
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"))
    env.pop("DEPYF_DUMP_DIR", None)
    res = subprocess.run([sys.executable, "-m", "depyf", "run", "--dump-dir", str(tmp_path / "d"),
                          str(script), "a", "--b"], capture_output=True, text=True, env=env,
                         cwd=str(tmp_path))
    assert res.returncode == 3, res.stderr
    assert "args ['a', '--b'] __main__" in res.stdout
    assert "no dump written" in res.stderr


def test_run_module_and_failing_script(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "job.py").write_text("import sys\nprint('module', sys.argv)\nraise ValueError('bad')\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "src"), str(tmp_path)]))
    res = subprocess.run([sys.executable, "-m", "depyf", "run", "-m", "pkg.job", "x"],
                         capture_output=True, text=True, env=env, cwd=str(tmp_path))
    assert res.returncode == 1
    assert "module ['" in res.stdout and "'x']" in res.stdout
    assert "ValueError: bad" in res.stderr


def test_autorun_waits_for_torch_and_never_breaks_the_program(tmp_path):
    """The watcher fires on the program's own `import torch`; when dumping cannot
    start (here a fake torch without Dynamo), the program still runs to the end."""
    fake = tmp_path / "fake"
    (fake / "torch").mkdir(parents=True)
    (fake / "torch" / "__init__.py").write_text("VALUE = 42\n")
    code = ("import depyf.autorun as a, sys\n"
            "print(a.activate(sys.argv[1]) is not None, 'torch' in sys.modules)\n"
            "import torch\n"
            "print('result', torch.VALUE)\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(fake), os.path.join(ROOT, "src")]))
    res = subprocess.run([sys.executable, "-c", code, str(tmp_path / "d")], capture_output=True,
                         text=True, env=env)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split("\n")[:2] == ["True False", "result 42"]
    assert "could not start" in res.stderr       # one warning, from depyf or from prepare_debug


def test_rank_folders():
    from depyf.autorun import dump_dir_for_process
    assert dump_dir_for_process("d", {"RANK": "1", "WORLD_SIZE": "2"}) == os.path.join("d", "rank_1")
    assert dump_dir_for_process("d", {"RANK": "0"}) == os.path.join("d", "rank_0")
    assert dump_dir_for_process("d", {}) == "d"
