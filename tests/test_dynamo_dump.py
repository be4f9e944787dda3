"""depyf.prepare_debug on real torch.compile programs (tests/dynamo_programs.py).

The programs run in fresh processes (torch state would leak between them):
one process runs them all, each between torch._dynamo.reset() calls; the
stable-name and two-process checks need processes of their own.
"""
import glob
import json
import os
import re
import runpy
import subprocess
import sys
import time

import pytest

# (this module's globals hold the class, not the collections module: see
# test_a_module_dynamo_installs_by_id_is_imported_under_a_stable_name)
from collections import OrderedDict as OD

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(os.path.dirname(HERE), "src")
PROGRAMS = os.path.join(HERE, "dynamo_programs.py")
FAILURE_STUB = "depyf could not decompile"

NAMES = ["toy_example", "toy_example_aot", "mlp_train", "graph_breaks", "recompiles", "constants",
         "side_effects", "module_state", "closures", "module_hooks", "attention", "grad_mode_break",
         "wrapped_forward", "inductor_small"]
SPECIAL = ["toy_example_broken", "toy_example_old_torch", "toy_example_log_bytecode"]
KNOWN_STUBS = set()
FALLBACK_MARKER = "depyf: unstructured fallback"
# Functions of the dumps that may still come out of the fallback, with why:
# program -> (pattern of the def's name, reason). None now: a graph break
# inside a with block, whose resume function enters the block again and jumps
# into the middle of the original one, is structured too
# (tests/test_dynamo_resume_functions.py).
FALLBACK_ALLOWED = {}


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = SRC + os.pathsep + env.get("PYTHONPATH", "")
    env["PYTHONWARNINGS"] = "ignore"
    return env


def _run_programs(root, names):
    proc = subprocess.run([sys.executable, PROGRAMS, str(root)] + names, env=_env(),
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = {}
    for line in proc.stdout.splitlines():
        if line.startswith("{"):
            data = json.loads(line)
            results[data["name"]] = data
    return results


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    pytest.importorskip("torch")
    root = tmp_path_factory.mktemp("dumps")
    return _run_programs(root, NAMES + SPECIAL)


def _metas(dump):
    metas = []
    for path in sorted(glob.glob(os.path.join(dump, "__meta_for_*.json"))):
        with open(path) as f:
            metas.append(json.load(f))
    return metas


def _read(dump, name):
    with open(os.path.join(dump, name), encoding="utf-8") as f:
        return f.read()


@pytest.mark.torch
def test_import_depyf_does_not_import_torch():
    code = "import sys, depyf; depyf.prepare_debug; assert 'torch' not in sys.modules, 'torch imported'"
    subprocess.run([sys.executable, "-c", code], env=_env(), check=True, timeout=60)


@pytest.mark.torch
@pytest.mark.parametrize("name", NAMES)
def test_program_dump(runs, name):
    run = runs[name]
    dump = run["dump"]
    assert run["same"] in (True, None), "results differ with prepare_debug"
    assert run["hooks_left"] == [], "hooks left after prepare_debug exited"
    assert [w for w in run["warnings"] if not (name in KNOWN_STUBS and "failure stub" in w)] == []
    # Every dumped .py is valid Python.
    files = sorted(glob.glob(os.path.join(dump, "*.py")))
    assert files
    for path in files:
        with open(path, encoding="utf-8") as f:
            compile(f.read(), path, "exec", dont_inherit=True)
    # ...and runs: full code files and graphs define what they show (Inductor's
    # output code is left out: importing it compiles its C++ kernels).
    for path in files:
        name = os.path.basename(path)
        if name.startswith("full_code_for_") or (name.startswith("__compiled_fn_") and "inductor" not in name):
            runpy.run_path(path, run_name="depyf_dump_check")
    # Every frame Dynamo compiled has its entry, transformed code and guards.
    metas = _metas(dump)
    entries = [(m, e) for m in metas for e in m["entries"]]
    assert len(entries) == len(run["compiled"])
    assert sorted(m["co_name"] for m, e in entries) == sorted(run["compiled"])
    for meta, entry in entries:
        assert os.path.exists(os.path.join(dump, meta["full_code"]))
        transformed = _read(dump, entry["transformed_code"])
        assert "def %s(" % entry["transformed_name"] in transformed
        assert "_uuid" not in transformed and not re.search(r"__compiled_fn_\d+_[0-9a-f]{8}_", transformed)
        assert entry["guard"] == meta["full_code"]     # the file that holds the guard function
        full = _read(dump, meta["full_code"])
        assert "def %s(L, G)" % entry["guard_name"] in full
        assert "def __original_%s(" % meta["function"] in full
        assert "def %s(" % meta["function"] in full     # the dispatch
        for graph_file in entry["graph_files"]:
            assert os.path.exists(os.path.join(dump, graph_file))


@pytest.mark.torch
@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.xfail(
    strict=True, reason="code object constant used as a value")) if n in KNOWN_STUBS else n
    for n in NAMES])
