"""The strict round-trip harness itself (depyf.verify.compare_code / roundtrip / corpus).

* The identity "decompiler" (the original source fed back) must give 100%
  deep-equal on every construct case file, for every installed version that
  can compile it.
* Perturbed candidates must be reported not equal, with a diff that names
  the difference; a candidate that does not compile, or a decompiler that
  crashes, is a result, not an exception.
* One test per version runs the real ``depyf.decompile`` over the cases
  (every case file recompiles; identical bytecode is measured by tools/roundtrip.py).

Versions without a pyenv interpreter are skipped with the reason shown.
"""
from __future__ import annotations

import os
import sys
import textwrap

import pytest

from depyf.verify import compare_code
from test_fallback import exception_table
from depyf.verify.corpus import (case_files, corpus_modules, min_version, more_stdlib_modules,
                                 read_corpus_list, stdlib_modules)
from depyf.verify.interpreters import DECOMPILED_VERSIONS, find_interpreter, format_version
from depyf.verify.roundtrip import (IDENTITY, CorpusResult, ModuleResult, ObjectResult,
                                    format_table, get_session, run_corpus, verify)

#: (the versions depyf decompiles: the harness measures nothing else yet)
VERSIONS = [format_version(v) for v in DECOMPILED_VERSIONS]
HOST = sys.version_info[:2]


def need(version: str) -> str:
    """Skip (with the reason printed) when pyenv has no interpreter for ``version``."""
    if find_interpreter(version) is None:
        pytest.skip("no pyenv interpreter for Python %s" % version)
    return version


def need_at_least(minimum):
    """The installed versions >= ``minimum`` (a parametrize list; may be empty)."""
    return [v for v in VERSIONS if tuple(map(int, v.split("."))) >= minimum]


def compare(version, original, candidate):
    """Compare two dedented sources in the target."""
    cand = None if candidate is None else textwrap.dedent(candidate)
    return get_session(version).compare(textwrap.dedent(original), cand)


def by_path(result: ModuleResult):
    return {o.path: o for o in result.objects}


# --------------------------------------------------------------------------
# Identity: the harness agrees with itself


@pytest.mark.parametrize("version", VERSIONS)
def test_identity_cases_are_all_deep_equal(version):
    need(version)
    paths = case_files(version)
    assert paths, "no case files"
    corpus = run_corpus(version, paths, IDENTITY)
    bad = [r.format() for r in corpus.results if not r.ok]
    assert not bad, bad
    assert corpus.deep_percent == 100.0 and corpus.code_objects > 300


def test_case_files_cover_every_family():
    names = {os.path.basename(p)[:-3] for p in case_files()}
    assert {"imports", "classes", "functions", "closures", "lambdas", "comprehensions",
            "generators", "conditionals", "loops", "exceptions", "except_star", "with_stmt",
            "match_stmt", "expressions", "type_params", "module_level"} <= names
    minimums = {os.path.basename(p): min_version(p) for p in case_files()}
    assert minimums["match_stmt.py"] == (3, 10)
    assert minimums["except_star.py"] == (3, 11)
    assert minimums["type_params.py"] == (3, 12)
    assert minimums["loops.py"] == (3, 8)


@pytest.mark.parametrize("version,name", [("3.9", "match_stmt.py"), ("3.10", "except_star.py"),
                                          ("3.11", "type_params.py")])
def test_min_version_is_needed(version, name):
    """The version just below a case's min-version cannot compile it."""
    need(version)
    path = [p for p in case_files() if p.endswith(name)][0]
    with open(path, encoding="utf-8") as f:
        assert get_session(version).check(f.read()) is not None


# --------------------------------------------------------------------------
# Perturbations are caught


@pytest.mark.parametrize("version", VERSIONS)
def test_swapped_operands(version):
    need(version)
    result = compare(version, "def f(a, b):\n    return a - b\n", "def f(a, b):\n    return b - a\n")
    f = by_path(result)["<module>/f#0"]
    assert result.compiles and not f.equal and not f.deep
    assert "LOAD_FAST a" in f.diff and "LOAD_FAST b" in f.diff
    assert f.kind == "arg:LOAD_FAST"
    # The module's own instructions are unchanged, but it is not deep-equal.
    module = by_path(result)["<module>"]
    assert module.equal and not module.deep


