"""depyf.debug(): a breakpoint set in a dumped file is hit, shown by driving pdb from stdin.

Each test runs tests/dynamo_debug_program.py twice in fresh processes: once to
dump (the test reads the dump to choose file and line, as a user would), then
again with pdb commands on stdin (the names are stable, so the same files and
lines are written again). The transcript must show each stop at the file and
line of its breakpoint and the value of a local there, and the program's
result must not change.
"""
import json
import os
import re
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(os.path.dirname(HERE), "src")
PROGRAM = os.path.join(HERE, "dynamo_debug_program.py")

A = "tensor([0., 1., 2., 3.])"                      # the program's a = arange(4)
X = "tensor([0.0000, 0.5000, 0.6667, 0.7500])"     # x = a / (|a| + 1)
B = "tensor([-1., -1., -1., -1.])"                 # b = -ones(4)


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = SRC + os.pathsep + env.get("PYTHONPATH", "")
    env["PYTHONWARNINGS"] = "ignore"
    return env


def _run(dump, backend, commands=None):
    args = [sys.executable, PROGRAM, str(dump), backend] + (["--pdb"] if commands else [])
    stdin = "".join(c + "\n" for c in commands) if commands else None
    proc = subprocess.run(args, input=stdin, env=_env(), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc


def _meta(dump, function):
    with open(os.path.join(dump, "__meta_for_%s.json" % function)) as f:
        return json.load(f)


def _resume_meta(dump):
    names = [n for n in os.listdir(dump) if n.startswith("__meta_for_") and "resume" in n]
    assert len(names) == 1, names
    with open(os.path.join(dump, names[0])) as f:
        return json.load(f)


def _line(path, text):
    """(absolute path, first line number holding ``text``): where a user would break."""
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if text in line and not line.lstrip().startswith("#"):
                return os.path.abspath(path), number
    raise AssertionError("%r not in %s" % (text, path))


def _graph_file(dump, meta, kind):
    files = [f for f in meta["entries"][0]["graph_files"] if f.endswith("." + kind + ".py")]
    assert files, meta["entries"][0]["graph_files"]
    return os.path.join(dump, files[0])


def _drive(dump, backend, stops):
    """Run under pdb: a breakpoint per (path, line, expression, value) in
    ``stops``, in the order they are hit; each is continued to, checked, and
    its expression printed. Returns the transcript."""
    commands = ["b %s:%d" % (path, line) for path, line, _, _ in stops]
    for _, _, expression, _ in stops:
        commands += ["c", "p " + expression]
    commands += ["c"]
    proc = _run(dump, backend, commands)
    answers = proc.stdout.split("(Pdb) ")
    transcript = "".join("(Pdb) %s\n%s" % (c, a) for c, a in zip(commands, answers[1:]))
    replies = dict(enumerate(answers[1:]))
    for k, (path, line, _, _) in enumerate(stops):
        assert replies[k].startswith("Breakpoint %d at %s:%d" % (k + 1, path, line)), transcript
    at = len(stops)
    for path, line, expression, value in stops:
        stop, printed = replies[at], replies[at + 1]
        assert re.match(r"> %s\(%d\)\w+\(\)\n-> " % (re.escape(path), line), stop), transcript
        assert printed.strip() == value, transcript
        at += 2
    assert "SAME RESULT: True" in proc.stdout, transcript
    return transcript


@pytest.mark.torch
def test_breakpoints_eager(tmp_path):
    """Transformed code of the frame and of its resume function, and the
    Dynamo graph's forward (backend "eager")."""
    pytest.importorskip("torch")
    dump = tmp_path / "dump"
    _run(dump, "eager")
    main = _meta(dump, "toy")
    resume = _resume_meta(dump)
    transformed = _line(os.path.join(dump, main["entries"][0]["transformed_code"]), "__compiled_fn")
    graph = _line(_graph_file(dump, main, "dynamo_graph"), "torch.abs(")
    resumed = _line(os.path.join(dump, resume["entries"][0]["transformed_code"]), "__compiled_fn")
    transcript = _drive(dump, "eager", [transformed + ("a", A), graph + ("l_a_", A), resumed + ("x", X)])
    print(transcript)


@pytest.mark.torch
def test_breakpoints_aot_eager(tmp_path):
    """AOTAutograd's graph is the forward that runs under "aot_eager"."""
    pytest.importorskip("torch")
    dump = tmp_path / "dump"
    _run(dump, "aot_eager")
    main = _meta(dump, "toy")
    transformed = _line(os.path.join(dump, main["entries"][0]["transformed_code"]), "__compiled_fn")
    graph = _line(_graph_file(dump, main, "aot_inference_graph"), "torch.ops.aten.abs.default(")
    print(_drive(dump, "aot_eager", [transformed + ("b", B), graph + ("arg0_1", A)]))


@pytest.mark.torch
def test_breakpoint_inductor_call(tmp_path):
    """Inductor's wrapper call(), loaded from its cache, stops in the dumped copy."""
    pytest.importorskip("torch")
    dump = tmp_path / "dump"
    _run(dump, "inductor")
    main = _meta(dump, "small")
    path = _graph_file(dump, main, "inductor_output_code")
    _, cleared = _line(path, "args.clear()")
    with open(path, encoding="utf-8") as f:
        after = f.read().splitlines()[cleared]          # the statement after the arguments are taken
    call = _line(path, after.strip())
    assert call[1] == cleared + 1
    print(_drive(dump, "inductor", [call + ("arg0_1", A)]))