def test_no_failure_stub(runs, name):
    dump = runs[name]["dump"]
    for path in glob.glob(os.path.join(dump, "*.py")):
        with open(path, encoding="utf-8") as f:
            assert FAILURE_STUB not in f.read(), path


@pytest.mark.torch
@pytest.mark.parametrize("name", NAMES)
def test_no_fallback(runs, name):
    """Transformed code, resume functions and originals are structured Python:
    no dispatch loop from the decompiler's fallback."""
    dump = runs[name]["dump"]
    allowed, why = FALLBACK_ALLOWED.get(name, ("$^", "no function of %s may" % name))
    for path in sorted(glob.glob(os.path.join(dump, "*.py"))):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for found in re.finditer(re.escape(FALLBACK_MARKER), text):
            owner = re.findall(r"^def (\w+)\(", text[:found.start()], re.M)     # (the top-level def)
            assert owner and re.match(allowed, owner[-1]), \
                "(allowed: %s)\n%s\n%s" % (why, path, text[found.start() - 2000:][:3000])


@pytest.mark.torch
def test_artifacts(runs):
    def files(name):
        return sorted(os.path.basename(p) for p in glob.glob(os.path.join(runs[name]["dump"], "*")))
    assert any(f.endswith(".aot_backward_graph.py") for f in files("mlp_train"))
    assert any(f.endswith(".aot_forward_graph.py") for f in files("attention"))
    assert any(f.endswith(".dynamo_graph.py") for f in files("toy_example"))
    inductor = files("inductor_small")
    for kind in ("inductor_forward_output_code", "inductor_backward_output_code",
                 "inductor_forward_post_grad_graph", "aot_joint_graph"):
        assert any(f.endswith(".%s.py" % kind) for f in inductor), (kind, inductor)
    # Graph names are torch's counters without the random part.
    for name in NAMES:
        for f in files(name):
            assert not re.search(r"[0-9a-f]{8}_[0-9a-f]{4}_", f), f


@pytest.mark.torch
def test_every_entry_has_its_compile_time(runs):
    for name in ("toy_example", "recompiles", "graph_breaks"):
        for meta in _metas(runs[name]["dump"]):
            for entry in meta["entries"]:
                seconds = entry["compile_seconds"]
                assert isinstance(seconds, float) and 0 < seconds < 60, (name, meta["function"], entry)


@pytest.mark.torch
def test_graph_break_and_recompile_reasons(runs):
    breaks = [b for m in _metas(runs["graph_breaks"]["dump"]) for b in m["graph_breaks"]]
    text = "\n".join(breaks)
    assert "dynamo_programs.py" in text
    assert 'print("depyf test: a graph break")' in text
    assert "b.sum().item() > 0" in text
    assert "_untraceable" in text
    recompiles = [r for m in _metas(runs["recompiles"]["dump"]) for r in m["recompiles"]]
    text = "\n".join(recompiles)
    assert "size mismatch" in text and "dtype mismatch" in text, text
    assert "def f(x):" in text and "dynamo_programs.py" in text
    full = [_read(runs["recompiles"]["dump"], m["full_code"]) for m in _metas(runs["recompiles"]["dump"])]
    assert any("# Recompiles:" in f for f in full)


