"""The source renderer: round trips, line fidelity, target-version quoting,
the compat nodes, constants, and the same text on every host.

Checks against other interpreters run them from pyenv (3.8, 3.11, 3.12, 3.13)
and skip, saying why, when one is missing.
"""
import ast
import glob
import hashlib
import json
import math
import os
import struct
import subprocess
import sys
import warnings

import pytest

from depyf.decompiler import astcompat
from depyf.decompiler.astcompat import (ParamSpec, TryStar, TypeAlias, TypeVar, TypeVarTuple,
                                        make, with_type_params)
from depyf.decompiler.render import cleandoc_313, render
from depyf.verify.interpreters import find_interpreter

HOST = sys.version_info[:2]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STDLIB = os.path.dirname(ast.__file__)


def parse(src):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # invalid escapes in old test files
        return ast.parse(src)


def dump(tree):
    return ast.dump(tree, include_attributes=False)


def dump_fstring(tree):
    """``dump`` without empty literal parts, which some parsers (3.12.1) add
    to a format spec such as ``{x:{a}{b}}``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            node.values = [v for v in node.values
                           if not (isinstance(v, ast.Constant) and v.value == "")]
    return dump(tree)


def interpreter(version):
    exe = find_interpreter(version)
    if exe is None:
        pytest.skip("Python %s is not installed under pyenv" % version)
    return exe


def run_python(version, code, payload):
    """Run ``code`` under that interpreter with ``payload`` as JSON on stdin;
    its stdout parsed as JSON."""
    exe = interpreter(version)
    out = subprocess.run([exe, "-c", code], input=json.dumps(payload), capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


COMPILE_ALL = r"""
import json, sys, warnings
warnings.simplefilter("ignore")
results = []
for text, mode in json.loads(sys.stdin.read()):
    try:
        compile(text, "<rendered>", mode, dont_inherit=True)
        results.append(None)
    except SyntaxError as exc:
        results.append("%s: %s" % (type(exc).__name__, exc))
print(json.dumps(results))
"""


PARSE_ALL = r"""
import ast, json, sys, warnings
warnings.simplefilter("ignore")
results = []
for text in json.loads(sys.stdin.read()):
    try:
        ast.parse(text, mode="eval")
        results.append(None)
    except SyntaxError as exc:
        results.append("%s: %s" % (type(exc).__name__, exc))