@pytest.mark.parametrize("version", VERSIONS)
def test_constant_type_matters(version):
    need(version)
    for a, b in (("1", "1.0"), ("1", "True"), ("0.0", "-0.0"), ("(1, 2)", "(1, 2.0)"),
                 ("b'x'", "'x'")):
        result = compare(version, "def f():\n    x = %s\n    return x\n" % a,
                         "def f():\n    x = %s\n    return x\n" % b)
        f = by_path(result)["<module>/f#0"]
        assert not f.equal, (a, b)
        # (3.14+ loads small ints and True/False (3.15) with ops of their own)
        assert f.kind == "arg:LOAD_CONST" or set(f.kind.split("/")) <= {
            "LOAD_CONST", "LOAD_SMALL_INT", "LOAD_COMMON_CONSTANT"}, f.kind


@pytest.mark.parametrize("version", VERSIONS)
def test_frozenset_constant_order_does_not_matter(version):
    need(version)
    result = compare(version, "def f(x):\n    return x in {3, 1, 2}\n",
                     "def f(x):\n    return x in {1, 2, 3}\n")
    assert result.deep_equal == result.code_objects == 2


@pytest.mark.parametrize("version", VERSIONS)
def test_missing_lambda(version):
    need(version)
    result = compare(version, "f = lambda: 1\ng = lambda: 2\n", "f = lambda: 1\ng = 2\n")
    objects = by_path(result)
    assert list(objects) == ["<module>", "<module>/<lambda>#0", "<module>/<lambda>#1"]
    assert objects["<module>/<lambda>#0"].deep
    missing = objects["<module>/<lambda>#1"]
    assert not missing.equal and missing.kind == "missing object"
    assert not objects["<module>"].equal
    assert result.deep_equal == 1 and result.code_objects == 3


@pytest.mark.parametrize("version", VERSIONS)
def test_wrong_nested_lambda_fails_parent_deep(version):
    need(version)
    result = compare(version, "def f():\n    return lambda: 1\n", "def f():\n    return lambda: 2\n")
    objects = by_path(result)
    assert objects["<module>/f#0"].equal and not objects["<module>/f#0"].deep
    assert not objects["<module>/f#0/<lambda>#0"].equal
    assert not objects["<module>"].deep


@pytest.mark.parametrize("version", need_at_least((3, 11)))
def test_load_global_null_bit(version):
    need(version)
    result = compare(version, "def f(x):\n    return len(x)\n", "def f(x):\n    return len\n")
    f = by_path(result)["<module>/f#0"]
    assert f.kind == "arg:LOAD_GLOBAL"
    assert "NULL" in f.diff


@pytest.mark.parametrize("version", VERSIONS)
def test_argument_counts_and_kind_flags(version):
    need(version)
    for a, b, field in (("def f(a, b): pass", "def f(a, *, b): pass", "argcount"),
                        ("def f(a, /): pass", "def f(a): pass", "posonlyargcount"),
                        ("def f(*a): pass", "def f(a): pass", "argcount"),
                        ("def f(): yield", "async def f(): yield", "flags")):
        result = compare(version, a + "\n", b + "\n")
        f = by_path(result)["<module>/f#0"]
        assert f.kind == "header:" + field, (a, b, f)


@pytest.mark.parametrize("version", VERSIONS)
def test_jump_targets_compare_by_index(version):
    need(version)
    result = compare(version, """
        def f(a):
            for x in a:
                if x:
                    break
            return a
    """, """
        def f(a):
            for x in a:
                if x:
                    continue
            return a
    """)
    assert not by_path(result)["<module>/f#0"].equal


def _exception_table(entries):
    """Encode 3.11+ exception-table entries as ``dis._parse_exception_table`` reads them."""
    return exception_table([(e.start, e.end, e.target, e.depth, e.lasti) for e in entries])


