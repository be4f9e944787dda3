"""depyf's bytecode reader against each interpreter's own ``dis``.

* For every installed 3.8-3.15 (pyenv's, or the Debian builds of
  scripts/debian_python.sh), a fixed sample of ~25 standard-library
  .pyc files (big and small, every optimisation level) must read exactly as
  that interpreter's ``dis`` shows them. ``tools/check_reader.py`` runs the
  whole standard library.
* On the host, ``decode(from_live(code))`` must match ``dis`` for live code
  with closures, generators, async, exception handling, f-strings,
  EXTENDED_ARG...
* Unit tests of the checking machinery itself (canon form, difference
  finder, interpreter discovery), which need neither the decoder nor an interpreter.
"""
from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import sys
import textwrap

import pytest

from depyf.verify import interpreters
from depyf.verify.dis_reference import canon, code_tree
from depyf.verify.interpreters import KNOWN_VERSIONS, find_interpreter, format_version
from depyf.verify.reader_check import (REFERENCE_SCRIPT, Report, check_files, find_difference,
                                       pyc_files_under, record_tree, same, stdlib_dir,
                                       stdlib_pyc_files)

SAMPLE_SIZE = 25

#: Always in the sample when present: (folder relative to the stdlib, module,
#: optimisation suffix). Big modules and ones full of unusual syntax.
MUST_HAVE = (
    ("", "typing", ""),
    ("", "argparse", ""),
    ("", "typing", ".opt-1"),
    ("", "argparse", ".opt-2"),
    ("", "inspect", ""),
    ("", "dataclasses", ""),
    ("", "enum", ".opt-1"),
    ("", "functools", ""),
    ("", "contextlib", ""),
    ("asyncio", "base_events", ""),
    ("asyncio", "tasks", ".opt-2"),
    ("json", "decoder", ""),
    ("collections", "__init__", ""),
    ("email", "_header_value_parser", ""),
    ("unittest", "mock", ""),
    ("test", "test_grammar", ""),
    ("test", "test_patma", ""),
    ("test", "test_coroutines", ".opt-1"),
    ("test", "test_except_star", ""),      # 3.11+
    ("test", "test_type_params", ""),      # 3.12+
)


def _bytecode_available():
    try:
        from depyf.bytecode import decode, from_live, read_pyc  # noqa: F401
    except ImportError as exc:
        return str(exc)
    return None


def sample_files(version, size=SAMPLE_SIZE):
    """A deterministic sample of that interpreter's stdlib .pyc files."""
    files = stdlib_pyc_files(version)
    root = stdlib_dir(version)
    tag = "cpython-%d%d" % interpreters.parse_version(version)
    chosen = []
    for folder, module, opt in MUST_HAVE:
        path = os.path.join(root, folder, "__pycache__", "%s.%s%s.pyc" % (module, tag, opt))
        if path in files and path not in chosen:
            chosen.append(path)
    rest = [f for f in files if f not in chosen]
    need = max(0, size - len(chosen))
    if rest and need:
        step = len(rest) / need
        chosen.extend(rest[int(i * step)] for i in range(need))
    return chosen


# --------------------------------------------------------------------------
# Conformance: stdlib samples of each installed interpreter


@pytest.mark.parametrize("version", [format_version(v) for v in KNOWN_VERSIONS])
def test_stdlib_sample_matches_dis(version):
    missing = _bytecode_available()
    if missing:
        pytest.skip("depyf.bytecode not importable yet: %s" % missing)
    if find_interpreter(version) is None:
        reason = interpreters.missing_reason(version)
        print(reason)
        pytest.skip(reason)
    files = sample_files(version)
    assert len(files) >= SAMPLE_SIZE - 2, "too few stdlib .pyc files found for %s" % version
    assert any(".opt-1." in f for f in files) and any(".opt-2." in f for f in files)
    report = check_files(version, files)
    if not report.ok:
        pytest.fail("depyf reads Python %s files differently from its dis:\n%s" % (
            version, report.format(limit=10)), pytrace=False)


# --------------------------------------------------------------------------
# Conformance: live code of the host