print(json.dumps(results))
"""


def assert_compiles(version, texts, mode="exec"):
    errors = run_python(version, COMPILE_ALL, [[t, mode] for t in texts])
    failed = [(t, e) for t, e in zip(texts, errors) if e]
    assert not failed, "Python %s rejects:\n%s" % (version, "\n".join(
        "%s\n    -> %s" % (t, e) for t, e in failed))


# -- (a) round trips -----------------------------------------------------------------------

# (minimum host version, source). Every node type of 3.13's ast appears here.
SNIPPETS = [
    ((3, 8), "x = 1\ny = 2; z = 3\n\n\nif a: b\nelse: c\n"),
    ((3, 8), "def f(a, /, b=1, *c, d, e=2, **g) -> int:\n    '''doc\n    more'''\n"
             "    return (yield)\n"),
    ((3, 8), "@dec\n@dec2(1)\nclass A(B, *bs, metaclass=M, **kw):\n    x: int = 1\n"
             "    (y): int\n    z.a: int\n    w[0]: int = yield\n"),
    ((3, 8), "x = (-1) ** 2; y = -1 ** 2; z = (1).real; w = 2 ** -1; v = - -x; u = not not x\n"
             "t = (-x) ** y; s = (a ** b) ** c; r = a ** b ** c; q = ~-+x"),
    ((3, 8), "for x in *a, b: pass\nelse:\n    pass\nwhile (x := 1): pass\nfor x, *y in z: pass"),
    ((3, 8), "try:\n    pass\nexcept (A, B) as e:\n    raise X from e\nexcept E:\n    raise\n"
             "except:\n    pass\nelse:\n    pass\nfinally:\n    pass"),
    ((3, 8), "with a as b, c as (d, e): pass\nwith (a, b): pass\nwith (a, b) as c: pass\n"
             "async def f():\n    async with a: await x\n    async for i in y: pass\n"
             "    [i async for i in y]\n    await (a + b)\n    (await a).b\n    await a ** 2\n"),
    ((3, 10), "match x:\n    case 1 | 2: pass\n    case [a, *rest] if a > 0: pass\n"
              "    case {'k': v, 1: w, **kw}: pass\n    case P(1, y=2) as q: pass\n"
              "    case (1 | 2) as z: pass\n    case -1 | 1+2j | -1-2j | a.b.c: pass\n"
              "    case None | True | False: pass\n    case (a as b) | c: pass\n"
              "    case [*_]: pass\n    case (): pass\n    case {}: pass\n    case P(): pass\n"
              "    case ((a as b) as c): pass\n    case _: pass\n"),
    ((3, 8), "f'{x!r:>{w}} {y}' + f'a{{b}}c{d:%Y}'\nf\"it's {x}\"\nf'{x[\"a\"]}'\n"
             "f'{ {1: 2}[1] }'\nf'{(lambda: 1)()}'\nf'{(x := 1)}'\nf'{x!a}{y!s}'\nf''\n"
             "f'{3.14:{w}.{p}}'\nrf'\\d{x}'\nf'{x=}'\nf'''{'a\"b' + \"c'd\"}'''\n"),
    ((3, 8), "a[1:2, ::3]; a[1,]; a[()]; a[(x := 1)] if 0 else 0\nlambda: (yield)\n"
             "f(x for x in y)\nf(*a, **k, b=1)\nf((x for x in y), 1)\na[b:c:d, e]\na[:, None]"),
    ((3, 8), "from . import a\nfrom ..b.c import (d as e, f)\nimport x.y as z, w\n"
             "from .m import *\ndef g():\n    global q\n    def h():\n        nonlocal q\n"
             "del a, (b, c), d[1], [e]\nassert x, 'msg'\nassert (x, y)"),
    ((3, 8), "x = a if b else c if d else e\ny = (a if b else c) if d else e\n"
             "z = lambda x, *y, z=1, **k: x\nw = lambda *, a: a\nv = lambda a, /, b: 0\n"
             "u = (lambda: 0) if c else lambda: 1"),
    ((3, 8), "print(a,\n      b,\n      c)\nx = [\n    1,\n    2]\ny = a + \\\n    b\n"),
    ((3, 8), "x = 'a\\nb\\x00\\ud800\\u2028\\xe9\\U0001f600'\ny = b'\\x00\\'\"'\nz = u'x'\n"
             "w = '\\\\'\nv = \"'\"\nu = '\\'\"'\n"),
    ((3, 8), "class A:\n    def f(self): pass\n    def g(self): return 1\nx = 1\n"),
    ((3, 8), "x = {**a, 'b': 1}\ny = {*a, 1}\nz = {k: v for k, v in d.items() if k if v}\n"
             "w = [x for x in y for z in x]\nv = (x for x in (y if a else b))\n"
             "u = [x for x in (lambda: y)()]\nt = [*a, *b]\ns = {a: b}[a]\n"),
    ((3, 8), "a = b = c\na, b = c\n[a, b] = c\na, = b\n*a, b = c\na.b += 1\na[b] @= c\n"
             "x = yield\nx = yield from y\nx = *a, b\nreturn_ = (yield a, b)\n"),
    ((3, 8), "if a:\n    pass\nelif b:\n    pass\nelif c:\n    pass\nelse:\n    pass\n"
             "if a:\n    pass\nelse:\n    if b:\n        pass\n    x = 1\n"),
    ((3, 8), "a < b <= c != d\n(a < b) < c\nnot a in b\na not in b is not c\n"
             "a and b or c and not d\n(a or b) and c\na or (b or c)\n(a and b) and c\n"
             "a | b ^ c & d << e >> f + g - h * i / j // k % l @ m\n(a | b) & c\n"
             "a - (b - c)\n(a - b) - c\na / (b * c)\n-a.b\n(-a).b\n(a.b)()\n"),
    ((3, 8), "x = 1e309; y = -1e309; z = 1j; w = 10 ** 100; v = 0xFF; u = 1_000\n"
             "t = ...; s = None; r = True\nq = (1).real\np = 1.5.real\n"),
    ((3, 8), "def f():\n    '''Doc.\n\n    More.\n    '''\n    x = 1\n"
             "class C:\n    'single'\n"),
    ((3, 8), "if x: a; b; c\nfor i in x: pass\nelse: pass\nwhile x: break\nelse: continue\n"
             "try: a\nexcept: b\nfinally: c\ndef f(): return 1\nclass D: pass\n"),
    ((3, 9), "@a.b[0]\n@(lambda f: f)\ndef f(): pass\n"),
    ((3, 9), "x = a[b:=1, c]" if HOST >= (3, 10) else "x = a[(b:=1), c]"),
    ((3, 10), "with (open(a) as b, open(c) as d):\n    pass\n"),
    ((3, 11), "try:\n    pass\nexcept* (A, B) as e:\n    pass\nexcept* C:\n    pass\n"),
    ((3, 11), "a[*b]\na[*b, c]\ndef f(*args: *Ts): pass\n"),
    ((3, 12), "type X = int\ntype Y[T: int, *Ts, **P] = dict[T, P]\n"
              "def f[T](x: T) -> T: return x\nclass C[T: (int, str)](B): pass\n"
              "f\"{f\"{x!r}\"}\"\nf\"{'\\n'.join(a)}\"\nf'{x:{'>' if a else '<'}{w}}'\n"),
    ((3, 13), "type X[T = int, *Ts = *tuple[int], **P = [int]] = int\n"
              "def f[T: int = bool](): pass\n"),
]


def snippet_ids():
    return ["%d-%d.%d" % (i, *v) for i, (v, _) in enumerate(SNIPPETS)]


@pytest.mark.parametrize("layout", ["lines", "compact"])
@pytest.mark.parametrize("minimum,src", SNIPPETS, ids=snippet_ids())
def test_snippet_round_trip(minimum, src, layout):
    if HOST < minimum:
        pytest.skip("needs a %d.%d host to parse" % minimum)
    tree = parse(src)
    for target in sorted({HOST, (3, 8), (3, 12)}):
        text = render(tree, layout=layout, target=target)
        again = parse(text)
        if target >= (3, 13):
            again, tree = clean_docstrings(again), clean_docstrings(parse(src))
        assert dump(again) == dump(tree), text
    if layout == "lines":
        again = parse(render(tree))
        assert stmt_lines(again) == stmt_lines(tree)


def stdlib_sample():
    """~40 modules: a fixed core plus every k-th of the rest, by sorted name."""
    core = ["ast.py", "typing.py", "argparse.py", "dataclasses.py", "inspect.py",
            os.path.join("test", "test_grammar.py"), os.path.join("test", "test_patma.py")]
    chosen = [c for c in core if os.path.isfile(os.path.join(STDLIB, c))]
    rest = sorted(os.path.basename(p) for p in glob.glob(os.path.join(STDLIB, "*.py")))
    rest = [r for r in rest if r not in chosen]
    step = max(1, len(rest) // 33)
    chosen += rest[::step][:33]
    return chosen


SAMPLE = stdlib_sample()


def stmt_lines(tree):
    return [n.lineno for n in ast.walk(tree) if isinstance(n, ast.stmt)]


def clean_docstrings(tree):
    """Apply 3.13's compile-time docstring cleaning, as a 3.13 target allows."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                body[0].value.value = cleandoc_313(body[0].value.value)
    return tree


