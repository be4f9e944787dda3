"""depyf.debug() pauses in the debugger, where breakpoints are set in the dumped files.

The published depyf's own check runs a toy script whose ``with depyf.debug():``
block pauses in pdb, feeds pdb a breakpoint in a dumped transformed code file
and ``c`` on stdin, and counts the stops pdb printed. Here the same flow is
run as a user would (relative dump directory and breakpoint paths, from the
script's folder) and every stop is checked: the pause lands in the script's
own frame, then each breakpoint, in the transformed code and in the graph,
stops where it was set, with the values of that point.

The pause itself (src/depyf/dynamo/pause.py) uses the standard
library only and is checked on every host version: where pdb stops, and that
``PYTHONBREAKPOINT`` and ``sys.breakpointhook`` are honoured.
"""
import os
import re
import subprocess
import sys
import textwrap

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(os.path.dirname(HERE), "src")

TOY = textwrap.dedent('''
    import torch
    import depyf

    @torch.compile(backend="eager")
    def toy_example(a, b):
        x = a / (torch.abs(a) + 1)
        if b.sum() < 0:
            b = b * -1
        return x * b

    def main():
        for _ in range(3):
            toy_example(torch.arange(4.0), -torch.ones(4))

    if __name__ == "__main__":
        with depyf.prepare_debug("./debug_dump"):
            main()
        with depyf.debug():
            main()                                   # the pause
        print("DONE")
''')


def _env(**extra):
    env = dict(os.environ)
    env["PYTHONPATH"] = SRC + os.pathsep + env.get("PYTHONPATH", "")
    env["PYTHONWARNINGS"] = "ignore"
    env.pop("PYTHONBREAKPOINT", None)
    env.update(extra)
    return env


def _run(python, script, commands, env, timeout=600):
    """Run ``script`` from its folder with ``commands`` on stdin (none: stdin is empty,
    so a pdb that was started anyway reads end of file and quits the program)."""
    stdin = "".join(c + "\n" for c in commands)
    return subprocess.run([python, str(script)], cwd=str(script.parent), input=stdin, env=env,
                          capture_output=True, text=True, timeout=timeout)


def _line_of(path, text):
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if text in line and not line.lstrip().startswith("#"):
                return number
    raise AssertionError("%r not in %s" % (text, path))


def _first_statement(path):
    """Line of the first statement inside the file's first ``def``."""
    with open(path, encoding="utf-8") as f:
        lines = [line.strip() for line in f]
    start = next(n for n, line in enumerate(lines) if line.startswith("def "))
    return next(n for n, line in enumerate(lines[start + 1:], start + 2) if line and not line.startswith("#"))


def _stop(path, line, function):
    """pdb's line for a stop at ``path:line`` in ``function``."""
    return re.compile(r"^> %s\(%d\)%s\(\)$" % (re.escape(str(path)), line, function), re.M)


@pytest.mark.torch
def test_pause_then_breakpoints_in_the_dumped_transformed_code_and_graph(tmp_path):
    pytest.importorskip("torch")
    script = tmp_path / "toy.py"
    script.write_text(TOY)
    # First run: the dump, with the pause turned off (nothing on stdin: a pause would quit).
    first = _run(sys.executable, script, [], _env(PYTHONBREAKPOINT="0"))
    assert first.returncode == 0 and "(Pdb)" not in first.stdout, first.stdout + first.stderr[-3000:]
    assert "DONE" in first.stdout
    dump = tmp_path / "debug_dump"
    transformed = "debug_dump/__transformed_code_0_for_toy_example.py"
    graph = "debug_dump/__compiled_fn_1.dynamo_graph.py"
    t_line = _first_statement(tmp_path / transformed)      # the line depyf's message suggests
    g_line = _line_of(tmp_path / graph, "torch.abs(")
    # Second run: the same names and lines are written again, and debug() pauses.
    commands = ["b %s:%d" % (transformed, t_line), "b %s:%d" % (graph, g_line),
                "c", "p a", "c", "p l_a_",
                "clear %s:%d" % (transformed, t_line), "clear %s:%d" % (graph, g_line), "c"]
    proc = _run(sys.executable, script, commands, _env())
    out = proc.stdout
    assert proc.returncode == 0, out + proc.stderr[-3000:]
    replies = out.split("(Pdb) ")
    transcript = "".join("(Pdb) %s\n%s" % (c, a) for c, a in zip([""] + commands, replies))

    # The pause: in the script's own frame, on the block's line, before it runs
    # (from 3.13 pdb.set_trace stops at the next instruction, CPython gh-118579: still on the with line).
    pause_line = _line_of(script, "main()                                   # the pause")
    with_line = _line_of(script, "with depyf.debug():")
    assert _stop(script, pause_line, "<module>").search(replies[0]) or (
        sys.version_info >= (3, 13) and _stop(script, with_line, "<module>").search(replies[0])), \
        transcript
    suggested = "\n    b %s:%d\n" % (tmp_path / transformed, t_line)
    assert "paused in the debugger" in proc.stderr and suggested in proc.stderr, proc.stderr[-2000:]
    assert "depyf.debug(pause=False)" in proc.stderr
    # The breakpoints, set by relative path, name the dumped files.
    t_path, g_path = tmp_path / transformed, tmp_path / graph
    assert replies[1].startswith("Breakpoint 1 at %s:%d" % (t_path, t_line)), transcript
    assert replies[2].startswith("Breakpoint 2 at %s:%d" % (g_path, g_line)), transcript
    # Hit in the order the code runs: the transformed code calls the graph.
    assert _stop(t_path, t_line, r"\w+").search(replies[3]), transcript
    assert replies[4].strip() == "tensor([0., 1., 2., 3.])", transcript
    assert _stop(g_path, g_line, "forward").search(replies[5]), transcript
    assert replies[6].strip() == "tensor([0., 1., 2., 3.])", transcript
    assert replies[7].startswith("Deleted breakpoint 1"), transcript
    assert replies[8].startswith("Deleted breakpoint 2"), transcript
    # Cleared and continued: the program runs to its end, no other stop.
    assert len(replies) == len(commands) + 1 and "DONE" in replies[-1], transcript
    # The published check counts pdb's stops (at least the pause and one breakpoint): three here.
    assert out.count("\n-> ") == 3, transcript


