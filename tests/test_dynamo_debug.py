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
import textwrap

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
    env.pop("PYTHONBREAKPOINT", None)       # debug() pauses in pdb, which reads the commands
    return env


def _run_script(script, text, dump, env):
    """Write ``text`` to ``script`` and run it with the dump directory as its argument."""
    script.write_text(text)
    return subprocess.run([sys.executable, str(script), str(dump)], env=env,
                          capture_output=True, text=True, timeout=600)


def _run(dump, backend, commands=None, extra=()):
    args = [sys.executable, PROGRAM, str(dump), backend] + (["--pdb"] if commands else []) + list(extra)
    stdin = "".join(c + "\n" for c in commands) if commands else None
    proc = subprocess.run(args, input=stdin, env=_env(), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc


def _meta(dump, function):
    with open(os.path.join(dump, "__meta_for_%s.json" % function)) as f:
        return json.load(f)


def _resume_meta(dump, function):
    names = [n for n in os.listdir(dump)
             if n.startswith("__meta_for_torch_dynamo_resume_in_%s_at_" % function)]
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
    assert "depyf.debug(): breakpoints in %s are hit" % dump in proc.stderr, proc.stderr[-2000:]
    return transcript


@pytest.mark.torch
def test_breakpoints_eager_and_aot_eager(tmp_path):
    """Backend "eager": the transformed code of the frame and of its resume
    function, and the Dynamo graph's forward. Backend "aot_eager": the
    transformed code and AOTAutograd's graph, the forward that runs there
    (torch 2.9's aot_eager runs no graph code: it interprets the graph)."""
    pytest.importorskip("torch")
    sys.path.insert(0, SRC)
    from depyf.dynamo.torch_compat import aot_eager_interprets_graphs
    dump = tmp_path / "dump"
    _run(dump, "eager,aot_eager")
    main, aot = _meta(dump, "toy"), _meta(dump, "toy_aot")
    resume = _resume_meta(dump, "toy")
    transformed = _line(os.path.join(dump, main["entries"][0]["transformed_code"]), "__compiled_fn")
    graph = _line(_graph_file(dump, main, "dynamo_graph"), "torch.abs(")
    resumed = _line(os.path.join(dump, resume["entries"][0]["transformed_code"]), "__compiled_fn")
    aot_transformed = _line(os.path.join(dump, aot["entries"][0]["transformed_code"]), "__compiled_fn")
    aot_graph = _line(_graph_file(dump, aot, "aot_inference_graph"), "torch.ops.aten.abs.default(")
    stops = [transformed + ("a", A), graph + ("l_a_", A), resumed + ("x", X), aot_transformed + ("b", B)]
    if not aot_eager_interprets_graphs():
        stops.append(aot_graph + ("arg0_1", A))
    print(_drive(dump, "eager,aot_eager", stops))


@pytest.mark.torch
def test_breakpoints_on_the_readable_statements_of_the_transformed_code(tmp_path):
    """The dumped transformed code is the readable form: a breakpoint on each
    of its statements (the graph's call, the branch on its output, each
    branch's call of its resume function) stops there, with the values of
    that point, on both sides of the branch."""
    pytest.importorskip("torch")
    dump = tmp_path / "dump"
    _run(dump, "eager", extra=["--both-branches"])
    path = os.path.join(dump, _meta(dump, "toy")["entries"][0]["transformed_code"])
    with open(path, encoding="utf-8") as f:
        text = f.read()
    assert "stack_" not in text and "tmp_" not in text, text
    graph_call = _line(path, "graph_out_0 = __compiled_fn")
    branch = _line(path, "if graph_out_0[0]:")
    resumes = [(path, n) for n, line in enumerate(text.splitlines(), 1)
               if line.strip().startswith("return __resume_at_")]
    assert len(resumes) == 2, text
    points = [graph_call, branch] + resumes
    commands = ["b %s:%d" % p for p in points]
    # first call: b < 0, the first branch; second call: -b, the other one
    hits = [(graph_call, "a", A), (branch, "graph_out_0[0]", "tensor(True)"), (resumes[0], "b", B),
            (graph_call, "b", "tensor([1., 1., 1., 1.])"), (branch, "graph_out_0[0]", "tensor(False)"),
            (resumes[1], "b", "tensor([1., 1., 1., 1.])")]
    for _ in hits:
        commands += ["c", "p %s" % _[1]]
    commands.append("c")
    proc = _run(dump, "eager", commands, extra=["--both-branches"])
    answers = proc.stdout.split("(Pdb) ")[1:]
    transcript = "".join("(Pdb) %s\n%s" % (c, a) for c, a in zip(commands, answers))
    at = len(points)
    for (where, expression, value) in hits:
        stop, printed = answers[at], answers[at + 1]
        assert re.match(r"> %s\(%d\)\w+\(\)\n-> " % (re.escape(where[0]), where[1]), stop), transcript
        assert printed.strip() == value, transcript
        at += 2
    assert "SAME RESULT: True" in proc.stdout, transcript


@pytest.mark.torch
def test_breakpoints_around_a_graph_break_inside_a_with_block(tmp_path):
    """The transformed code leaves the with block around the call it could not
    trace with a try/finally: breakpoints on the graph's call, the call in the
    try, the block's exit in the finally (which runs on the normal way out,
    a copy of the handler's) and the resume call each stop once, in order."""
    pytest.importorskip("torch")
    dump = tmp_path / "dump"
    _run(dump, "with_block")
    path = os.path.join(dump, _meta(dump, "in_block")["entries"][0]["transformed_code"])
    graph_call = _line(path, "graph_out_0 = __compiled_fn")
    protected = _line(path, "'depyf test: a graph break in a with block'")
    leaving = _line(path, ".__exit__(None, None, None)")
    resume = _line(path, "return __resume_at_")
    assert graph_call[1] < protected[1] < leaving[1] < resume[1]
    print(_drive(dump, "with_block", [graph_call + ("a", A), protected + ("a", A), leaving + ("a", A),
                                      resume + ("a", A)]))


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


# -- the line table retargeting on its own (standard library only, every host version) --

LINEMAP_CHECK = textwrap.dedent('''
    import sys
    sys.path.insert(0, sys.argv[1])
    from depyf.dynamo import linemap
    assert "torch" not in sys.modules
    SOURCE = """
    def f(a, b):
        x = a + 1
        for i in range(3):
            x = x * b + i
        try:
            y = [x for x in range(a)]
        except Exception:
            y = None
        return x, y
    """
    live = compile(SOURCE, "<live>", "exec")
    # the same function further down another file, one blank line between statements
    shown = "# header\\n" * 300 + SOURCE.replace("\\n", "\\n\\n")
    dumped = linemap.find_code(compile(shown, "/dump/f.py", "exec"), "f")
    code = linemap.retarget(linemap.find_code(live, "f"), dumped, "/dump/f.py")
    namespace = {}
    exec(live, namespace)
    f = namespace["f"]
    before = f(3, 2)
    f.__code__ = code
    statements = sorted(n for n, line in enumerate(shown.splitlines(), 1) if line.strip().startswith(
        ("x =", "for ", "y =", "try", "except", "return")))
    lines = sorted(set(line for _, _, line in code.co_lines() if line is not None))
    assert code.co_filename == "/dump/f.py" and code.co_code == live.co_consts[0].co_code
    assert set(statements) - set(lines) <= {statements[3]}, (statements, lines)   # 'try' has no code
    assert f(3, 2) == before
    print("OK", sys.version_info[:2])
''')


@pytest.mark.parametrize("version", ["3.10", "3.11", "3.12", "3.13", "3.14", "3.15"])
def test_linemap_retarget_keeps_code_and_moves_lines(tmp_path, version):
    """Same bytecode, the dumped file's name and lines, on each host version
    (3.10 has its own line table format)."""
    sys.path.insert(0, SRC)
    from depyf.verify.interpreters import find_interpreter
    python = find_interpreter(version)
    if python is None:
        pytest.skip("no Python %s installed" % version)
    script = tmp_path / "check.py"
    script.write_text(LINEMAP_CHECK)
    proc = subprocess.run([python, str(script), SRC],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "OK" in proc.stdout, proc.stderr


def test_alignment_blocks_match_and_keep_order():
    import random
    from depyf.dynamo.linemap import matching_blocks
    rng = random.Random(5)
    for _ in range(300):
        a = [rng.choice("abcdef") for _ in range(rng.randrange(0, 30))]
        b = list(a)
        for _ in range(rng.randrange(0, 4)):      # a few local edits, as the decompiler makes
            at = rng.randrange(0, len(b) + 1)
            if b and rng.random() < 0.5:
                del b[min(at, len(b) - 1)]
            else:
                b.insert(at, rng.choice("abcxyz"))
        blocks = matching_blocks(a, b)
        last_i = last_j = 0
        for i, j, n in blocks:
            assert n > 0 and i >= last_i and j >= last_j
            assert a[i:i + n] == b[j:j + n]
            last_i, last_j = i + n, j + n
        if a == b:
            assert blocks == ([(0, 0, len(a))] if a else [])


def test_a_moved_first_statement_stops_on_entry():
    # The readable form moved `value = None` first and renamed Dynamo's
    # temporary: the function's entry carries that first line, where a
    # breakpoint on it is expected to stop.
    from depyf.dynamo import linemap
    live = linemap.find_code(compile(
        "def f(a):\n    t = a.x\n    tmp_1 = None\n    return t, tmp_1\n", "<live>", "exec"), "f")
    dumped = linemap.find_code(compile(
        "def f(a):\n    value = None\n    w = a.x\n    return w, value\n", "/d/f.py", "exec"), "f")
    code = linemap.retarget(live, dumped, "/d/f.py")
    lines = [line for _, _, line in code.co_lines() if line is not None and line > 1]
    assert lines[0] == 2 and 3 in lines and 4 in lines, lines


def test_alignment_takes_matched_lines():
    """Unmatched instructions keep the line before them."""
    sys.path.insert(0, SRC)
    from depyf.dynamo.linemap import matched_lines
    live = [(0, 2, "A", 1), (2, 4, "X", 1), (4, 6, "B", 1)]
    dumped = [(0, 2, "A", 10), (2, 4, "B", 12)]
    assert matched_lines(live, dumped, 9) == [10, 10, 12]


def test_alignment_looks_past_what_only_one_side_has():
    """Dynamo builds a resume function's argument lists with stack shuffles
    (SWAP) where the dumped text stores temporaries (stack_2): neither can
    match, and aligning around them put ``del graph_out_0`` a line late."""
    sys.path.insert(0, SRC)
    from depyf.dynamo.linemap import matched_lines

    def spans(keys_and_lines):
        return [(2 * i, 2 * i + 2, key, line) for i, (key, line) in enumerate(keys_and_lines)]
    empty, graph_out = ("BUILD_LIST", 0), ("LOAD_FAST", "graph_out_0")
    live = spans((key, None) for key in [
        empty, graph_out, ("LOAD_CONST", "0"), "BINARY_SUBSCR", empty, empty, ("SWAP", 2),
        empty, ("LIST_EXTEND", 2), "POP_TOP", ("BUILD_LIST", 1), ("SWAP", 2),
        ("DELETE_FAST", "graph_out_0"), ("SWAP", 3), "POP_TOP", "POP_TOP", "RETURN_VALUE"])
    dumped = spans([
        (empty, 16), ("POP_TOP", 16),                                         # []
        (graph_out, 17), (("LOAD_CONST", "0"), 17), ("BINARY_SUBSCR", 17),
        (("STORE_FAST", "stack_3"), 17),                                      # stack_3 = graph_out_0[0]
        (empty, 18), (empty, 18), (("LIST_EXTEND", 1), 18), (("BUILD_LIST", 1), 18),
        (("STORE_FAST", "stack_2"), 18),                                      # stack_2 = [[*[]]]
        (("DELETE_FAST", "graph_out_0"), 19),                                 # del graph_out_0
        (empty, 20), ("POP_TOP", 20),                                         # []
        (("LOAD_FAST", "stack_3"), 21), ("RETURN_VALUE", 21)])                # return stack_3
    lines = matched_lines(live, dumped, 16)
    assert lines[12] == 19, lines                    # the del
    assert lines == [16, 17, 17, 17, 18, 18, 18, 18, 18, 18, 18, 18, 19, 19, 19, 20, 21]


def test_alignment_keeps_each_branch_to_its_own_lines():
    """Both sides branch alike (the readable form keeps Dynamo's control
    flow): each branch's instructions take lines of its own branch only, even
    where the other branch's text shares more of them."""
    sys.path.insert(0, SRC)
    from depyf.dynamo.linemap import matched_lines

    def spans(keys_and_lines):
        return [(2 * i, 2 * i + 2, key, line) for i, (key, line) in enumerate(keys_and_lines)]
    x, ret, branch = ("BUILD_LIST", 0), "RETURN_VALUE", "POP_JUMP_IF_FALSE"
    live = spans((k, None) for k in [("LOAD_FAST", "g"), branch, x, x, x, ret, x, ret])
    dumped = spans([(("LOAD_FAST", "g"), 11), (branch, 11), (x, 12), (ret, 12),
                    (x, 13), (x, 13), (x, 13), (ret, 13)])
    assert matched_lines(live, dumped, 10) == [11, 11, 12, 12, 12, 12, 13, 13]


def test_alignment_of_branches_after_an_if_whose_live_code_jumps_over_an_else():
    """torch 2.15's code ends each side of ``if profiling: ...`` with a constant
    the join pops (a jump over the other side's); the dumped ``if`` has no else
    and so no jump. The runs still pair up once such jumps end none of them."""
    sys.path.insert(0, SRC)
    from depyf.dynamo.linemap import matched_lines

    def spans(keys_and_lines):
        return [(2 * i, 2 * i + 2, key, line) for i, (key, line) in enumerate(keys_and_lines)]
    x, ret, branch, none = ("BUILD_LIST", 0), "RETURN_VALUE", "POP_JUMP_IF_FALSE", ("LOAD_CONST", "None")
    enter = ("LOAD_ATTR", "enter")
    live = spans((k, None) for k in [
        ("LOAD_FAST", "p"), branch, enter, "CALL", none, "JUMP_FORWARD", none, "POP_TOP",
        ("LOAD_FAST", "g"), branch, x, x, x, ret, x, ret])
    dumped = spans([(("LOAD_FAST", "p"), 11), (branch, 11), (enter, 12), ("CALL", 12), ("POP_TOP", 12),
                    (("LOAD_FAST", "g"), 13), (branch, 13), (x, 14), (ret, 14),
                    (x, 15), (x, 15), (x, 15), (ret, 15)])
    assert matched_lines(live, dumped, 10) == [11, 11, 12, 12, 12, 12, 12, 12, 13, 13, 14, 14, 14, 14, 15, 15]


def test_constants_without_source_are_keyed_by_type_not_repr():
    """Dynamo's code can load the module's globals as a constant: printing it
    for the alignment key cost milliseconds per load (the repr of every global)."""
    sys.path.insert(0, SRC)
    from depyf.dynamo.linemap import spans

    class Costly:
        def __repr__(self):
            raise AssertionError("repr asked of a constant no source holds")
    live = compile("def f(g):\n    return g('marker'), (1, 'a')\n", "<live>", "exec").co_consts[0]
    live = live.replace(co_consts=tuple(Costly() if c == "marker" else c for c in live.co_consts))
    keys = [key for _, _, key, _ in spans(live)]
    assert ("LOAD_CONST", "<Costly>") in keys and ("LOAD_CONST", "(1, 'a')") in keys, keys


SPANS_SAMPLE = textwrap.dedent('''
    def outer(a, b):
        cell = a
        def inner(x):
            return x < cell and x >= b or len(x) in (1, 2)
        big = [%s]
        return inner, big, a.real, print(f"{a!r:>4}")
''') % ", ".join(str(n) for n in range(300))       # EXTENDED_ARG for the list's constants


def test_spans_agree_with_the_decoder():
    """spans scans live code itself (no full decode): its spans cover the same
    bytes and lines as the decoder's ops, and two instructions share a key
    exactly when the decoder gives them the same name and argument."""
    sys.path.insert(0, SRC)
    from depyf.bytecode.decode import decode_ops
    from depyf.dynamo.linemap import spans, walk
    for code in walk(compile(SPANS_SAMPLE, "<sample>", "exec")):
        ours = spans(code)
        # (spans folds 3.13's TO_BOOL into the op it tests for, as a silent op)
        ops = [op for op in decode_ops(code) if op.name not in ("END", "TO_BOOL")]
        assert len(ours) == len(ops), code.co_name
        start = 0
        for (begin, end, _, line), op in zip(ours, ops):
            assert (begin, line) == (start, op.line) and begin <= op.offset < end, (code.co_name, op)
            start = end
        assert start == len(code.co_code)
        names = [(op.name, ("code", op.arg.name) if hasattr(op.arg, "name") else op.arg) for op in ops]
        jumps = [op.target is not None for op in ops]
        for i in range(len(ops)):
            for j in range(len(ops)):
                if not (jumps[i] or jumps[j]):
                    assert (ours[i][2] == ours[j][2]) == (names[i] == names[j]), (ops[i], ops[j])


# -- never break the user --------------------------------------------------------------

FAILING = textwrap.dedent('''
    import warnings, torch, depyf
    import depyf.dynamo.breakpoints as breakpoints
    from dynamo_debug_program import toy

    def boom(*args, **kwargs):
        raise RuntimeError("boom")

    # every retargeting fails, by the decompiler's line map or by aligning the file
    breakpoints.retarget = breakpoints.retarget_by_offsets = boom
    a, b = torch.arange(4.0), -torch.ones(4)
    plain = toy(a, b)
    printed, recompiled = torch.fx.GraphModule.print_readable, torch.fx.GraphModule.recompile
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with depyf.prepare_debug(__import__("sys").argv[1]):
            f = torch.compile(toy, backend="eager")
            results = [f(a, b) for _ in range(3)]
        with depyf.debug(pause=False):  # graphs are pointed at their files here
            results.append(f(a, b))
    from torch._dynamo.eval_frame import _debug_get_cache_entry_list
    entry = _debug_get_cache_entry_list(toy.__code__)[0]
    print("SAME", all(torch.equal(r, plain) for r in results))
    print("OWN CODE", entry.code.co_filename == toy.__code__.co_filename)
    print("RESTORED", torch.fx.GraphModule.print_readable is printed and torch.fx.GraphModule.recompile is recompiled)
    for w in caught:
        if "depyf" in str(w.message):
            print("WARNING", w.message)
''')


@pytest.mark.torch
def test_failure_keeps_dynamo_code_with_one_warning(tmp_path):
    pytest.importorskip("torch")
    env = _env()
    env["PYTHONPATH"] = HERE + os.pathsep + env["PYTHONPATH"]
    proc = _run_script(tmp_path / "failing.py", FAILING, tmp_path / "dump", env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    assert "SAME True" in out and "OWN CODE True" in out and "RESTORED True" in out, out
    warned = [line for line in out.splitlines() if line.startswith("WARNING")]
    # one per function (toy, its resume function) and per graph (two), each naming it
    assert len(warned) == 4 and all("boom" in w for w in warned), out
    assert len(set(warned)) == len(warned), out
    assert any(" of toy will not be hit" in w for w in warned) and any(" of __compiled_fn_1 " in w for w in warned), out


INSIDE = textwrap.dedent('''
    import os, sys, warnings, torch, depyf

    def f(a):
        return (a + 1).relu()

    def g(a):
        return a * 3

    hits = set()
    def tracer(frame, event, arg):
        if frame.f_code.co_filename.startswith(sys.argv[1]):
            hits.add(os.path.basename(frame.f_code.co_filename))
            return tracer
    a = torch.arange(4.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with depyf.prepare_debug(sys.argv[1]), depyf.debug(pause=False):
            sys.settrace(tracer)             # compiled and run inside debug(): stops at once
            torch.compile(f, backend="eager")(a)
            sys.settrace(None)
        with depyf.debug(pause=False):       # no dump open: a new compile is only reported
            torch.compile(g, backend="eager")(a)
    print("HITS", sorted(hits))
    for w in caught:
        if "depyf" in str(w.message):
            print("WARNING", w.message)
''')


@pytest.mark.torch
def test_compiled_inside_debug(tmp_path):
    pytest.importorskip("torch")
    dump = tmp_path / "dump"
    proc = _run_script(tmp_path / "inside.py", INSIDE, dump, _env())
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "HITS ['__compiled_fn_1.dynamo_graph.py', '__transformed_code_0_for_f.py']" in proc.stdout, proc.stdout
    warned = [line for line in proc.stdout.splitlines() if line.startswith("WARNING")]
    assert len(warned) == 1 and "compiled g anew outside prepare_debug" in warned[0], proc.stdout