@pytest.fixture(scope="module")
def stdlib_results():
    """Per sample file: (statements, statements on their line); asserts the round trips."""
    results = {}
    for name in SAMPLE:
        with open(os.path.join(STDLIB, name), encoding="utf-8") as f:
            src = f.read()
        tree = parse(src)
        expected = dump(clean_docstrings(parse(src))) if HOST >= (3, 13) else dump(tree)
        for layout in ("lines", "compact"):
            text = render(tree, layout=layout, target=HOST)
            again = parse(text)
            got = dump(clean_docstrings(again)) if HOST >= (3, 13) else dump(again)
            assert got == expected, "%s (%s) does not round-trip" % (name, layout)
            if layout == "lines":
                want, have = stmt_lines(tree), stmt_lines(again)
                exprs = [(a.lineno, b.lineno) for a, b in zip(ast.walk(tree), ast.walk(again))
                         if isinstance(a, ast.expr)]
                results[name] = (len(want), sum(a == b for a, b in zip(want, have)),
                                 len(exprs), sum(a == b for a, b in exprs))
    return results


def test_stdlib_round_trip(stdlib_results):
    assert len(stdlib_results) >= 30


def test_stdlib_line_fidelity(stdlib_results):
    total, same, exprs, exprs_same = (sum(r[i] for r in stdlib_results.values())
                                      for i in range(4))
    assert total > 10000
    assert same / total >= 0.99, "%d of %d statements on their line" % (same, total)
    # Expressions too (those inside f-strings cannot move, the rest can).
    assert exprs_same / exprs >= 0.99, "%d of %d expressions" % (exprs_same, exprs)


# -- layout rules --------------------------------------------------------------------------

def stmt(cls, lineno=None, **fields):
    if lineno is not None:
        fields["lineno"] = lineno
    return make(cls, **fields)


def name(id_, lineno=None):
    return stmt(ast.Name, lineno, id=id_)


def assign(target, value, lineno=None):
    return stmt(ast.Assign, lineno, targets=[name(target)], value=make(ast.Constant, value=value))


def module(*body):
    return make(ast.Module, body=list(body))


