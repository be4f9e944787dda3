"""`depyf report`: the HTML report of a dump, from meta files alone (no torch
needed), checked in a real headless browser."""
import json
import os
import re

import pytest

from browser import load
from depyf.cli import main
from depyf.dynamo.report import blamed_names, write_report

USER = '''import torch


def scale(x, n):
    y = x * n
    if n > 2:
        print("big")
    return y + 1
'''


def make_dump(folder, user_file, name="scale"):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ("__transformed_code_0_for_%s.py" % name)).write_text(
        "def __transformed_code_0_for_%s(x, n):\n    return __compiled_fn_1(x, n)\n" % name)
    (folder / "__compiled_fn_1.dynamo_graph.py").write_text("def forward(self, L_x_):\n    return (L_x_ * 2,)\n")
    (folder / ("full_code_for_%s.py" % name)).write_text(
        "# everything\ndef __guard_0_for_%s(L, G):\n    return True\n" % name)
    meta = {
        "function": name, "qualname": name, "filename": str(user_file), "firstlineno": 4,
        "full_code": "full_code_for_%s.py" % name,
        "graph_breaks": ["Graph break in user code at %s:7\nGraph Break Reason: print" % user_file],
        "recompiles": ["triggered by the following guard failure(s):\n    - 0/0: L['n'] == 2"],
        "entries": [
            {"index": 0, "compile_id": "0/0", "transformed_code": "__transformed_code_0_for_%s.py" % name,
             "guard": "full_code_for_%s.py" % name, "guard_count": 2, "compile_seconds": 0.5,
             "guard_lines": ["check_tensor(L['x'], torch.float32, size=[3])", "L['n'] == 2"],
             "graph_files": ["__compiled_fn_1.dynamo_graph.py", "missing_kernel.py"]},
            {"index": 1, "compile_id": "0/1", "transformed_code": "__transformed_code_0_for_%s.py" % name,
             "guard_count": 1, "guard_lines": ["L['n'] == 3"], "graph_files": []},
        ],
    }
    (folder / ("__meta_for_%s.json" % name)).write_text(json.dumps(meta))


def test_blamed_names():
    blamed = blamed_names(["triggered by the following guard failure(s):\n"
                            "    - 0/0: tensor 'a' size mismatch at index 0. expected 10, actual 5\n"
                            "    - 0/1: L['n'] == 3"])
    assert blamed == {"0/0": ["L['a']"], "0/1": ["L['n']"]}


def test_report_pages(tmp_path):
    user = tmp_path / "train.py"
    user.write_text(USER)
    make_dump(tmp_path / "dump", user)
    index = write_report(str(tmp_path / "dump"))
    text = open(index).read()
    assert "<a href='report/scale.html'>scale</a>" in text
    row = re.search(r"<tr><td><a href='report/scale.html'>.*?</tr>", text).group(0)
    cells = re.findall(r"<td[^>]*>(.*?)</td>", row)
    assert cells[1:] == ["train.py:4", "2", "1", "1", "3", "0.50 s"]
    page = open(tmp_path / "dump" / "report" / "scale.html").read()
    assert "<span class=\"nf\">scale</span>" in page                 # the user's code, highlighted
    assert "__transformed_code_0_for_scale" in page
    assert "<li class='failed'>L[&#x27;n&#x27;] == 2</li>" in page        # the guard the recompile blames
    assert "<li>L[&#x27;n&#x27;] == 3</li>" in page
    assert "print(&quot;big&quot;)" in page                                 # the graph break's user line
    assert "missing_kernel.py (missing)" in page


def test_report_cli_errors(tmp_path, capsys):
    assert main(["report", str(tmp_path / "nope")]) == 2
    assert "is not a folder" in capsys.readouterr().err


def test_report_in_browser_with_ranks(tmp_path):
    user = tmp_path / "train.py"
    user.write_text(USER)
    make_dump(tmp_path / "dump" / "rank_0", user)
    make_dump(tmp_path / "dump" / "rank_1", user)
    out = tmp_path / "site"
    assert main(["report", str(tmp_path / "dump"), "-o", str(out)]) == 0
    dom, console = load((out / "index.html").as_uri())
    assert console == []
    assert "Rank 0" in dom and "Rank 1" in dom
    assert "report/rank_0_scale.html" in dom and "report/rank_1_scale.html" in dom
    dom, console = load((out / "report" / "rank_1_scale.html").as_uri())
    assert console == []
    for section in ("Graph breaks (1)", "Recompiles (1)", "Cache entry 0", "Cache entry 1",
                    "Your code", "Transformed code (decompiled)", "Guards (2)", "Graphs and kernels"):
        assert section in dom, section
    for link in re.findall(r'href="([^"#]+)"', dom):
        target = os.path.normpath(os.path.join(out / "report", link))
        assert os.path.exists(target), link


def test_graph_break_traceback_keeps_only_user_frames():
    import depyf
    from depyf.dynamo.report import user_frames
    cli = os.path.join(os.path.dirname(depyf.__file__), "cli.py")
    text = ("Graph break in user code at toy.py:6\nUser code traceback:\n"
            '  File "<frozen runpy>", line 198, in _run_module_as_main\n'
            '  File "%s", line 136, in _cmd_run\n    runpy.run_path(args.target[0])\n' % cli +
            '  File "toy.py", line 13, in <module>\n    compiled(x)\n'
            '  File "toy.py", line 6, in toy_example\n    if b.sum() < 0:\n       ^^^^^^^\n')
    assert user_frames(text).splitlines() == [
        "Graph break in user code at toy.py:6", "User code traceback:",
        '  File "toy.py", line 13, in <module>', "    compiled(x)",
        '  File "toy.py", line 6, in toy_example', "    if b.sum() < 0:", "       ^^^^^^^"]
