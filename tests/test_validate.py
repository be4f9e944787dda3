"""Translation validation (depyf.decompiler.validate, wired into decompile/decompile_report).

* verdicts per code object: identical, equivalent, fallback, unverified;
* an object whose structured form compiles to other bytecode is written by
  the fallback instead, and the text behaves as the original;
* a .pyc whose interpreter is missing (the finder monkeypatched) is marked
  unverified on every def line and at the top;
* ``validate=False`` skips all of it; the readable form is not checked.
"""
import ast
import dis
import opcode
import fractions
import py_compile
import sys
import types

import pytest

import depyf
from depyf.decompiler import validate, verdicts
from depyf.decompiler.api import decompile_report
from depyf.decompiler.functions import CodeDecompiler
from depyf.verify import interpreters
from depyf.verify.interpreters import KNOWN_VERSIONS, find_interpreter, format_version

from test_fallback import Assembler, outcome, template

HOST = sys.version_info[:2]
FALLBACK = "depyf: unstructured fallback"


def other_version():
    """An installed interpreter of another version than this one (skip if none)."""
    for version in KNOWN_VERSIONS:
        if version != HOST and find_interpreter(version) is not None:
            return version
    pytest.skip("no pyenv interpreter of a version other than %s" % format_version(HOST))


def pyc_of(tmp_path, source, version=None):
    """``source`` compiled into a .pyc by ``version``'s interpreter (default this one)."""
    path = tmp_path / "m.py"
    path.write_text(source)
    out = tmp_path / ("m.%s.pyc" % ("host" if version is None else format_version(version)))
    if version is None:
        py_compile.compile(str(path), cfile=str(out), doraise=True)
    else:
        import subprocess
        subprocess.run([find_interpreter(version), "-c", "import py_compile, sys; "
                        "py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)",
                        str(path), str(out)], check=True)
    return str(out)


SAMPLE = '''"""A module."""


def f(a, b=1):
    try:
        return a / b
    except ZeroDivisionError:
        return None


class K:
    def m(self, xs):
        return [x for x in xs if x]


g = lambda q: q * 2
'''


def sample(log, a):
    total = 0
    for i in range(a):
        if i % 2:
            total += i
        else:
            log.append(i)
    return [lambda: total][0]()


# -- verdicts ---------------------------------------------------------------------------------

def test_live_function_is_identical():
    r = decompile_report(sample)
    assert r.verdicts == [("sample", "identical"), ("sample/<lambda>#0", "identical")]
    assert r.counts() == {"identical": 2, "equivalent": 0, "fallback": 0, "unverified": 0}
    assert r.source == decompile_report(sample, validate=False).source


def test_an_equivalent_layout_is_kept():
    # a jump to a jump: the text, compiled again, jumps straight on
    asm = Assembler()
    asm.op("LOAD_FAST", 0).jump_if("FALSE", "hop")
    asm.call(2, 1, lambda s: s.op("LOAD_CONST", 1)).op("POP_TOP")
    asm.label("hop").jump("end").label("end")
    asm.call(2, 1, lambda s: s.op("LOAD_CONST", 2)).op("POP_TOP")
    common = list(getattr(opcode, "_common_constants", ()))
    if "RETURN_CONST" in dis.opmap:         # what the compiler writes, where it has it
        asm.op("RETURN_CONST", 0)
    elif any(c is None for c in common):    # 3.15 loads None without a constant
        asm.op("LOAD_COMMON_CONSTANT", [c is None for c in common].index(True)).op("RETURN_VALUE")
    else:
        asm.op("LOAD_CONST", 0).op("RETURN_VALUE")
    code = asm.code(template, [None, "a", "c"])
    r = decompile_report(code)
    assert r.verdicts == [("template", "equivalent")]
    assert FALLBACK not in r.source and "if a:" in r.source


def test_module_and_pyc_of_this_interpreter(tmp_path):
    r = decompile_report(compile(SAMPLE, "m.py", "exec"))
    assert r.counts()["identical"] == r.code_objects >= 5      # (3.12+ inlines the listcomp)
    r = decompile_report(pyc_of(tmp_path, SAMPLE))
    assert r.counts()["identical"] == r.code_objects >= 5
    assert [p for p, _ in r.verdicts][:3] == ["<module>", "<module>/f#0", "<module>/K#0"]