def test_lines_places_statements_at_their_line():
    tree = module(assign("a", 1, 2), assign("b", 2, 2), assign("c", 3, 5), assign("d", 4),
                  assign("e", 5, 3))
    assert render(tree) == "\na = 1; b = 2\n\n\nc = 3\nd = 4\ne = 5\n"
    assert render(tree, layout="compact") == "a = 1\nb = 2\nc = 3\nd = 4\ne = 5\n"


def test_lines_joins_only_simple_statements_of_one_block():
    inner = stmt(ast.If, 1, test=name("x"), body=[assign("a", 1, 2)])
    tree = module(inner, assign("b", 2, 2))
    assert render(tree) == "if x:\n    a = 1\nb = 2\n"
    inline = stmt(ast.If, 1, test=name("x"), body=[assign("a", 1, 1), assign("b", 2, 1)],
                  orelse=[assign("c", 3, 2)])
    assert render(module(inline)) == "if x: a = 1; b = 2\nelse: c = 3\n"


def test_lines_clause_sits_above_its_first_statement():
    tree = module(stmt(ast.If, 1, test=name("x"), body=[assign("a", 1, 2)],
                       orelse=[assign("b", 2, 6)]))
    assert render(tree) == "if x:\n    a = 1\n\n\nelse:\n    b = 2\n"
    tree = module(stmt(ast.Try, 1, body=[assign("a", 1, 2)],
                       handlers=[make(ast.ExceptHandler, body=[assign("b", 2, 3)])],
                       finalbody=[assign("c", 3, 3)]))
    assert render(tree) == "try:\n    a = 1\nexcept: b = 2\nfinally:\n    c = 3\n"


def test_lines_decorators_and_def_lines():
    fn = stmt(ast.FunctionDef, 4, name="f", body=[stmt(ast.Pass, 5)],
              decorator_list=[name("a", 1), name("b", 3)])
    assert render(module(fn)) == "@a\n\n@b\ndef f():\n    pass\n"
    assert render(module(assign("x", 0, 1), fn, assign("y", 1, 6)), layout="compact") == \
        "x = 0\n\n@a\n@b\ndef f():\n    pass\n\ny = 1\n"


def test_lines_breaks_inside_brackets_and_with_backslash():
    call = make(ast.Call, func=name("f", 1), args=[name("a", 1), name("b", 3)], lineno=1)
    assert render(module(stmt(ast.Expr, 1, value=call))) == "f(a,\n\n    b)\n"
    binop = make(ast.BinOp, left=name("a", 1), op=ast.Add(), right=name("b", 2), lineno=1)
    text = render(module(stmt(ast.Expr, 1, value=binop)))
    assert text == "a \\\n    + b\n"
    assert ast.parse(text).body[0].value.right.lineno == 2
    # Never inside an f-string, never before a statement's first token.
    fstr = make(ast.JoinedStr, values=[make(ast.FormattedValue, value=name("x", 3))])
    assert render(module(stmt(ast.Expr, 1, value=fstr))) == "f'{x}'\n"
    assert render(module(stmt(ast.Expr, 1, value=name("x", 2)))) == "x\n"


def test_lines_docstring_uses_the_lines_it_has():
    doc = stmt(ast.Expr, 2, value=make(ast.Constant, value="One.\n\nTwo."))
    fn = stmt(ast.FunctionDef, 1, name="f", body=[doc, assign("x", 1, 5)])
    assert render(module(fn)) == 'def f():\n    """One.\n\nTwo."""\n    x = 1\n'
    fn = stmt(ast.FunctionDef, 1, name="f", body=[doc, assign("x", 1, 3)])
    assert render(module(fn)) == 'def f():\n    """One.\\n\\nTwo."""\n    x = 1\n'


def test_docstring_indented_for_313():
    doc = stmt(ast.Expr, value=make(ast.Constant, value="One.\n\nTwo:\n    three."))
    fn = stmt(ast.FunctionDef, name="f", body=[doc])
    cls = stmt(ast.ClassDef, name="C", body=[fn])
    text = render(module(cls), layout="compact", target=(3, 13))
    assert text == ('class C:\n    def f():\n        """One.\n\n        Two:\n'
                    '            three."""\n')
    assert "\n    Two" not in render(module(cls), layout="compact", target=(3, 12))
    got = run_python("3.13", "import json, sys\nns = {}\nexec(json.loads(sys.stdin.read()), ns)\n"
                     "print(json.dumps(ns['C'].f.__doc__))", text)
    assert got == "One.\n\nTwo:\n    three."