LIVE_SOURCE = '''
import contextlib

def closure(a):
    b = a * 2
    def inner(c, *args, d=1, **kw):
        nonlocal b
        b += c
        return a + b + d + len(args) + len(kw)
    return inner

def generator(n):
    for i in range(n):
        if i % 2:
            continue
        x = yield i
        yield from range(x or 0)
    else:
        return -1

async def coroutine(session, urls):
    async with session as s:
        async for item in s.stream(urls):
            await item
    return [u async for u in session if await u]

def handlers(x):
    try:
        y = 1 / x
    except ZeroDivisionError as e:
        return str(e)
    except (TypeError, ValueError):
        raise
    else:
        return y
    finally:
        x = None

def with_blocks(path):
    with open(path) as f, contextlib.suppress(OSError):
        return f.read()

def comprehensions(xs):
    return ([x for x in xs if x], {x: y for x, y in xs}, {x for x in xs},
            list(x * y for x in xs for y in xs), [[z for z in x] for x in xs])

lambdas = [lambda: 0, lambda x, *, y=3: x + y, (lambda q: (lambda: q))(1)]

def fstrings(v, w):
    return f"{v!r:>{w}} {v!s} {v!a} {v:.2f} {v=} {'nested' + f'{w}'}"

def constants():
    return (1, 1.5, -0.0, 2j, b"\\x00\\xff", "s\\u20ac", None, True, ..., frozenset({1, 2}),
            10**30, ("a", ("b",)))

def walrus_and_star(xs):
    if (n := len(xs)) > 2:
        first, *rest = xs
        return {**{"n": n}, "rest": [*rest]}
    del xs
    global G
    G = n

class Klass(Exception):
    attr: int = 3
    def method(self):
        return super().method()
    @property
    def prop(self):
        return self.__class__

def matching(command):
    match command:
        case ["go", direction] if direction:
            return direction
        case {"x": x, **rest}:
            return x, rest
        case Klass(attr=3) | None:
            return 0
        case str() as s:
            return s
        case _:
            return None
'''

#: 3.11+ syntax, compiled only where the host has it.
LIVE_SOURCE_311 = '''
def groups():
    try:
        pass
    except* ValueError as eg:
        print(eg)
    except* TypeError:
        raise
'''


def _many_constants_source(n=400):
    """A function with > 256 constants and names: EXTENDED_ARG on loads."""
    body = "".join("    v%d = %d.5 + g%d\n" % (i, i, i) for i in range(n))
    return "def many_constants():\n%s    return v0\n" % body


def _long_if_chain_source(n=150):
    """A long if/elif chain: jumps further than 255 units need EXTENDED_ARG."""
    branches = "".join("    %s x == %d:\n        y = x * %d + f(x)\n" % ("if" if i == 0 else "elif", i, i)
                       for i in range(n))
    loop = "    while y:\n" + "".join("        y -= %d\n" % i for i in range(200))
    return "def long_if_chain(x, f):\n    y = 0\n%s%s    return y\n" % (branches, loop)


@functools.lru_cache(maxsize=None)
def _live_codes():
    sources = [("live", LIVE_SOURCE), ("many_constants", _many_constants_source()),
               ("long_if_chain", _long_if_chain_source())]
    if sys.version_info >= (3, 11):
        sources.append(("live311", LIVE_SOURCE_311))
    codes = [(name, compile(src, "<%s>" % name, "exec")) for name, src in sources]
    # A real module too: the whole of argparse, compiled by the host.
    import argparse
    with open(argparse.__file__, encoding="utf-8") as f:
        codes.append(("argparse", compile(f.read(), argparse.__file__, "exec")))
    # Live function objects (code as the interpreter holds it after running).
    codes.append(("closure()", closure_fn().__code__))
    return tuple(codes)


def closure_fn():
    ns = {}
    exec(compile(LIVE_SOURCE, "<live>", "exec"), ns)
    inner = ns["closure"](1)
    inner(2)
    return inner