def test_pyc_of_another_version_is_checked_there(tmp_path):
    version = other_version()
    r = decompile_report(pyc_of(tmp_path, SAMPLE, version))
    assert r.unverified is None
    assert r.counts()["identical"] + r.counts()["equivalent"] + r.counts()["fallback"] \
        == r.code_objects >= 5


def make(start):
    count = start

    def step(by=1):
        nonlocal count
        count += by
        return count
    return step


def test_closure_renamed_and_bare_defs_are_checked_in_their_scopes():
    r = decompile_report(make(5), enclose=False)
    assert [v for _, v in r.verdicts] == ["identical"]
    assert r.source.lstrip().startswith("def step(")
    # (make is top-level: up to 3.10 a def nested in a function names it in
    # its qualified name, a constant of its maker's code)
    r = decompile_report(make, name="other")
    assert [v for _, v in r.verdicts] == ["identical", "identical"]
    assert "def other(start)" in r.source


IMPORTS_AT_THE_TOP = """
import os
import json


def local_import_of_a_module_the_module_imports(flag):
    if flag:
        import os
    return os.getcwd()


def local_imports_of_both_kinds(flag):
    import json
    return json.dumps(flag), os.getcwd()
"""


@pytest.mark.parametrize("name", ["local_import_of_a_module_the_module_imports",
                                  "local_imports_of_both_kinds"])
def test_a_function_alone_is_checked_with_the_imports_its_calls_show(name):
    # From 3.11 `m.f()` compiles another way where the module imports `m` at
    # its top, even when the function binds `m` itself by an import of its
    # own: a code object decompiled without its module (no globals to look
    # at) is checked in a module importing those names too.
    module = compile(IMPORTS_AT_THE_TOP, "<m>", "exec")
    code = next(c for c in module.co_consts if getattr(c, "co_name", None) == name)
    r = decompile_report(code)
    assert r.verdicts == [(name, "identical")], r.fallbacks


def closure_over(func):
    def wrapper(x):
        func
        return x + 1
    return wrapper


def test_a_free_variable_no_op_uses_stays_free():
    # Dynamo's code for a closure keeps its free variables where the graph
    # does all the work and the code uses none of them: `nonlocal` keeps it
    code = closure_over(len).__code__
    ops = list(dis.get_instructions(code))
    at = next(k for k, op in enumerate(ops) if op.argval == "func")
    assert ops[at + 1].opname == "POP_TOP"
    raw = bytearray(code.co_code)
    for op in ops[at:at + 2]:
        raw[op.offset:op.offset + 2] = bytes([dis.opmap["NOP"], 0])
    unused = code.replace(co_code=bytes(raw))
    r = decompile_report(unused)
    assert [verdict for _, verdict in r.verdicts] == ["identical"], r.fallbacks
    assert "nonlocal func" in r.source


def test_constants_no_literal_writes_are_checked_through_their_names():
    # (1000: a constant, where 3.14+ loads a small int without one)
    code = compile("def f(x):\n    return x + 1000\n", "<s>", "exec").co_consts[0]
    odd = code.replace(co_consts=tuple(fractions.Fraction(1, 3) if c == 1000 else c
                                       for c in code.co_consts))
    text = depyf.decompile(odd)
    assert "__import__('fractions').Fraction(1, 3)" in text and FALLBACK not in text
    r = decompile_report(odd, define_constants=True)
    assert r.verdicts == [("f", "identical")]
    namespace = {}
    exec(text, namespace)
    assert namespace["f"](fractions.Fraction(2, 3)) == 1


def test_readable_form_is_not_checked():
    r = decompile_report(sample, readable=True)
    assert r.verdicts == [] and r.unverified is None


def test_no_validation():
    r = decompile_report(sample, validate=False)
    assert r.verdicts == [] and r.counts()["identical"] == 0


# -- what is found different goes to the fallback --------------------------------------------