def test_render_accepts_statements_and_expressions():
    assert render(assign("x", 1)) == "x = 1\n"
    assert render([assign("x", 1), assign("y", 2)], layout="compact") == "x = 1\ny = 2\n"
    assert render(parse("a, b").body[0].value) == "a, b"
    assert render(ast.parse("(yield)", mode="eval")) == "(yield)"
    with pytest.raises(ValueError):
        render(module(), layout="wide")


# -- (c) f-strings for older targets -------------------------------------------------------

def fv(value, conversion=-1, spec=None):
    return make(ast.FormattedValue, value=value, conversion=conversion, format_spec=spec)


def js(*values):
    return make(ast.JoinedStr, values=list(values))


def const(value):
    return make(ast.Constant, value=value)


def call(func, *args):
    return make(ast.Call, func=func, args=list(args))


def attr(value, attr_):
    return make(ast.Attribute, value=value, attr=attr_)


def sub(value, index):
    return make(ast.Subscript, value=value, slice=index)


# 3.12-style f-strings built as trees, so any host can hold them.
FSTRINGS = {
    # f"{f"{x!r}"}"
    "nested-same-quote": js(fv(js(fv(name("x"), ord("r"))))),
    # f"{'\n'.join(items)}"
    "backslash-in-field": js(const("<"), fv(call(attr(const("\n"), "join"), name("items"))),
                             const(">")),
    # f"{d["k"]} {d["it's"]} it's"
    "both-quotes": js(fv(sub(name("d"), const("k"))), const(" "),
                      fv(sub(name("d"), const("it's"))), const(" it's")),
    # f'{x:{">" if left else "<"}{w}}'
    "nested-spec": js(fv(name("x"), spec=js(
        fv(make(ast.IfExp, test=name("left"), body=const(">"), orelse=const("<"))),
        fv(name("w"))))),
    # f"{f"{f"{f"{x}"}"}"}" (four levels)
    "deep": js(fv(js(fv(js(fv(js(fv(name("x"))))))))),
    # f"{'a"b' + "c'd"}"
    "mixed-literals": js(fv(make(ast.BinOp, left=const('a"b'), op=ast.Add(),
                                 right=const("c'd")))),
    # f"a{d["x'\""]}{d["y\"'"]}": each field fits only one outer quote
    "split": js(const("a"), fv(sub(name("d"), const("x'\""))),
                fv(sub(name("d"), const("y\"'")))),
    # f"{{}}{x!r:>{w}}{b'ab'}"
    "braces-and-bytes": js(const("{}"), fv(name("x"), ord("r"), js(const(">"), fv(name("w")))),
                           fv(const(b"ab"))),
}
NAMESPACE = {"x": 42, "items": ["a", "b"], "d": {"k": 1, "it's": 2, "x'\"": 3, "y\"'": 4},
             "left": True, "w": 6}

EVAL_ALL = r"""
import json, sys
texts, ns = json.loads(sys.stdin.read())
print(json.dumps([eval(compile(t, "<f>", "eval", dont_inherit=True), dict(ns)) for t in texts]))
"""


def host_value(tree):
    code = compile(ast.fix_missing_locations(ast.Expression(tree)), "<ast>", "eval")
    return eval(code, dict(NAMESPACE))


@pytest.mark.parametrize("version", ["3.8", "3.11", "3.12"])
def test_fstrings_compile_on_target(version):
    target = tuple(int(p) for p in version.split("."))
    texts = [render(tree, target=target) for tree in FSTRINGS.values()]
    for text, tree in zip(texts, FSTRINGS.values()):
        assert dump_fstring(ast.parse(text, mode="eval").body) == dump_fstring(tree), text
    got = run_python(version, EVAL_ALL, [texts, NAMESPACE])
    assert got == [host_value(tree) for tree in FSTRINGS.values()], texts


def test_fstring_quote_choices():
    assert render(FSTRINGS["nested-same-quote"], target=(3, 8)) == "f'{f\"{x!r}\"}'"
    assert render(FSTRINGS["backslash-in-field"], target=(3, 11)) == \
        "f'''<{\"\"\"\n\"\"\".join(items)}>'''"
    # Quotes the 3.8 rules cannot nest split into adjacent literals.
    assert render(FSTRINGS["split"], target=(3, 8)) == (
        "'a' f\"\"\"{d['''x'\"''']}\"\"\" f'''{d[\"\"\"y\"'\"\"\"]}'''")
    assert render(FSTRINGS["split"], target=(3, 12)) == render(FSTRINGS["split"])
    # A character no pre-3.12 field can hold: 3.12 spelling for 3.12 targets.
    nul = js(fv(call(attr(const("\0"), "join"), name("items"))))
    assert render(nul, target=(3, 12)) == "f'{'\\x00'.join(items)}'"