@pytest.mark.skipif(HOST < (3, 11), reason="the host has no exception tables (3.11+)")
def test_exception_handler_depth_counts():
    """Two code objects alike but for one handler's stack depth are not equal."""
    import dis
    src = "def f(a):\n    try:\n        return a()\n    except ValueError:\n        return 1\n"
    code = compile(src, "<s>", "exec")
    f = [c for c in code.co_consts if hasattr(c, "co_code")][0]
    entries = dis._parse_exception_table(f)
    assert _exception_table(entries) == f.co_exceptiontable  # the encoder is right
    changed = [e._replace(depth=e.depth + 1) if i == 0 else e for i, e in enumerate(entries)]
    g = f.replace(co_exceptiontable=_exception_table(changed))
    order, orig = compare_code.collect(f)
    cand = compare_code.collect(g)[1]
    verdict = compare_code.compare_tables(order, orig, cand)[0]
    assert not verdict["equal"]
    assert verdict["kind"].startswith("handler:"), verdict
    assert "exc(" in verdict["diff"]


@pytest.mark.parametrize("version", need_at_least((3, 11)))
def test_handlers_are_listed(version):
    need(version)
    result = compare(version, """
        def f(a):
            try:
                a()
            except ValueError:
                pass
    """, """
        def f(a):
            a()
    """)
    f = by_path(result)["<module>/f#0"]
    assert not f.equal and f.diff


@pytest.mark.parametrize("version", VERSIONS)
def test_fused_pairs_count_as_halves(version):
    """3.13 fuses LOAD_FAST x; LOAD_FAST y only when both slots are < 16: the
    dead ``if 0`` block only adds locals (and a NOP), pushing x and y past 15."""
    need(version)
    body = "    x = 1\n    y = 2\n    x, y = y, x\n    return x + y\n"
    padding = "    if 0:\n        %s = 0\n" % " = ".join("v%d" % i for i in range(16))
    result = compare(version, "def f():\n" + body, "def f():\n" + padding + body)
    assert result.deep_equal == result.code_objects == 2


def test_canon_const_is_type_exact():
    canon = compare_code.canon_const
    assert canon(frozenset(["b", "a", 1])) == canon(frozenset([1, "a", "b"]))
    assert canon(1) != canon(1.0) != canon(True)
    assert canon(0.0) != canon(-0.0)
    assert canon(float("nan")) == canon(float("nan"))
    assert canon((1, (2,))) != canon((1, (2.0,)))
    assert canon(0j) != canon(-0j)
    assert canon(10 ** 5000).startswith("int:0x")  # no str() digit limit trouble
    assert compare_code.arg_text("len", "NULL + len") != compare_code.arg_text("len", "len")


# --------------------------------------------------------------------------
# Equivalence: the same control-flow graph (hand-made rows, then each version's own code)


def row(opname, arg=None, to=None, exc=None):
    """One canonical row: ``to`` a jump's target index, ``exc`` a handler ``(index, depth, lasti)``."""
    return (opname, arg, exc, to)


def if_else(jump, first, second):
    """``if x: first() else: second()`` as the compiler lays it out, ``jump`` being its test."""
    return [row("LOAD_NAME", "x"), row(jump, to=5),
            row("LOAD_NAME", first), row("CALL", "0"), row("JUMP_FORWARD", to=7),
            row("LOAD_NAME", second), row("CALL", "0"),
            row("RETURN_CONST", "NoneType:None")]


def test_if_else_either_way_round_is_equivalent():
    a = if_else("POP_JUMP_IF_FALSE", "a", "b")
    b = if_else("POP_JUMP_IF_TRUE", "b", "a")
    assert compare_code.canonical_rows is not None and a != b
    assert compare_code.equivalent_flow(a, b)
    # 3.11 names where the target lies; polarity is the same
    assert compare_code.equivalent_flow(a, if_else("POP_JUMP_FORWARD_IF_TRUE", "b", "a"))