def test_extended_arg_sources_really_use_it():
    import dis
    for name, code in _live_codes()[1:3]:
        ops = [i.opname for c in _walk(code) for i in dis.get_instructions(c)]
        assert "EXTENDED_ARG" in ops, name


def _walk(code):
    yield code
    for c in code.co_consts:
        if hasattr(c, "co_code"):
            yield from _walk(c)


@pytest.mark.parametrize("name,code", _live_codes(), ids=[n for n, _ in _live_codes()])
def test_live_code_matches_host_dis(name, code):
    missing = _bytecode_available()
    if missing:
        pytest.skip("depyf.bytecode not importable yet: %s" % missing)
    from depyf.bytecode import decode, from_live
    theirs = json.loads(json.dumps(code_tree(code)))
    ours = record_tree(from_live(code), decode)
    diff = find_difference(ours, theirs)
    if diff is not None:
        pytest.fail("decode(from_live(%s)) differs from the host's dis: %s" % (name, diff.format()),
                    pytrace=False)
    assert same(json.loads(json.dumps(ours)), theirs)


# --------------------------------------------------------------------------
# The machinery itself


def test_canon_is_type_exact():
    assert canon(1) == 1
    assert canon(True) == {"const": "True"} and canon(True) != canon(1)
    assert canon(1.0) == {"float": "1.0"} and canon(1.0) != canon(1)
    assert canon(-0.0) != canon(0.0)
    assert canon(float("nan")) == {"float": "nan"}
    assert canon(None) == {"const": "None"}
    assert canon(...) == {"const": "Ellipsis"}
    assert canon("x") == "x" and canon(b"x") == {"bytes": "78"}
    assert canon(1j) == {"complex": "1j"}
    assert canon((1, ("a",))) == {"tuple": [1, {"tuple": ["a"]}]}
    assert canon(10**100) == {"int": hex(10**100)}
    assert canon(str) == {"builtin": "str"} and canon(repr) == {"builtin": "repr"}
    assert canon((ascii, True)) == {"tuple": [{"builtin": "ascii"}, {"const": "True"}]}
    assert canon(object)["repr"] == repr(object)


def test_canon_frozenset_order_is_stable():
    a = canon(frozenset(["b", "a", 3, (1, 2)]))
    b = canon(frozenset([(1, 2), 3, "a", "b"]))
    assert a == b and list(a) == ["frozenset"]
    json.dumps(a)


def test_canon_code_hook_and_live_code():
    code = compile("def f(): return 1", "<s>", "exec")
    tree = canon(code)["code"]
    assert tree["name"] == "<module>"
    nested = [row[2] for row in tree["instructions"] if isinstance(row[2], dict) and "code" in row[2]]
    assert nested and nested[0]["code"]["name"] == "f"
    assert canon(42, code_hook=lambda v: {"hooked": v} if v == 42 else None) == {"code": {"hooked": 42}}


def test_code_tree_rows_and_lines():
    code = compile("x = 1\nif x:\n    y = 2\n", "<s>", "exec")
    tree = code_tree(code)
    rows = tree["instructions"]
    assert all(len(r) == 7 for r in rows)
    assert not any(r[0] in ("EXTENDED_ARG", "CACHE") for r in rows)
    assert {r[4] for r in rows} >= {1, 2, 3}
    jumps = [r for r in rows if r[3] is not None]
    assert jumps and all(j[3] in {r[6] for r in rows} for j in jumps)


def test_find_difference_names_innermost_code():
    src = "def f():\n    def g():\n        return 1\n    return g\n"
    theirs = json.loads(json.dumps(code_tree(compile(src, "<s>", "exec"))))
    ours = json.loads(json.dumps(theirs))
    f_row = next(r for r in ours["instructions"] if isinstance(r[2], dict) and "code" in r[2])
    g_tree = next(r for r in f_row[2]["code"]["instructions"] if isinstance(r[2], dict) and "code" in r[2])[2]["code"]
    g_tree["instructions"][-1][4] = 99
    diff = find_difference(ours, theirs)
    assert diff is not None and diff.field == "line" and diff.ours == 99
    assert diff.where[-1].endswith("g")
    assert find_difference(theirs, json.loads(json.dumps(theirs))) is None