def test_fstrings_from_the_host_test_suite():
    """Every f-string of the host's test_fstring.py, rendered for 3.8."""
    path = os.path.join(STDLIB, "test", "test_fstring.py")
    if not os.path.isfile(path):
        pytest.skip("no test_fstring.py in this host's stdlib")
    with open(path, encoding="utf-8") as f:
        tree = parse(f.read())
    found = []

    def visit(node, inside):
        if isinstance(node, ast.JoinedStr) and not inside:
            found.append(node)
            inside = True
        for child in ast.iter_child_nodes(node):
            visit(child, inside)

    visit(tree, False)
    texts = [render(node, target=(3, 8)) for node in found]
    for text, node in zip(texts, found):
        assert dump_fstring(parse(text).body[0].value) == dump_fstring(node), text
    errors = run_python("3.8", PARSE_ALL, texts)
    failed = [(t, e) for t, e, node in zip(texts, errors, found)
              if e and "nested too deeply" not in e and not _needs_pep_701(node)]
    assert not failed


def _needs_pep_701(node) -> bool:
    """An f-string no version before 3.12 can spell: a string in a replacement
    field that needs a backslash (3.14's test_fstring.py has them)."""
    for part in ast.walk(node):
        if isinstance(part, ast.FormattedValue):
            for inner in ast.walk(part.value):
                if isinstance(inner, ast.Constant) and isinstance(inner.value, (str, bytes)) \
                        and "\\" in repr(inner.value):
                    return True
    return False


# -- (d) the compat nodes ------------------------------------------------------------------

def test_make_fills_defaults():
    fn = make(ast.FunctionDef, name="f", body=[make(ast.Pass)], lineno=3)
    assert fn.lineno == 3 and fn.returns is None and fn.decorator_list == []
    assert fn.args.posonlyargs == [] and fn.args.vararg is None
    assert fn.type_params == []
    assert make(ast.AnnAssign, target=name("x"), annotation=name("int")).simple == 1
    assert make(ast.ImportFrom, module="m", names=[]).level == 0
    assert isinstance(make(ast.Name, id="x").ctx, ast.Load)
    assert make(ast.FormattedValue, value=name("x")).conversion == -1
    with pytest.raises(TypeError):
        make(ast.Name, id="x", bogus=1)


def test_compat_classes():
    assert TypeVar._fields == ("name", "bound", "default_value")
    assert ParamSpec._fields == TypeVarTuple._fields == ("name", "default_value")
    assert TypeAlias._fields == ("name", "type_params", "value")
    assert TryStar._fields == ("body", "handlers", "orelse", "finalbody")
    assert issubclass(TypeAlias, ast.stmt) and issubclass(TryStar, ast.stmt)
    if HOST >= (3, 13):
        assert TypeVar is ast.TypeVar and TypeAlias is ast.TypeAlias
    if HOST >= (3, 11):
        assert TryStar is ast.TryStar
    assert make(TypeVar, name="T").default_value is None
    assert astcompat.HOST == HOST


def generic_module(defaults):
    tv = make(TypeVar, name="T", bound=name("int"),
              default_value=name("bool") if defaults else None, lineno=1)
    ts = make(TypeVarTuple, name="Ts", lineno=1,
              default_value=make(ast.Starred, value=sub(name("tuple"), name("int")))
              if defaults else None)
    ps = make(ParamSpec, name="P", default_value=make(ast.List, elts=[name("int")])
              if defaults else None, lineno=1)
    alias = make(TypeAlias, name=make(ast.Name, id="X", ctx=ast.Store()),
                 type_params=[tv, ts, ps], value=sub(name("dict"), name("T")), lineno=1)
    fn = with_type_params(make(ast.FunctionDef, name="f", lineno=2, body=[
        make(TryStar, lineno=3, body=[make(ast.Pass, lineno=4)],
             handlers=[make(ast.ExceptHandler, type=name("E"), name="e", lineno=5,
                            body=[make(ast.Pass, lineno=6)])])]),
        [make(TypeVar, name="U", lineno=2)])
    cls = with_type_params(make(ast.ClassDef, name="C", lineno=7, bases=[name("B")],
                                body=[make(ast.Pass, lineno=7)]),
                           [make(ParamSpec, name="Q", lineno=7)])
    return module(alias, fn, cls)