@pytest.mark.torch
def test_failures_become_one_warning_per_function(runs):
    run = runs["toy_example_broken"]
    assert run["same"] is True
    warned = run["warnings"]
    assert warned and all("No space left" in w for w in warned)
    functions = [w for w in warned if "toy_example" in w]
    assert len(functions) == len(set(run["compiled"])), warned


@pytest.mark.torch
def test_older_torch_without_bytecode_hook(runs):
    run = runs["toy_example_old_torch"]
    assert run["same"] is True
    assert len(run["warnings"]) == 1 and "register_bytecode_hook" in run["warnings"][0]
    dumped = os.listdir(run["dump"])
    assert any(f.endswith(".dynamo_graph.py") for f in dumped), dumped


def _snapshot(dump):
    """File name -> content with what may change between runs (addresses, compile
    times) masked."""
    out = {}
    for path in glob.glob(os.path.join(dump, "*")):
        if os.path.isdir(path):
            continue
        with open(path, encoding="utf-8") as f:
            text = re.sub(r"0x[0-9a-f]+|\b\d{9,}\b", "<addr>", f.read())
        out[os.path.basename(path)] = re.sub(r'"compile_seconds": [0-9.e-]+', '"compile_seconds": <time>', text)
    return out


@pytest.mark.torch
def test_same_script_same_names_and_contents(runs, tmp_path):
    first = _snapshot(runs["toy_example"]["dump"])
    again = _run_programs(os.path.dirname(runs["toy_example"]["dump"]), ["toy_example"])
    second = _snapshot(again["toy_example"]["dump"])
    assert sorted(first) == sorted(second)
    for name in first:
        assert first[name] == second[name], name


@pytest.mark.torch
def test_two_processes_one_dump_dir(tmp_path):
    pytest.importorskip("torch")
    proc = subprocess.run([sys.executable, PROGRAMS, str(tmp_path), "--spawn"], env=_env(),
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    metas = {m["co_name"]: m for m in _metas(str(tmp_path))}
    assert set(metas) == {"_rank_fn_0", "_rank_fn_1", "_shared_fn"}
    for meta in metas.values():
        assert os.path.exists(tmp_path / meta["full_code"])
        for entry in meta["entries"]:
            assert os.path.exists(tmp_path / entry["transformed_code"])
            assert os.path.exists(tmp_path / entry["guard"])
            for graph in entry["graph_files"]:
                assert os.path.exists(tmp_path / graph)
    assert not glob.glob(str(tmp_path / ".tmp-*"))
    for path in glob.glob(str(tmp_path / "*.py")):
        with open(path) as f:
            compile(f.read(), path, "exec")


@pytest.mark.torch
def test_log_bytecode(runs):
    run = runs["toy_example_log_bytecode"]
    assert run["same"] is True and run["warnings"] == []
    for meta in _metas(run["dump"]):
        assert "# Bytecode of the original function:" in _read(run["dump"], meta["full_code"])
        for entry in meta["entries"]:
            text = _read(run["dump"], entry["transformed_code"])
            assert "# Bytecode Dynamo made:" in text and "RETURN_VALUE" in text
            compile(text, entry["transformed_code"], "exec")


# Dynamo runs the decompiled transformed code (compiled from the dumped file)
# instead of its own, for every cache entry: same results means the decompiled
# code does what Dynamo's does. Both forms: the readable one the dump shows,
# and the faithful one (prepare_debug(faithful=True)).
BEHAVES = ["toy_example", "toy_example_aot", "mlp_train", "graph_breaks", "recompiles", "constants",
           "side_effects", "module_state", "closures", "module_hooks", "attention", "grad_mode_break",
           "wrapped_forward"]
DECOMPILED_FAULTS = {}


def _decompiled(root, form):
    proc = subprocess.run([sys.executable, PROGRAMS, str(root), "--decompiled"]
                          + (["--faithful"] if form == "faithful" else []) + BEHAVES,
                          env=_env(), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    runs = {d["name"]: d for d in map(json.loads, (l for l in proc.stdout.splitlines() if l.startswith("{")))}
    for name, run in runs.items():
        run["dump"] = os.path.join(str(root), name)
    return runs


@pytest.fixture(scope="module")
def decompiled_runs(tmp_path_factory):
    pytest.importorskip("torch")
    return {form: _decompiled(tmp_path_factory.mktemp("decompiled_" + form), form)
            for form in ("readable", "faithful")}


@pytest.mark.torch
@pytest.mark.parametrize("form", ["readable", "faithful"])
@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.xfail(
    strict=True, reason=DECOMPILED_FAULTS[n])) if n in DECOMPILED_FAULTS else n for n in BEHAVES])