def test_swapped_branch_target_is_not_equivalent():
    a = if_else("POP_JUMP_IF_FALSE", "a", "b")
    assert not compare_code.equivalent_flow(a, if_else("POP_JUMP_IF_TRUE", "a", "b"))
    assert not compare_code.equivalent_flow(a, if_else("POP_JUMP_IF_FALSE", "b", "a"))
    # a test that keeps its value on one edge has no other way round
    assert not compare_code.equivalent_flow(if_else("JUMP_IF_FALSE_OR_POP", "a", "b"),
                                            if_else("JUMP_IF_TRUE_OR_POP", "b", "a"))
    # the same blocks, a join moved: b() no longer reaches the return
    moved = if_else("POP_JUMP_IF_FALSE", "a", "b")
    moved[6] = row("RETURN_VALUE")
    assert not compare_code.equivalent_flow(a, moved)


def test_dead_blocks_and_jump_chains_are_ignored():
    a = if_else("POP_JUMP_IF_FALSE", "a", "b")
    dead = a + [row("LOAD_NAME", "never"), row("RETURN_VALUE")]
    assert compare_code.equivalent_flow(a, dead)
    # a jump to a jump to the join, a dead block in between
    chained = a[:4] + [row("JUMP_FORWARD", to=10), row("LOAD_NAME", "b"), row("CALL", "0"),
                       row("JUMP_FORWARD", to=11), row("LOAD_NAME", "dead"), row("RETURN_VALUE"),
                       row("JUMP_FORWARD", to=11), row("RETURN_CONST", "NoneType:None")]
    assert compare_code.equivalent_flow(a, chained)
    # ... but a live block more is not ignored
    alive = list(a)
    alive[4] = row("JUMP_FORWARD", to=8)
    alive[7:] = [row("RETURN_CONST", "NoneType:None"), row("LOAD_NAME", "c"), row("POP_TOP"),
                 row("JUMP_FORWARD", to=7)]
    assert not compare_code.equivalent_flow(a, alive)


def test_exception_edges_count():
    """3.11+ handlers are edges: their target, depth and lasti all matter."""
    def guarded(depth=0, lasti=False, covered=(1, 2)):
        rows = [row("LOAD_NAME", "f"), row("CALL", "0"), row("POP_TOP"),
                row("RETURN_CONST", "NoneType:None"),
                row("PUSH_EXC_INFO"), row("POP_EXCEPT"), row("RETURN_CONST", "int:1")]
        return [r if i not in covered else r[:2] + ((4, depth, lasti),) + r[3:]
                for i, r in enumerate(rows)]
    base = guarded()
    assert compare_code.equivalent_flow(base, guarded())
    assert not compare_code.equivalent_flow(base, guarded(depth=1))
    assert not compare_code.equivalent_flow(base, guarded(lasti=True))
    assert not compare_code.equivalent_flow(base, guarded(covered=(1,)))
    # the handler laid out first, reached by the same edge: the same graph
    moved = [row("JUMP_FORWARD", to=4), row("PUSH_EXC_INFO"), row("POP_EXCEPT"),
             row("RETURN_CONST", "int:1"), row("LOAD_NAME", "f"),
             row("CALL", "0", exc=(1, 0, False)), row("POP_TOP", exc=(1, 0, False)),
             row("RETURN_CONST", "NoneType:None")]
    assert compare_code.equivalent_flow(base, moved)
    # ... by another depth or to another block: not
    assert not compare_code.equivalent_flow(base, [r if r[2] is None else r[:2] + ((4, 0, False),) + r[3:]
                                                   for r in moved])