NO_PAUSE = textwrap.dedent('''
    import sys, warnings, torch, depyf

    def f(a):
        return (a + 1).relu()

    a = torch.arange(4.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with depyf.debug():                 # nothing dumped yet: nothing to break in, no pause
            print("RAN 1")
    print("WARNED", sum("nothing was dumped in this process" in str(w.message) for w in caught))
    with depyf.prepare_debug(sys.argv[1]):
        torch.compile(f, backend="eager")(a)
    with depyf.debug(pause=False):
        print("RAN 2")
''')


@pytest.mark.torch
def test_no_pause_without_a_dump_or_with_pause_false(tmp_path):
    """stdin is empty: a pdb started anyway would read end of file and quit the program."""
    pytest.importorskip("torch")
    script = tmp_path / "no_pause.py"
    script.write_text(NO_PAUSE)
    proc = subprocess.run([sys.executable, str(script), str(tmp_path / "dump")], input="", env=_env(),
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    assert "(Pdb)" not in proc.stdout and "paused" not in proc.stderr, proc.stdout + proc.stderr[-2000:]
    assert "RAN 1" in proc.stdout and "RAN 2" in proc.stdout, proc.stdout
    assert "WARNED 1" in proc.stdout, proc.stdout
    assert "breakpoints in %s are hit" % (tmp_path / "dump") in proc.stderr, proc.stderr[-2000:]


def test_pause_takes_true_or_false():
    import depyf
    with pytest.raises(TypeError, match=r"pause=\.\.\.\) takes True or False, not 'no'"):
        with depyf.debug(pause="no"):
            pass
    with pytest.raises(TypeError):
        depyf.debug(True)               # keyword only: debug(False) would not say what it turns off


# -- the pause on its own (standard library only, every host version) ---------------------

HELPER = textwrap.dedent('''
    import contextlib, inspect
    from depyf.dynamo.pause import caller_frame, stop_in

    @contextlib.contextmanager
    def block():
        stop_in(caller_frame(inspect.currentframe(), (__name__, "contextlib")), "PAUSED\\n")
        yield

    def hook(*args, **kwargs):              # a debugger named by PYTHONBREAKPOINT
        print("HOOK", sorted(kwargs))
''')

MAIN = textwrap.dedent('''
    import sys
    from helper import block

    def work():
        total = 0
        with block():                       # the with
            total = total + 1               # the body
            print("BODY", total)
        return total

    if sys.argv[1:] == ["ide"]:
        sys.breakpointhook = lambda *args, **kwargs: print("IDE HOOK")
    print("RESULT", work())
''')


def _pause_program(tmp_path, version, argv=(), **env):
    sys.path.insert(0, SRC)
    from depyf.verify.interpreters import find_interpreter
    python = find_interpreter(version)
    if python is None:
        pytest.skip("no Python %s installed" % version)
    (tmp_path / "helper.py").write_text(HELPER)
    script = tmp_path / "main.py"
    script.write_text(MAIN)
    return script, lambda commands: subprocess.run(
        [python, str(script)] + list(argv), cwd=str(tmp_path), input="".join(c + "\n" for c in commands),
        env=_env(**env), capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("version", ["3.10", "3.11", "3.12", "3.13"])
def test_pdb_stops_in_the_callers_frame(tmp_path, version):
    """Not in the context manager nor contextlib: in the function holding the
    ``with``, before its body runs (3.13's pdb stops on the ``with`` line, the
    others on the body's first line)."""
    script, run = _pause_program(tmp_path, version)
    proc = run(["p total", "c"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    replies = proc.stdout.split("(Pdb) ")
    lines = (_line_of(script, "# the with"), _line_of(script, "# the body"))
    assert any(_stop(script, line, "work").search(replies[0]) for line in lines), proc.stdout
    assert replies[1].strip() == "0", proc.stdout             # the body has not run yet
    assert "BODY 1" in replies[2] and "RESULT 1" in replies[2], proc.stdout
    assert proc.stderr.startswith("PAUSED\n"), proc.stderr


@pytest.mark.parametrize("version", ["3.10", "3.11", "3.12", "3.13"])
def test_pause_honours_the_breakpoint_hook(tmp_path, version):
    """PYTHONBREAKPOINT=0: no pause, no message; PYTHONBREAKPOINT=module.fn or
    an IDE's sys.breakpointhook: that debugger is called instead of pdb."""
    _, run = _pause_program(tmp_path, version, PYTHONBREAKPOINT="0")
    off = run([])
    assert off.returncode == 0 and "(Pdb)" not in off.stdout and off.stderr == "", off.stdout + off.stderr
    assert "RESULT 1" in off.stdout
    _, run = _pause_program(tmp_path, version, PYTHONBREAKPOINT="helper.hook")
    named = run([])
    assert named.returncode == 0 and "(Pdb)" not in named.stdout, named.stdout + named.stderr
    assert named.stdout.splitlines()[0] == "HOOK []" and "PAUSED" in named.stderr, named.stdout
    _, run = _pause_program(tmp_path, version, argv=["ide"])
    ide = run([])
    assert ide.returncode == 0 and ide.stdout.splitlines()[0] == "IDE HOOK", ide.stdout + ide.stderr