@pytest.fixture
def wrong(monkeypatch):
    """The structured decompiler writes ``log; return 0`` for code named
    ``victim`` (its free variable kept) unless the object is forced to the
    fallback."""
    structured = CodeDecompiler.statements

    def statements(self):
        body = structured(self)
        refused = self.forced and self.code in self.forced
        if self.code.name == "victim" and not refused:
            return [ast.Expr(value=ast.Name(id="log", ctx=ast.Load())),
                    ast.Return(value=ast.Constant(value=0))]
        return body
    monkeypatch.setattr(CodeDecompiler, "statements", statements)


def outer(log, n):
    def victim(x):
        log.append(x)
        return x * 3
    return victim(n) + helper(n)


def helper(n):
    return n - 1


def test_a_different_object_is_written_by_the_fallback(wrong):
    text = decompile_report(outer, validate=False).source
    assert "return 0" in text          # the broken structured form
    r = decompile_report(outer)
    assert dict(r.verdicts) == {"outer": "identical", "outer/victim#0": "fallback"}
    assert "return 0" not in r.source and FALLBACK in r.source
    assert [name.rpartition(".")[2] for name, _ in r.fallbacks] == ["victim"]
    assert "validation: compiles to other bytecode" in r.fallbacks[0][1]
    namespace = {"helper": helper}
    exec(r.source, namespace)
    for n in (0, 4):
        log_a, log_b = [], []
        assert outcome(outer, log_a, n) == outcome(namespace["outer"], log_b, n)
        assert log_a == log_b


def sorts(log, xs):
    log.append(len(xs))
    return sorted(xs, key=lambda v: -v)


def test_a_different_lambda_takes_the_code_around_it_along(monkeypatch):
    structured = CodeDecompiler.statements

    def statements(self):
        body = structured(self)
        if self.kind == "lambda" and not (self.forced and self.code in self.forced):
            return [ast.Return(value=ast.Constant(value=0))]      # wrong: the key is lost
        return body
    monkeypatch.setattr(CodeDecompiler, "statements", statements)
    r = decompile_report(sorts)
    assert dict(r.verdicts) == {"sorts": "fallback", "sorts/<lambda>#0": "fallback"}
    namespace = {}
    exec(r.source, namespace)
    for xs in ([3, 1, 2], []):
        log_a, log_b = [], []
        assert outcome(sorts, log_a, list(xs)) == outcome(namespace["sorts"], log_b, list(xs))
        assert log_a == log_b


def test_a_text_that_does_not_compile_goes_to_the_fallback(monkeypatch):
    real = validate.Original.check
    calls = []

    def check(self, text, path, hidden=None, skip=()):
        calls.append(text)
        if len(calls) == 1:
            text = text + "\n)"
        return real(self, text, path, hidden, skip)
    monkeypatch.setattr(validate.Original, "check", check)
    r = decompile_report(sample)
    assert len(calls) == 2
    assert dict(r.verdicts)["sample"] == "fallback"
    assert "the text does not compile" in r.fallbacks[0][1]


def test_stack_values_across_statements_are_equivalent_up_to_temporaries():
    """Dynamo's shape (a function loaded, a statement, then the call): no
    source compiles to it, but the structured form (which reads the parameter
    after the statement: no call can rebind it) does the same things in the
    same order (depyf.verify.effect_trace): it is kept, as equivalent."""
    asm = Assembler()
    if (3, 11) <= HOST < (3, 13):
        asm.op("PUSH_NULL")
    asm.op("LOAD_FAST", 2)
    if HOST >= (3, 13):
        asm.op("PUSH_NULL")
    asm.call(1, 1, lambda s: s.op("LOAD_CONST", 0)).op("POP_TOP")
    asm.op("LOAD_FAST", 0)
    if HOST == (3, 11):
        asm.op("PRECALL", 1)
    asm.op("CALL" if HOST >= (3, 11) else "CALL_FUNCTION", 1).op("RETURN_VALUE")
    code = asm.code(template, ["bookkeeping"])
    assert FALLBACK not in depyf.decompile(code, validate=False)
    r = decompile_report(code)
    assert r.verdicts == [("template", "equivalent")]
    assert FALLBACK not in r.source, r.source
    fn = types.FunctionType(code, {})
    namespace = {}
    exec(r.source, namespace)
    for args in [(1, print, len), (2, len, str)]:
        assert outcome(fn, *args) == outcome(namespace["template"], *args)