def test_compat_nodes_render():
    text = render(generic_module(defaults=False))
    assert text == ("type X[T: int, *Ts, **P] = dict[T]\ndef f[U]():\n    try:\n"
                    "        pass\n    except* E as e:\n        pass\nclass C[**Q](B): pass\n")
    text13 = render(generic_module(defaults=True))
    assert text13.startswith("type X[T: int = bool, *Ts = *tuple[int], **P = [int]] = dict[T]\n")
    assert_compiles("3.12", [text])
    assert_compiles("3.13", [text13])
    if HOST >= (3, 12):
        assert stmt_lines(parse(text)) == stmt_lines(generic_module(defaults=False))


# -- (e) constants -------------------------------------------------------------------------

NAN = float("nan")
CONSTANTS = [
    -1, -0.0, 0.0, 1.5, -1.5, float("inf"), -float("inf"), NAN, -NAN, 1e-300, 2 ** 64,
    10 ** 5000, -10 ** 5000, 1j, -1j, complex(-0.0, 1), complex(-0.0, -0.0), complex(0.0, -0.0),
    complex(1, 2), complex(-1, -2), complex(NAN, 1), complex(1, NAN), complex(-0.0, NAN),
    complex(float("inf"), -float("inf")), (1, -2, "a", (None,)), (), ("x",), ...,
    None, True, False, b"\x00'\"\\\xff", "a'b\"c\n\r\t\\\ud800\u2028\xe9\U0001f600\x7f",
    "'", '"', "'\"", "", b"",
]


def same_value(a, b):
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        if math.isnan(a):
            return math.isnan(b) and math.copysign(1, a) == math.copysign(1, b)
        return struct.pack("<d", a) == struct.pack("<d", b)
    if isinstance(a, complex):
        return same_value(a.real, b.real) and same_value(a.imag, b.imag)
    if isinstance(a, tuple):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    return a == b


def folded(text):
    """The value ``text`` compiles to, after constant folding."""
    code = compile(text, "<const>", "eval")
    assert not code.co_names, text  # no runtime name look-ups: a folded constant
    return eval(code)


@pytest.mark.parametrize("value", CONSTANTS, ids=lambda v: type(v).__name__)
def test_constant_recompiles_to_itself(value):
    node = const(value)
    assert same_value(folded(render(node)), value)
    small = not isinstance(value, int) or abs(value) < 100
    for wrap in (lambda c: make(ast.BinOp, left=c, op=ast.Pow(), right=const(2)),
                 lambda c: make(ast.BinOp, left=const(2), op=ast.Pow(),
                                right=c if small else const(0)),
                 lambda c: make(ast.UnaryOp, op=ast.USub(), operand=c),
                 lambda c: make(ast.BinOp, left=const(5), op=ast.Sub(), right=c),
                 lambda c: attr(c, "__class__")):
        tree = wrap(const(value))
        try:
            want = host_value(tree)
        except Exception as exc:  # e.g. bytes ** 2
            want = type(exc)
        text = render(tree)
        try:
            got = eval(compile(text, "<const>", "eval"))
        except Exception as exc:
            got = type(exc)
        assert same_value(got, want) or got is want, text


def test_constant_spellings():
    assert render(make(ast.BinOp, left=const(-1), op=ast.Pow(), right=const(2))) == "(-1) ** 2"
    assert render(attr(const(-1), "real")) == "(-1).real"
    assert render(attr(const(1), "real")) == "(1).real"
    assert render(make(ast.UnaryOp, op=ast.USub(), operand=const(-1))) == "- -1"
    assert render(const(float("inf"))) == "1e309"
    assert render(const(-float("inf"))) == "-1e309"
    assert render(const(NAN)) in ("(1e309-1e309)", "-(1e309-1e309)")
    assert render(const(complex(1, 2))) == "(1+2j)"
    assert render(const(frozenset({"b", "a"}))) == "{'a', 'b'}"
    assert render(const(10 ** 5000)).startswith("0x")
    assert render(const("it's")) == '"it\'s"'
    assert render(const("\U0001f600\xe9")) == "'\\U0001f600\xe9'"


# -- the same text on every host -----------------------------------------------------------

DETERMINISM = r"""
import ast, hashlib, json, sys, warnings
warnings.simplefilter("ignore")
sys.path.insert(0, %r)
from depyf.decompiler.render import render
out = []
for src in json.loads(sys.stdin.read()):
    tree = ast.parse(src)
    for target in [(3, 8), (3, 11), (3, 12), (3, 13)]:
        for layout in ["lines", "compact"]:
            text = render(tree, layout=layout, target=target)
            out.append(hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest())
print(json.dumps(out))
""" % os.path.join(ROOT, "src")