@pytest.mark.parametrize("version", VERSIONS)
def test_compare_code_examples_run_in_each_version(version):
    """The script's own examples (equivalence of an if/else either way round
    among them) hold under each interpreter that runs it."""
    import subprocess
    need(version)
    script = compare_code.__file__
    done = subprocess.run([find_interpreter(version), "-I", "-B", "-m", "doctest", os.path.basename(script)],
                          cwd=os.path.dirname(script), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and not done.stdout, done.stdout + done.stderr


@pytest.mark.parametrize("version", VERSIONS)
def test_equivalence_in_each_version(version):
    need(version)
    result = compare(version, """
        def f(x):
            if x:
                a()
            else:
                b()
            return 1
    """, """
        def f(x):
            if not x:
                b()
            else:
                a()
            return 1
    """)
    f = by_path(result)["<module>/f#0"]
    assert not f.equal and f.equivalent, f
    assert result.equivalent == result.code_objects == 2
    swapped = compare(version, "def f(x):\n    if x:\n        a()\n    else:\n        b()\n",
                      "def f(x):\n    if x:\n        b()\n    else:\n        a()\n")
    assert not by_path(swapped)["<module>/f#0"].equivalent
    # handlers count: one more try block around the call
    handled = compare(version, """
        def f(x):
            try:
                a()
            except E:
                b()
    """, """
        def f(x):
            try:
                a()
            except E:
                b()
            except F:
                b()
    """)
    assert not by_path(handled)["<module>/f#0"].equivalent


# --------------------------------------------------------------------------
# What the rule ignores


@pytest.mark.parametrize("version", VERSIONS)
def test_lines_names_and_unloaded_docstrings_are_ignored(version):
    need(version)
    result = compare(version, """
        def f(a):
            '''One docstring.'''
            return a
    """, """


        def f(a):
            '''Another docstring.'''

            return (
                a)
    """)
    assert result.deep_equal == result.code_objects == 2
    # A module docstring is stored to __doc__ by an instruction: it counts.
    result = compare(version, "'''a'''\n", "'''b'''\n")
    assert not by_path(result)["<module>"].equal


@pytest.mark.parametrize("version", need_at_least((3, 13)))
def test_class_firstlineno_is_ignored(version):
    need(version)
    result = compare(version, "class C:\n    x = 1\n", "\n\n\nclass C:\n    x = 1\n")
    assert result.deep_equal == result.code_objects == 2


# --------------------------------------------------------------------------
# Matching by path


@pytest.mark.parametrize("version", VERSIONS)
def test_same_named_siblings_match_in_order(version):
    need(version)
    original = "def f():\n    return 1\ndef f():\n    return 2\n"
    result = compare(version, original, "def f():\n    return 2\ndef f():\n    return 1\n")
    objects = by_path(result)
    assert list(objects) == ["<module>", "<module>/f#0", "<module>/f#1"]
    assert objects["<module>"].equal and not objects["<module>"].deep
    assert not objects["<module>/f#0"].equal and not objects["<module>/f#1"].equal
    assert compare(version, original, original).deep_equal == 3


@pytest.mark.parametrize("version", VERSIONS)
def test_nested_paths(version):
    need(version)
    result = compare(version, """
        class C:
            def m(self):
                return [lambda: 1, lambda: 2]
        f = lambda: (lambda: 0)
    """, None)
    paths = [o.path for o in result.objects]
    assert paths[:2] == ["<module>", "<module>/C#0"]
    assert "<module>/C#0/m#0" in paths
    assert "<module>/<lambda>#0/<lambda>#0" in paths
    assert any(p.endswith("/<lambda>#1") for p in paths)


# --------------------------------------------------------------------------
# Failures are results


@pytest.mark.parametrize("version", VERSIONS)
def test_candidate_that_does_not_compile(version):
    need(version)
    result = compare(version, "def f():\n    return 1\n", "def f(:\n")
    assert result.error is None
    assert not result.compiles
    assert "SyntaxError" in result.compile_error
    assert result.code_objects == 2 and result.equal == 0
    assert list(result.failure_kinds()) == ["no compile: SyntaxError"]


@pytest.mark.parametrize("version", ["3.8", "3.13"])
def test_crashing_decompiler_is_recorded(version):
    need(version)

    def boom(record):
        raise RuntimeError("cannot decompile %s" % record.name)

    result = verify("def f():\n    return 1\n", version, decompile=boom, filename="m.py")
    assert result.crash == "RuntimeError: cannot decompile <module>"
    assert not result.compiles and result.code_objects == 2 and result.deep_equal == 0
    assert list(result.failure_kinds()) == ["crash: RuntimeError"]

    result = verify("x = 1\n", version, decompile=lambda record: None)
    assert "TypeError" in result.crash


@pytest.mark.parametrize("version", ["3.9", "3.12"])
def test_decompile_gets_a_target_record(version):
    need(version)
    seen = []

    def capture(record):
        seen.append(record)
        return "def g():\n    return 1\n"

    result = verify("def f():\n    return 1\n", version, decompile=capture)
    (record,) = seen
    assert tuple(record.version) == tuple(map(int, version.split(".")))
    assert record.name == "<module>"
    assert [c.name for c in record.iter_code_consts()] == ["f"]
    # g is not f: f is missing, the module's STORE_NAME differs.
    assert result.compiles and result.deep_equal == 0


def test_default_decompiler_is_depyf_decompile(monkeypatch):
    """... without validation: the trip measures the decompiler itself."""
    version = need("3.12")
    import depyf
    calls = []

    def fake(record, **options):
        calls.append(options)
        return "x = 1\n"
    monkeypatch.setattr(depyf, "decompile", fake, raising=False)
    assert verify("x = 1\n", version).ok
    assert calls == [{"validate": False}]
    monkeypatch.delattr(depyf, "decompile")
    assert "AttributeError" in verify("x = 1\n", version).crash


def test_dead_target_is_restarted():
    version = need("3.11")
    session = get_session(version)
    assert session.check("x = 1") is None
    session._proc.kill()
    session._proc.wait()
    assert session.check("x = 1") is None  # a fresh process answers
    assert compare(version, "x = 1\n", "x = 1\n").deep_equal == 1


@pytest.mark.parametrize("version", ["3.8", "3.12"])
def test_original_that_does_not_compile(version):
    need(version)
    result = verify("def (:\n", version, decompile=IDENTITY)
    assert result.error and "SyntaxError" in result.error
    assert result.code_objects == 0


# --------------------------------------------------------------------------
# Results, tables, corpus


def test_failure_kinds_and_table():
    result = ModuleResult("m.py", (3, 11), [
        ObjectResult("<module>", True, False),
        ObjectResult("<module>/f#0", False, False, "#3: LOAD_FAST a | candidate: LOAD_FAST b", "arg:LOAD_FAST"),
        ObjectResult("<module>/g#0", False, False, "#1: ...", "arg:LOAD_FAST"),
        ObjectResult("<module>/h#0", False, False, "#2: ...", "POP_TOP/RETURN_VALUE"),
    ], compiles=True)
    kinds = result.failure_kinds()
    assert sorted(kinds) == ["POP_TOP/RETURN_VALUE", "arg:LOAD_FAST"]
    assert len(kinds["arg:LOAD_FAST"]) == 2
    corpus = CorpusResult((3, 11), [result, ModuleResult("n.py", (3, 11), crash="ValueError: x")])
    assert corpus.failure_kinds()[0][:2] == ("arg:LOAD_FAST", 2)
    table = format_table([corpus]).splitlines()
    assert table[0].split()[:2] == ["version", "modules"]
    assert table[1].split() == ["3.11", "2", "1", "4", "25.00", "0.00", "25.00", "1", "0"]


def test_corpus_list_has_65_entries():
    entries = read_corpus_list()
    assert len(entries) == 65
    assert ("pathlib/__init__.py", "pathlib.py") in entries


@pytest.mark.parametrize("version", VERSIONS)
def test_stdlib_modules_resolve(version):
    need(version)
    paths = stdlib_modules(version)
    assert len(paths) == 65 and all(os.path.isfile(p) for p in paths)
    assert ("lib/python%s" % version) in paths[0].replace(os.sep, "/")


def test_more_stdlib_modules():
    version = need("3.11")
    more = more_stdlib_modules(version, 5)
    assert len(more) == 5 and more == more_stdlib_modules(version, 5)
    base = set(stdlib_modules(version))
    assert not base & set(more)
    assert not any("/test/" in p or "site-packages" in p for p in more)
    assert len(corpus_modules(version, 70)) == 70


def test_corpus_list_env_override(tmp_path, monkeypatch):
    listing = tmp_path / "list.txt"
    listing.write_text("# a comment\nnot_there.py|json/decoder.py\n")
    monkeypatch.setenv("DEPYF_CORPUS_LIST", str(listing))
    assert read_corpus_list() == [("not_there.py", "json/decoder.py")]
    version = need("3.12")
    (path,) = stdlib_modules(version)
    assert path.endswith("json/decoder.py")


def test_parallel_run_keeps_order():
    version = need("3.10")
    paths = case_files(version)[:6]
    get_session(version).check("x = 1")  # a started shared session is inherited by the workers
    serial = run_corpus(version, paths, IDENTITY)
    parallel = run_corpus(version, paths, IDENTITY, jobs=2)
    assert [r.filename for r in parallel.results] == paths
    assert [r.code_objects for r in parallel.results] == [r.code_objects for r in serial.results]
    assert parallel.deep_percent == 100.0
    assert get_session(version).check("x = 1") is None  # the parent's target still answers


def test_cli_identity_on_cases(capsys):
    version = need(format_version(HOST)) if HOST in DECOMPILED_VERSIONS else need("3.11")
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools"))
    try:
        import roundtrip as cli
    finally:
        sys.path.pop(0)
    assert cli.main(["--identity", "--cases", "--versions", version]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[1].split()[0] == version and "100.00" in out


def test_cli_refuses_versions_not_decompiled_yet():
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools"))
    try:
        import roundtrip as cli
    finally:
        sys.path.pop(0)
    with pytest.raises(SystemExit, match=r"decompiling Python 3\.7 is not supported"):
        cli.chosen_versions("3.7")
    assert set(cli.chosen_versions(None)) <= set(DECOMPILED_VERSIONS)


# --------------------------------------------------------------------------
# The real decompiler (in progress)


@pytest.mark.parametrize("version", VERSIONS)
def test_real_decompiler_recompiles_cases(version):
    need(version)
    corpus = run_corpus(version, case_files(version))
    bad = [r.format() for r in corpus.results if not r.compiles or r.crash]
    assert not bad, bad


def test_corpus_code_stands_alone(tmp_path):
    """A copy of the package with no ``shared/`` folder anywhere around it
    finds the yardstick list (it is the package's own data)."""
    import shutil
    import subprocess
    import sys
    src = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src", "depyf")
    alone = tmp_path / "clone" / "src"
    shutil.copytree(src, alone / "depyf", ignore=shutil.ignore_patterns("__pycache__"))
    env = {k: v for k, v in os.environ.items() if k not in ("DEPYF_CORPUS_LIST", "PYTHONPATH")}
    env["PYTHONPATH"] = str(alone)
    out = subprocess.run(
        [sys.executable, "-c", "from depyf.verify.corpus import read_corpus_list, corpus_list_path\n"
         "print(len(read_corpus_list()), corpus_list_path())"],
        cwd=str(tmp_path), env=env, capture_output=True, text=True, check=True).stdout.split()
    assert out[0] == "65" and out[1].startswith(str(alone))
    assert not any(p.name == "shared" for p in tmp_path.rglob("*"))


def test_objects_the_fallback_wrote_are_not_compared():
    """A code object written by the fallback is never the original's code:
    compare_tables leaves it out (``skip``) instead of working out why, and
    still compares the objects around it."""
    order, orig = compare_code.collect(compile("def f(x):\n    return 1 if x else 2\n", "<s>", "exec"))
    cand = compare_code.collect(compile("def f(x):\n    return 3\n", "<s>", "exec"))[1]
    skipped = cand["<module>/f#0"]
    verdicts = {v["path"]: v for v in compare_code.compare_tables(order, orig, cand, skip={"<module>/f#0"})}
    assert verdicts["<module>"]["equal"] and not verdicts["<module>"]["deep"]
    f = verdicts["<module>/f#0"]
    assert (f["equal"], f["equivalent"], f["kind"]) == (False, False, "fallback")
    assert skipped._rows is None       # its instructions were never worked out
