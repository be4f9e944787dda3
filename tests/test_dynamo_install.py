"""depyf.install()/uninstall(): decompiled source in Dynamo's bytecode log.

Each case runs a small program in a fresh process (torch's logging set-up is
global) and reads the log torch writes to stderr.
"""
import os
import re
import subprocess
import sys
import textwrap

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(os.path.dirname(HERE), "src")

PROGRAM = textwrap.dedent('''
    import sys, torch, depyf

    def toy(a, b):
        x = a / (torch.abs(a) + 1)
        return x * b

    def later(a):
        return a.cos() - 1

    if sys.argv[1] == "set_logs":
        torch._logging.set_logs(bytecode=True)
    if sys.argv[2:] == ["old_torch"]:
        # an older torch: no bytecode hook API
        del torch._dynamo.convert_frame.register_bytecode_hook
    depyf.install()
    depyf.install()                      # twice: still one record per compile
    first = torch.compile(toy, backend="eager")(torch.ones(3), torch.ones(3))
    print("PHASE uninstalled", file=sys.stderr, flush=True)
    depyf.uninstall()
    second = torch.compile(later, backend="eager")(torch.ones(3))
    print("RESULTS", first.tolist(), second.tolist())
''')


def _run(tmp_path, how, *extra):
    script = tmp_path / "program.py"
    script.write_text(PROGRAM)
    env = dict(os.environ)
    env["PYTHONPATH"] = SRC + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("TORCH_LOGS", None)
    if how == "env":
        env["TORCH_LOGS"] = "+bytecode"
    proc = subprocess.run([sys.executable, str(script), how] + list(extra), env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "RESULTS [0.5, 0.5, 0.5] [" in proc.stdout, proc.stdout
    before, _, after = _text(proc.stderr).partition("PHASE uninstalled")
    assert after, proc.stderr[-3000:]
    return before, after


def _text(log):
    """The log without torch's per-line prefix (``V1130 12:00:00.0 pid file:line] [0/0] [__bytecode] ``)."""
    marker = "[__bytecode] "
    return "".join(line.split(marker, 1)[1] if marker in line else line
                   for line in log.splitlines(True))


@pytest.mark.torch
def test_install_adds_decompiled_source(tmp_path):
    pytest.importorskip("torch")
    before, after = _run(tmp_path, "env")
    # torch's own records are still there
    assert "ORIGINAL BYTECODE toy" in before and "MODIFIED BYTECODE toy" in before
    # ... followed by ours: the original function and the transformed code as Python
    assert before.count("DECOMPILED ORIGINAL SOURCE toy ") == 1, before[-3000:]
    assert before.count("DECOMPILED MODIFIED SOURCE toy ") == 1, before[-3000:]
    original = before.split("DECOMPILED ORIGINAL SOURCE toy ", 1)[1]
    assert "def toy(a, b):" in original and "x = a / (torch.abs(a) + 1)" in original
    modified = before.split("DECOMPILED MODIFIED SOURCE toy ", 1)[1]
    assert "def __transformed_code_for_toy(a, b):" in modified and "__compiled_fn_" in modified
    # the readable form, as in the dump: the graph's call in a line of its own
    record = modified.split("\n\n", 1)[0] if "\n\n" in modified else modified
    assert "graph_out_0 = __compiled_fn_" in record and "return graph_out_0[0]" in record, record
    assert not re.search(r"\b(stack|tmp)_\d+\b", record), record
    assert "depyf could not decompile" not in before
    # uninstall(): the next compile is logged by torch alone
    assert "MODIFIED BYTECODE later" in after
    assert "DECOMPILED" not in after


@pytest.mark.torch
def test_install_without_the_hook_api(tmp_path):
    """An older torch without register_bytecode_hook: one clear message, the
    program and torch's own log go on (the log switched on by set_logs here)."""
    pytest.importorskip("torch")
    before, after = _run(tmp_path, "set_logs", "old_torch")
    assert before.count("register_bytecode_hook") == 1, before[-3000:]
    assert "bytecode log stays without decompiled source" in before
    assert "MODIFIED BYTECODE toy" in before and "DECOMPILED" not in before
    assert "MODIFIED BYTECODE later" in after