def test_find_difference_is_type_exact():
    base = {"name": "m", "qualname": "m", "instructions": [["NOP", 1, 1, None, 1, None, 0]],
            "exceptions": []}
    other = json.loads(json.dumps(base))
    other["instructions"][0][1] = True
    diff = find_difference(other, base)
    assert diff is not None and diff.field == "arg"
    shorter = dict(base, instructions=[])
    assert find_difference(shorter, base).field == "count"


def test_report_format():
    report = Report((3, 9))
    assert report.ok and "0 files" in report.format()


def _fake_exe(path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("#!/bin/sh\n")
    os.chmod(path, 0o755)


def test_find_interpreter_uses_pyenv_root(tmp_path, monkeypatch):
    for name in ("3.9.1", "3.9.10", "3.9.2", "3.13.0t", "3.12-dev"):
        minor = re.match(r"3\.(\d+)", name).group(1)
        _fake_exe(str(tmp_path / "versions" / name / "bin" / ("python3.%s" % minor)))
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path))
    monkeypatch.setenv("DEPYF_DEBIAN_PYTHONS", str(tmp_path / "no-debian-builds"))
    interpreters.clear_cache()
    try:
        assert interpreters.pyenv_root() == str(tmp_path)
        assert find_interpreter("3.9") == str(tmp_path / "versions" / "3.9.10" / "bin" / "python3.9")
        assert find_interpreter((3, 9)) == find_interpreter("3.9")
        assert find_interpreter("3.13") is None and find_interpreter("3.12") is None
        assert interpreters.installed_versions() == [(3, 9)]
    finally:
        interpreters.clear_cache()


def test_find_interpreter_falls_back_to_debian_builds(tmp_path, monkeypatch):
    pyenv, debian = tmp_path / "pyenv", tmp_path / "debian"
    _fake_exe(str(pyenv / "versions" / "3.12.1" / "bin" / "python3.12"))
    for version in ("3.12", "3.14", "3.15"):
        _fake_exe(str(debian / version / "usr" / "bin" / ("python" + version)))
    # complete trees only: the script writes .package-version last
    for version in ("3.12", "3.14"):
        (debian / version / ".package-version").write_text("3.x-1\n")
    monkeypatch.setenv("PYENV_ROOT", str(pyenv))
    monkeypatch.setenv("DEPYF_DEBIAN_PYTHONS", str(debian))
    interpreters.clear_cache()
    try:
        assert interpreters.debian_python_root() == str(debian)
        assert find_interpreter("3.12") == str(pyenv / "versions" / "3.12.1" / "bin" / "python3.12")
        assert find_interpreter("3.14") == str(debian / "3.14" / "usr" / "bin" / "python3.14")
        assert find_interpreter("3.15") is None
        assert interpreters.installed_versions() == [(3, 12), (3, 14)]
        reason = interpreters.missing_reason("3.15")
        assert str(pyenv) in reason and str(debian) in reason and "debian_python.sh 3.15" in reason
    finally:
        interpreters.clear_cache()