def test_decompiled_code_behaves_like_dynamos(decompiled_runs, name, form):
    run = decompiled_runs[form][name]
    assert run["error"] is None and run["same"], run["error"]
    assert run["swapped"] >= 1, "no cache entry ran depyf's code"


@pytest.mark.torch
def test_a_wrapped_forward_reads_its_parameters_through_args(runs):
    """A forward behind a ``*args`` decorator (Hugging Face's pattern) reaches
    its module as ``args[0]``: its parameters are read where the graph call
    takes them, as a plain forward's are through ``self``, with no shared
    dict reads left in names of their own."""
    [path] = glob.glob(os.path.join(runs["wrapped_forward"]["dump"], "__transformed_code_0_for_*.py"))
    with open(path) as f:
        text = f.read()
    call = text[text.index("graph_out_0 = "):text.index("return graph_out_0")]
    assert "args[0]._modules['inner']._modules['0']._parameters['weight']" in call, text
    assert "args[0]._modules['head']._parameters['bias']" in call, text
    assert not re.search(r"^\s+\w+ = args\[0\]", text, re.M), text


TOY_READABLE = """
def __transformed_code_0_for_toy_example__toy_example(a, b):
%s
    graph_out_0 = __compiled_fn_1(a, b)
    if graph_out_0[0]:
        return __resume_at_102_2([], [], b, graph_out_0[1])
    return __resume_at_112_3([], [], b, graph_out_0[1])
"""
# Dynamo's bookkeeping before the graph call, by torch release (2.15 records
# only while the profiler runs); other releases: BOOKKEEPING
BOOKKEEPING = """\
    __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_exit(__import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_enter())"""
BOOKKEEPING_BY_RELEASE = {(2, 15): """\
    value = None
    if __import_torch_dot_autograd_dot_profiler._is_profiler_enabled:
        value = __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_enter()
    if value is not None:
        __import_torch_dot__dynamo_dot_utils.record_pregraph_bytecode_exit(value)"""}


@pytest.mark.torch
def test_dump_shows_the_readable_form_and_the_faithful_one_on_request(runs, decompiled_runs):
    """The toy example's transformed code in the dump is exactly the few lines
    a person would write; prepare_debug(faithful=True) writes every instruction."""
    name = "__transformed_code_0_for_toy_example__toy_example.py"
    readable = _read(runs["toy_example"]["dump"], name)
    body = readable[readable.index("def "):]
    import torch
    from depyf.dynamo.torch_compat import release
    expected = (TOY_READABLE % BOOKKEEPING_BY_RELEASE.get(release(torch.__version__), BOOKKEEPING)).strip()
    # Dynamo's counters differ from run to run, and the resume functions'
    # offsets from one Python to another: the names are taken in order
    made = r"__compiled_fn_\d+|__resume_at_\d+_\d+"
    names = iter(re.findall(made, body))
    expected = re.sub(made, lambda _: next(names, "?"), expected)
    assert body.strip() == expected, body
    faithful = _read(decompiled_runs["faithful"]["toy_example"]["dump"], name)
    # No source compiles to Dynamo's bytecode (the graph function waits on the
    # stack across the bookkeeping calls): the faithful form names what waits
    # (stack_N), and validation finds it equivalent up to those temporaries
    # (depyf.verify.effect_trace), so it is no fallback.
    assert "depyf: unstructured fallback" not in faithful, faithful
    assert re.search(r"\bstack_\d+ = ", faithful) and ".extend(" in faithful, faithful
    # both forms run in place of Dynamo's code (test_decompiled_code_behaves_like_dynamos)


