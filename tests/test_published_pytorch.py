"""The published depyf's PyTorch scripts (its ``tests/test_pytorch``), as our own.

Each program in tests/published_programs/ does what one of those scripts
does, against this depyf, in a fresh process: it must end without a
traceback, its own checks (results against eager, in the program) must
hold, and the dump must hold what the test looks for. The scripts' file
listing comparison (``cmp_output.py``) is not reproduced: our dump names
differ from the published ones on purpose. (The wrapper script is
tests/test_optimization.py; ``test_debug.py`` is tested elsewhere.)
"""
import glob
import os
import subprocess
import sys

import pytest

pytest.importorskip("torch", reason="the published PyTorch scripts need torch (pip install torch==2.13.0)")
pytestmark = pytest.mark.torch

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(os.path.dirname(HERE), "src")
PROGRAMS = os.path.join(HERE, "published_programs")


def _env(**extra):
    env = dict(os.environ)
    env["PYTHONPATH"] = SRC + os.pathsep + env.get("PYTHONPATH", "")
    env["PYTHONBREAKPOINT"] = "0"           # debug() must never wait for input here
    env["TORCHINDUCTOR_COMPILE_THREADS"] = "1"      # no compile worker pool on a small machine
    for name in ("DEPYF_DUMP_DIR", "TORCH_LOGS", "RANK"):
        env.pop(name, None)
    env.update(extra)
    return env