@pytest.mark.parametrize("version", ["3.10", "3.11", "3.12", "3.13"])
def test_same_text_on_every_host(version):
    sources = [src for minimum, src in SNIPPETS if minimum <= (3, 10)]
    for path in sorted(glob.glob(os.path.join(ROOT, "src", "depyf", "*.py")))[:4]:
        with open(path, encoding="utf-8") as f:
            sources.append(f.read())
    here = json.loads(subprocess.run([sys.executable, "-c", DETERMINISM],
                                     input=json.dumps(sources), capture_output=True, text=True,
                                     check=True).stdout)
    there = run_python(version, DETERMINISM, sources)
    assert there == here


DOCS_313 = r"""
import json, sys
out = []
for text in json.loads(sys.stdin.read()):
    ns = {}
    exec(compile(text, "<doc>", "exec", dont_inherit=True), ns)
    out.append([ns["f"].__doc__, ns["C"].__doc__, ns["C"].g.__doc__])
print(json.dumps(out))
"""


def test_docstrings_match_313_cleaning():
    """``cleandoc_313`` is what 3.13 compiles, and text rendered for 3.13 with
    indented docstrings compiles back to the same docstrings."""
    raw = []
    for name_ in ("argparse.py", "inspect.py", "typing.py"):
        with open(os.path.join(STDLIB, name_), encoding="utf-8") as f:
            tree = parse(f.read())
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                doc = ast.get_docstring(node, clean=False)
                if doc and "\n" in doc:
                    raw.append(doc)
    raw = raw[:150] + ["\tTab.\n\t  more", "  lead\n\n  x\n   y\n", "a\n \n  b"]

    def program(doc):
        def docnode():
            return stmt(ast.Expr, value=const(doc))
        g = stmt(ast.FunctionDef, name="g", body=[docnode()])
        return module(stmt(ast.FunctionDef, name="f", body=[docnode()]),
                      stmt(ast.ClassDef, name="C", body=[docnode(), g]))

    texts = [render(program(doc), layout="compact", target=(3, 12)) for doc in raw]
    got = run_python("3.13", DOCS_313, texts)
    assert got == [[cleandoc_313(d)] * 3 for d in raw]
    cleaned = [cleandoc_313(d) for d in raw]
    texts = [render(program(doc), layout="compact", target=(3, 13)) for doc in cleaned]
    assert sum('\n    ' in t.split('"""')[1] for t in texts) > 20  # indented ones
    assert run_python("3.13", DOCS_313, texts) == [[d] * 3 for d in cleaned]


def test_any_line_numbers_give_valid_text():
    """Scrambled line numbers (larger, smaller, missing) never break the syntax."""
    import random
    rng = random.Random(1)
    for name_ in ("argparse.py", "dataclasses.py", os.path.join("test", "test_patma.py")):
        path = os.path.join(STDLIB, name_)
        if not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8") as f:
            tree = parse(f.read())
        want = dump(tree)
        for node in ast.walk(tree):
            if getattr(node, "lineno", None) is not None:
                roll = rng.random()
                if roll < 0.1:
                    node.lineno = None
                elif roll < 0.3:
                    node.lineno += rng.randint(-3, 3)
                elif roll < 0.4:
                    node.lineno += rng.randint(0, 40)
                if rng.random() < 0.5:
                    node.end_lineno = None
        for target in ((3, 8), HOST):
            assert dump(parse(render(tree, target=target))) == want, name_


def test_render_fills_fields_a_bare_tree_lacks():
    # Built without make(): FunctionDef lacks decorator_list/returns..., Call its keywords.
    call = ast.Call(func=ast.Name(id="g", ctx=ast.Load()), args=[])
    fn = ast.FunctionDef(name="f", args=ast.arguments(), body=[ast.Return(value=call)])
    assert render(fn, layout="compact") == "def f():\n    return g()\n"


def test_compact_layout_gives_a_long_call_an_argument_a_line():
    """A call whose line would run past 100 characters (a graph called on a
    model's every parameter) is written an argument a line; short ones stay."""
    import depyf
    source = ("def f(model, x):\n"
              "    return g(model._parameters['first_weight'], model._parameters['first_bias'], x, "
              "model._parameters['second_weight'])\n")
    namespace = {}
    exec(compile(source, "<long>", "exec"), namespace)
    text = depyf.decompile(namespace["f"], layout="compact")
    lines = text.splitlines()
    assert lines[1] == "    return g(" and lines[-1] == "    )", text
    assert lines[2] == "        model._parameters['first_weight']," and len(lines) == 7, text
    assert max(len(line) for line in lines) <= 100
    compile(text, "<wrapped>", "exec")
    short = depyf.decompile(lambda a, b: g(a, b), layout="compact")      # noqa: F821
    assert "g(a, b)" in short