def test_debian_root_follows_the_cache_variables(monkeypatch, tmp_path):
    monkeypatch.delenv("DEPYF_DEBIAN_PYTHONS", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert interpreters.debian_python_root() == str(tmp_path / "depyf" / "debian-python")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert interpreters.debian_python_root() == str(tmp_path / "home" / ".cache" / "depyf"
                                                    / "debian-python")


def test_every_known_version_is_decompiled():
    # every version the reader knows is decompiled, and the round-trip tools take them all
    assert interpreters.DECOMPILED_VERSIONS == KNOWN_VERSIONS
    assert KNOWN_VERSIONS[-2:] == ((3, 14), (3, 15))


def test_pyc_files_under_skips_site_packages(tmp_path):
    for rel in ("__pycache__/a.cpython-311.pyc", "pkg/__pycache__/b.cpython-311.opt-2.pyc",
                "site-packages/x/__pycache__/c.cpython-311.pyc", "loose.pyc",
                "__pycache__/notes.txt"):
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(b"")
    found = [os.path.relpath(p, tmp_path) for p in pyc_files_under(str(tmp_path))]
    assert found == ["__pycache__/a.cpython-311.pyc", "pkg/__pycache__/b.cpython-311.opt-2.pyc"]


@pytest.mark.parametrize("version", [format_version(v) for v in KNOWN_VERSIONS])
def test_reference_script_runs_under_target(version, tmp_path):
    """The standalone script works on each target, including its error path."""
    exe = find_interpreter(version)
    if exe is None:
        reason = interpreters.missing_reason(version)
        print(reason)
        pytest.skip(reason)
    src = tmp_path / "m.py"
    src.write_text(textwrap.dedent("""
        def f(x):
            try:
                return {1, 2} | frozenset({"a"}), f"{x!r}", -0.0, 2j, b"\\x00", x[1:2]
            except Exception:
                return None
    """))
    pyc = tmp_path / "m.pyc"
    subprocess.run([exe, "-I", "-c", "import py_compile, sys; py_compile.compile(sys.argv[1], sys.argv[2], doraise=True)",
                    str(src), str(pyc)], check=True)
    bad = tmp_path / "bad.pyc"
    bad.write_bytes(b"\x00" * 20)
    out = subprocess.run([exe, "-I", "-B", REFERENCE_SCRIPT], input="%s\n%s\n" % (pyc, bad),
                         capture_output=True, text=True, check=True, timeout=60).stdout
    good_rec, bad_rec = [json.loads(line) for line in out.splitlines()]
    assert good_rec["ok"] and good_rec["path"] == str(pyc)
    assert not bad_rec["ok"] and "Error" in bad_rec["error"]
    module = good_rec["code"]
    f_tree = next(r[2]["code"] for r in module["instructions"] if isinstance(r[2], dict) and "code" in r[2])
    assert f_tree["name"] == "f"
    flat = json.dumps(f_tree)
    assert '{"float": "-0.0"}' in flat and '{"complex": "2j"}' in flat and '{"bytes": "00"}' in flat
    has_exceptions = interpreters.parse_version(version) >= (3, 11)
    assert bool(f_tree["exceptions"]) == has_exceptions
    # 3.14 folds a constant slice into a constant
    has_slices = interpreters.parse_version(version) >= (3, 14)
    assert ('{"slice": [1, 2, {"const": "None"}]}' in flat) == has_slices


def test_checker_catches_a_wrong_reader(monkeypatch, tmp_path):
    """A deliberately broken reading is reported, with where and what."""
    missing = _bytecode_available()
    if missing:
        pytest.skip("depyf.bytecode not importable yet: %s" % missing)
    host = sys.version_info[:2]
    if find_interpreter(host) is None:
        pytest.skip(interpreters.missing_reason(host))
    from depyf.verify import reader_check
    tag = sys.implementation.cache_tag
    good = [f for f in stdlib_pyc_files(host)
            if f.endswith(os.sep + "__pycache__" + os.sep + "functools.%s.pyc" % tag)]
    assert good, "functools.%s.pyc not found" % tag
    bad = tmp_path / "bad.pyc"
    bad.write_bytes(b"\x00" * 20)
    real = reader_check.our_tree

    def wrong_line(path):
        version, tree = real(path)
        tree["instructions"][3][4] = 10**6
        return version, tree
    monkeypatch.setattr(reader_check, "our_tree", wrong_line)
    report = check_files(host, good + [str(bad)])
    assert report.count(reader_check.MISMATCH) == 1 and report.count(reader_check.THEIR_ERROR) == 1
    diff = report.failures(reader_check.MISMATCH)[0].difference
    assert (diff.field, diff.index, diff.ours, diff.where) == ("line", 3, 10**6, ("<module>",))

    def broken(path):
        raise ValueError("boom")
    monkeypatch.setattr(reader_check, "our_tree", broken)
    report = check_files(host, good)
    assert [r.error for r in report.results] == ["ValueError: boom"]
    assert "1 our errors" in report.format()