def _start(program, cwd, *args, **env):
    return subprocess.Popen([sys.executable, os.path.join(PROGRAMS, program)] + [str(a) for a in args],
                            cwd=str(cwd), env=_env(**env), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _finish(proc, timeout=600):
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0 and "Traceback" not in err, out[-3000:] + err[-6000:]
    return out, err


def run(program, cwd, *args, **env):
    """Run ``program`` to its end; (stdout, stderr) of a clean run."""
    return _finish(_start(program, cwd, *args, **env))


def no_warnings(err):
    assert "DepyfWarning" not in err, err[-6000:]


def names(dump):
    return sorted(os.listdir(dump))


def all_python_compiles(dump):
    files = glob.glob(os.path.join(str(dump), "*.py"))
    assert files
    for path in files:
        with open(path) as f:
            compile(f.read(), path, "exec")


def test_multiprocessing_ranks_dump_into_one_directory(tmp_path):
    out, err = run("multiprocessing_ranks.py", tmp_path, tmp_path / "dump")
    assert sorted(out.split("\n"))[1:] == ["rank %d of 3 ok" % r for r in range(3)]
    no_warnings(err)
    dump = tmp_path / "dump"
    assert {"full_code_for_f.py", "__transformed_code_0_for_f.py"} <= set(names(dump))
    # the three ranks compiled the same code: one set of files, not three
    assert [n for n in names(dump) if n.startswith("__transformed_code_")] == ["__transformed_code_0_for_f.py"]
    all_python_compiles(dump)


def test_functions_with_no_graph(tmp_path):
    out, err = run("no_graph.py", tmp_path, tmp_path / "dump")
    assert out.split("\n") == ["Hello, world!", "2", ""]
    no_warnings(err)
    assert {"full_code_for_f.py", "full_code_for_g.py"} <= set(names(tmp_path / "dump"))
    all_python_compiles(tmp_path / "dump")


def test_export_of_a_module_under_a_very_long_name(tmp_path):
    out, err = run("export_long_name.py", tmp_path, tmp_path / "dump")
    assert out == "ok (1, 10, 8)\n"
    no_warnings(err)
    dump = tmp_path / "dump"
    assert "full_code_for_MyModel_forward.py" in names(dump)
    assert all(len(n) < 200 for n in names(dump)), names(dump)
    with open(dump / "full_code_for_MyModel_forward.py") as f:
        assert "a" * 1000 in f.read()         # the guards name the attribute
    all_python_compiles(dump)


def test_constants_no_literal_writes(tmp_path):
    out, err = run("irregular_constants.py", tmp_path, tmp_path / "dump")
    # the code the hook returned ran (len() called twice: checked in the program)
    assert out.split("\n") == ["(1, <class 'torch.nn.modules.module.Module'>, torch.int64)"] * 2 + [""]
    assert "full_code_for_f.py" in names(tmp_path / "dump")
    all_python_compiles(tmp_path / "dump")


def test_backward_in_a_compiled_function(tmp_path):
    # with Inductor's caches off the backward graph is recompiled at backward(),
    # while Dynamo runs fn's resume function: each run takes that path
    out, err = run("simple_graph.py", tmp_path, tmp_path / "dump",
                   TORCHINDUCTOR_FX_GRAPH_CACHE="0", TORCHINDUCTOR_AUTOGRAD_CACHE="0")
    assert out == "ok\n"
    no_warnings(err)
    dump = tmp_path / "dump"
    functions = sorted(n[len("full_code_for_"):-3] for n in names(dump) if n.startswith("full_code_for_"))
    # fn and the function Dynamo resumes it in after the graph break, nothing
    # of depyf's own (its hooks run while Inductor compiles the backward)
    assert functions[0] == "fn" and len(functions) == 2, functions
    assert functions[1].startswith("torch_dynamo_resume_in_fn_at_"), functions
    assert any(n.endswith(".inductor_backward_output_code.py") for n in names(dump)), names(dump)
    with open(dump / "full_code_for_fn.py") as f:
        assert "# Bytecode of the original function:" in f.read()        # log_bytecode=True
    all_python_compiles(dump)


def test_install_adds_decompiled_source_to_the_bytecode_log(tmp_path):
    out, err = run("logging_install.py", tmp_path, TORCH_LOGS="+bytecode")
    assert out == "ok\n"
    no_warnings(err)
    assert "DECOMPILED ORIGINAL SOURCE fn " in err and "def fn():" in err
    assert "DECOMPILED MODIFIED SOURCE fn " in err
    assert "DECOMPILED ORIGINAL SOURCE torch_dynamo_resume_in_fn_at_" in err
    # every function logged is the program's (none of depyf's own)
    records = [line for line in err.split("\n") if "DECOMPILED ORIGINAL SOURCE" in line]
    assert len(records) == 2 and all("logging_install.py" in line for line in records), records


def test_cell_variables_in_the_compiled_forward(tmp_path):
    out, err = run("cellvars.py", tmp_path, tmp_path / "dump")
    assert out == "ok\n"
    no_warnings(err)
    dump = tmp_path / "dump"
    assert "full_code_for_LinearModel_forward.py" in names(dump)
    with open(dump / "__transformed_code_0_for_LinearModel_forward.py") as f:
        assert "def __transformed_code_0_for_LinearModel_forward(self, x):" in f.read()
    all_python_compiles(dump)


def test_the_24_toy_configurations_three_processes_at_once(tmp_path):
    """spawn_tests.py's 24 configurations of test_pytorch.py, each run by three
    processes at once into the same directory: here each process runs all 24
    (one torch import each), the three side by side."""
    sys.path.insert(0, PROGRAMS)
    try:
        import toy_configs
    finally:
        sys.path.remove(PROGRAMS)
    procs = [_start("toy_configs.py", tmp_path, "depyf_output", "all") for _ in range(3)]
    results = [_finish(p) for p in procs]
    expected = [toy_configs.description(*c) for c in toy_configs.all_configs()]
    assert len(expected) == 24
    for out, err in results:
        assert out.split("\n") == ["ok " + d for d in expected] + [""]
        no_warnings(err)
        # each debug() names its configuration's files (and those of the last few before it)
        for name in expected:
            assert "breakpoints in %s are hit" % (tmp_path / "depyf_output" / name) in err, name
    root = tmp_path / "depyf_output"
    assert names(root) == sorted(expected)
    for (backend, grad, dynamic, kind), name in zip(toy_configs.all_configs(), expected):
        dump = root / name
        fn = "toy_function" if kind == "function" else "ToyModule_forward"
        assert "full_code_for_%s.py" % fn in names(dump), (name, names(dump))
        transformed = [n for n in names(dump) if n.startswith("__transformed_code_")]
        # a second input shape recompiles (dynamic); three processes share the names
        assert transformed == ["__transformed_code_%d_for_%s.py" % (k, fn) for k in range(1 + dynamic)], \
            (name, transformed)
        if backend == "inductor":
            assert any("inductor" in n and n.endswith("output_code.py") for n in names(dump)), names(dump)
        all_python_compiles(dump)