def test_what_the_fallback_wrote_is_not_compared(monkeypatch):
    """The fallback's text never compiles to the original's bytecode: the
    check compiles it (it must compile) but leaves its comparison out."""
    from depyf.verify import compare_code
    from test_fallback import loop_entered_in_the_middle
    compared = []
    real = compare_code.canonical_rows
    monkeypatch.setattr(compare_code, "canonical_rows",
                        lambda code, *a: compared.append(code.co_name) or real(code, *a))
    r = decompile_report(loop_entered_in_the_middle())
    assert r.verdicts == [("template", "fallback")]
    assert "unstructured" in r.fallbacks[0][1]
    assert "template" not in compared

# -- unverified ---------------------------------------------------------------------------------

def test_missing_interpreter_marks_every_def(tmp_path, monkeypatch):
    version = other_version()
    pyc = pyc_of(tmp_path, SAMPLE, version)
    monkeypatch.setattr(interpreters, "find_interpreter", lambda v: None)
    r = decompile_report(pyc)
    reason = "no Python %s to check against" % format_version(version)
    assert r.unverified == reason
    assert r.counts() == {"identical": 0, "equivalent": 0, "fallback": 0,
                          "unverified": r.code_objects}
    comment = "# depyf: unverified, " + reason
    lines = r.source.splitlines()
    assert comment in lines[0]
    defs = [line for line in lines if line.lstrip().startswith("def ")]
    assert len(defs) == 2 and all(line.endswith(comment) for line in defs)
    compile(r.source, "<marked>", "exec")
    assert comment not in decompile_report(pyc, validate=False).source


def test_mark_unverified_keeps_the_text_valid():
    text = ('@decorate\n'
            'async def f(a, b="""x\n'
            'y"""):\n'
            '    return a\n'
            'def g(x):  # keeps x\n'
            '    s = "def not_a_def"\n'
            '    return x\n')
    marked = verdicts.mark_unverified(text, "why")
    lines = marked.splitlines()
    assert lines[0] == "@decorate  # depyf: unverified, why"      # the top says so
    assert lines[1] == 'async def f(a, b="""x'                     # inside the string: not here
    assert lines[2] == 'y"""):  # depyf: unverified, why'
    assert lines[4] == "def g(x):  # keeps x  # depyf: unverified, why"
    assert lines[5] == '    s = "def not_a_def"'
    compile(marked, "<marked>", "exec")
    assert verdicts.mark_unverified("\n\nx = 1\n", "why").splitlines()[0] == \
        "# depyf: unverified, why"
    assert verdicts.mark_unverified('"""a\nb"""\n', "why").splitlines()[0] == \
        "# depyf: unverified, why"


def test_record_without_its_bytes_is_unverified():
    version = other_version()
    from depyf.verify.roundtrip import get_session
    record = get_session(version).compile_module("def f(x):\n    return x\n")
    nested = next(record.iter_code_consts())
    r = decompile_report(nested)
    assert r.unverified.startswith("its marshalled code is not at hand")
    assert "# depyf: unverified" in r.source.splitlines()[0]
    assert decompile_report(record).unverified is None


def test_paths_and_helpers():
    from depyf.bytecode import as_record
    from depyf.verify import compare_code
    code = compile(SAMPLE, "m.py", "exec")
    paths = validate.record_paths(as_record(code), "<module>")
    assert sorted(paths) == sorted(compare_code.collect(code)[0])
    assert {"<module>", "<module>/f#0", "<module>/K#0/m#0", "<module>/<lambda>#0"} <= set(paths)
    assert paths["<module>/K#0/m#0"].name == "m"
    assert verdicts.count_verdicts([("a", "fallback")])["fallback"] == 1
    assert verdicts.format_counts(verdicts.count_verdicts([])) == \
        "0 identical, 0 equivalent, 0 fallback, 0 unverified"