UNCOMPILABLE = '''
import sys, warnings, torch, depyf
from depyf.dynamo import fullcode
real = fullcode.decompiled_as
def broken(code, name, readable=None, lines=None):
    text, compiled = real(code, name, readable, lines)
    # the transformed code only: a constant printed as a repr that is no source
    if "transformed" in name:
        return text.replace("return", "return <object at 0x1> or", 1), False
    return text, compiled
fullcode.decompiled_as = broken
def f(x):
    return x.sin() + 1
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with depyf.prepare_debug(sys.argv[1]):
        got = torch.compile(f, backend="eager")(torch.ones(3))
assert torch.equal(got, torch.ones(3).sin() + 1)
print("WARNINGS", [str(w.message) for w in caught if "depyf" in str(w.message)])
'''


@pytest.mark.torch
def test_transformed_text_that_does_not_compile_becomes_a_stand_in(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(UNCOMPILABLE)
    dump = tmp_path / "dump"
    done = subprocess.run([sys.executable, str(script), str(dump)], capture_output=True, text=True,
                          env=_env(), timeout=300)
    assert done.returncode == 0, done.stderr
    assert "the transformed code of" in done.stdout and "does not compile" in done.stdout, done.stdout
    [path] = glob.glob(str(dump / "__transformed_code_0_for_f.py"))
    text = open(path).read()
    compile(text, path, "exec")
    assert FAILURE_STUB in text and "<object at 0x1>" in text


@pytest.mark.torch
def test_a_compiles_files_are_on_disk_when_its_code_runs(tmp_path):
    # Written once the compile's guards are and a quiet spell has passed, not at
    # the block's end: a program that runs on for hours shows its dump as it goes.
    torch = pytest.importorskip("torch")
    import depyf
    from depyf.dynamo.quiet import QUIET
    seen = []
    fn = "test_a_compiles_files_are_on_disk_when_its_code_runs__f"

    def listing(wanted):
        """The folder once ``wanted(names)`` holds, or after ten quiet spells."""
        end = time.monotonic() + 10 * QUIET
        while True:
            names = set(os.listdir(tmp_path))
            if wanted(names) or time.monotonic() > end:
                return names
            time.sleep(0.02)

    @torch._dynamo.disable
    def look():
        # at once: the transformed code and the graph; the rest after the quiet spell
        seen.append(set(os.listdir(tmp_path)))
        seen.append(listing(lambda names: "full_code_for_%s.py" % fn in names))

    def f(x):
        y = x + 1
        look()
        return y * 2
    torch._dynamo.reset()
    try:
        with depyf.prepare_debug(str(tmp_path)):
            torch.compile(f, backend="eager")(torch.ones(2))
            seen.append(listing(lambda names: any(
                n.startswith("full_code_for_") and "_resume_in_f_at_" in n for n in names)))
            full = _read(str(tmp_path), "full_code_for_%s.py" % fn)
    finally:
        torch._dynamo.reset()
    at_once, first, after = seen
    assert {"__transformed_code_0_for_%s.py" % fn, "__compiled_fn_1.dynamo_graph.py"} <= at_once, at_once
    assert {"full_code_for_%s.py" % fn, "__meta_for_%s.json" % fn} <= first, first
    resumed = [n for n in after - first if n.startswith("full_code_for_") and "_resume_in_f_at_" in n]
    assert resumed and "__compiled_fn_2.dynamo_graph.py" in after, sorted(after)
    assert "def __guard_0_for_%s(" % fn in full


@pytest.mark.torch
def test_a_module_dynamo_installs_by_id_is_imported_under_a_stable_name(tmp_path):
    # The OrderedDict Dynamo rebuilds is made through the collections module,
    # which this frame's globals lack under that name: Dynamo installs it as
    # ___module_collections_<id>_c<n>, a name no dumped file would define.
    torch = pytest.importorskip("torch")
    import depyf

    def f(x):
        return OD(a=x + 1)
    torch._dynamo.reset()
    try:
        with depyf.prepare_debug(str(tmp_path)):
            torch.compile(f, backend="eager")(torch.ones(2))
    finally:
        torch._dynamo.reset()
    [transformed] = glob.glob(str(tmp_path / "__transformed_code_0_for_*f.py"))
    [full] = glob.glob(str(tmp_path / "full_code_for_*f.py"))
    for path in (transformed, full):
        text = _read(str(tmp_path), os.path.basename(path))
        assert "___module_" not in text, text
        assert "__import_collections = importlib.import_module('collections')" in text, text
    # the file's function, run on its own, builds what f returns
    namespace = {"OD": OD, "__compiled_fn_1": lambda x: (x + 1,)}
    exec(compile(_read(str(tmp_path), os.path.basename(transformed)), transformed, "exec"), namespace)
    [name] = [n for n in namespace if n.startswith("__transformed_code_0_for_")]
    made = namespace[name](torch.ones(2))
    assert type(made) is OD and list(made) == ["a"] and torch.equal(made["a"], torch.full((2,), 2.0))


@pytest.mark.torch
def test_guards_outlive_a_reset_after_a_later_compile(tmp_path):
    # A compile takes hold of the guard managers of earlier ones; the exit
    # renders them, though a reset took their cache entries meanwhile.
    torch = pytest.importorskip("torch")
    import depyf

    def first(x):
        return x + 1

    def second(x):
        return x * 2
    torch._dynamo.reset()
    try:
        with depyf.prepare_debug(str(tmp_path)):
            torch.compile(first, backend="eager")(torch.ones(2))
            torch.compile(second, backend="eager")(torch.ones(2))
            torch._dynamo.reset()
    finally:
        torch._dynamo.reset()
    [full] = glob.glob(str(tmp_path / "full_code_for_*first.py"))
    text = _read(str(tmp_path), os.path.basename(full))
    assert "check_tensor(L['x']" in text and "guards unknown" not in text, text


@pytest.mark.torch
def test_guard_functions_of_full_code_agree_with_dynamo(tmp_path):
    # The guards are dumped once, in full_code_for_<fn>.py: the function
    # defined there gives the live guard manager's verdict.
    torch = pytest.importorskip("torch")
    import depyf
    from torch._dynamo.eval_frame import _debug_get_cache_entry_list

    def scaled(x, n):
        return x * n
    torch._dynamo.reset()
    try:
        with depyf.prepare_debug(str(tmp_path)):
            compiled = torch.compile(scaled, backend="eager")
            compiled(torch.ones(2), 2)
            compiled(torch.ones(2), 3)
        entries = _debug_get_cache_entry_list(scaled.__code__)
        assert len(entries) == 2
        [meta] = _metas(str(tmp_path))
        namespace = runpy.run_path(str(tmp_path / meta["full_code"]))
        variants = [{"x": torch.ones(2), "n": 2}, {"x": torch.ones(2), "n": 3},
                    {"x": torch.ones(3), "n": 2}, {"x": torch.ones(2, dtype=torch.float64), "n": 3},
                    {"x": torch.ones(2, requires_grad=True), "n": 2}, {"x": torch.ones(2), "n": 4}]
        verdicts = []
        for item in meta["entries"]:
            assert item["guard"] == meta["full_code"]
            [live] = [e for e in entries if "%s/%s" % (e.compile_id.frame_id, e.compile_id.frame_compile_id)
                      == item["compile_id"]]
            guard = namespace[item["guard_name"]]
            for L in variants:
                expected = live.guard_manager.check(L)
                assert guard(L, scaled.__globals__) == expected, (item["guard_name"], L)
                verdicts.append(expected)
        assert any(verdicts) and not all(verdicts)
    finally:
        torch._dynamo.reset()
    assert not glob.glob(str(tmp_path / "__guard_*"))
