"""Hypothesis strategies for the generated corpus (tests/generated_suite.py,
tools/fuzz_roundtrip.py).

* :func:`hypothesmith_programs`: hypothesmith's programs, from Python's
  grammar and from LibCST node types. Valid but odd (``for [] in '' < 0.:``),
  which is the point: they reach corners no person writes.
* :func:`structured_programs`: programs as people write them, made here:
  nests of defs, loops with break/continue/else, try/except/finally, with,
  comprehensions, conditional and boolean expressions over a few names.
  hypothesmith seldom nests control flow, where most decompiler bugs are.

Every program drawn compiles on the host (others are filtered, never findings).

Example::

    >>> from hypothesis import given
    >>> @given(structured_programs())
    ... def test(source):
    ...     compile(source, "<s>", "exec")
"""
from __future__ import annotations

from hypothesis import assume, strategies as st

from depyf.verify.host_trip import host_compile

NAMES = ("a", "b", "c", "x")
ATTRS = ("real", "attr", "append")
BINOPS = ("+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^", "@")
COMPARES = ("<", "<=", "==", "!=", ">", ">=", "is", "is not", "in", "not in")
AUGOPS = ("+=", "-=", "*=", "|=", "//=")


def compilable(source: str) -> str:
    """``source`` if the host compiles it; otherwise the example is dropped."""
    assume(host_compile(source) is not None)
    return source


def hypothesmith_programs():
    """hypothesmith's grammar programs and its LibCST programs (a whole
    module, or one compound statement of each kind); filtered by the host.

    match and except* nodes are left out: LibCST seldom builds ones that
    compile, so Hypothesis gives up on them.
    """
    import hypothesmith
    import libcst
    nodes = (libcst.Module, libcst.FunctionDef, libcst.ClassDef, libcst.For, libcst.While,
             libcst.If, libcst.Try, libcst.With)
    return st.one_of([hypothesmith.from_grammar()] +
                     [hypothesmith.from_node(n) for n in nodes]).map(compilable)


# --------------------------------------------------------------------------
# Programs people write


def _name(draw):
    return draw(st.sampled_from(NAMES))


def expression(draw, depth: int) -> str:
    """One expression of at most ``depth`` levels, parenthesized where nested."""
    leaves = ["name", "name", "int", "str", "none"]
    kinds = leaves if depth <= 0 else leaves + [
        "call", "attr", "subscript", "binop", "compare", "boolop", "not", "ifexp", "lambda",
        "list", "tuple", "dict", "set", "listcomp", "genexp", "dictcomp", "fstring", "starcall"]
    kind = draw(st.sampled_from(kinds))
    sub = lambda: expression(draw, depth - 1)  # noqa: E731
    if kind == "name":
        return _name(draw)
    if kind == "int":
        return str(draw(st.integers(-2, 300)))
    if kind == "str":
        return repr(draw(st.sampled_from(["", "s", "a b"])))
    if kind == "none":
        return draw(st.sampled_from(["None", "True", "False"]))
    if kind == "call":
        args = [sub() for _ in range(draw(st.integers(0, 2)))]
        if draw(st.booleans()):
            args.append("k=" + sub())
        return "%s(%s)" % (_name(draw), ", ".join(args))
    if kind == "starcall":
        return "%s(*%s, **%s)" % (_name(draw), sub(), sub())
    if kind == "attr":
        return "(%s).%s" % (sub(), draw(st.sampled_from(ATTRS)))
    if kind == "subscript":
        index = sub() if draw(st.booleans()) else "%s:%s" % (sub(), sub())
        return "(%s)[%s]" % (sub(), index)
    if kind == "binop":
        return "(%s %s %s)" % (sub(), draw(st.sampled_from(BINOPS)), sub())
    if kind == "compare":
        parts = [sub()]
        for _ in range(draw(st.integers(1, 2))):
            parts += [draw(st.sampled_from(COMPARES)), sub()]
        return "(%s)" % " ".join(parts)
    if kind == "boolop":
        op = draw(st.sampled_from([" and ", " or "]))
        return "(%s)" % op.join(sub() for _ in range(draw(st.integers(2, 3))))
    if kind == "not":
        return "(not %s)" % sub()
    if kind == "ifexp":
        return "(%s if %s else %s)" % (sub(), sub(), sub())
    if kind == "lambda":
        return "(lambda %s: %s)" % (_name(draw), sub())
    if kind == "list":
        return "[%s]" % ", ".join(sub() for _ in range(draw(st.integers(0, 3))))
    if kind == "tuple":
        return "(%s,)" % ", ".join(sub() for _ in range(draw(st.integers(1, 3))))
    if kind == "dict":
        return "{%s}" % ", ".join("%s: %s" % (sub(), sub()) for _ in range(draw(st.integers(0, 2))))
    if kind == "set":
        return "{%s}" % ", ".join(sub() for _ in range(draw(st.integers(1, 3))))
    if kind in ("listcomp", "genexp", "dictcomp"):
        var = _name(draw)
        cond = " if %s" % sub() if draw(st.booleans()) else ""
        clause = "for %s in %s%s" % (var, sub(), cond)
        if kind == "listcomp":
            return "[%s %s]" % (sub(), clause)
        if kind == "dictcomp":
            return "{%s: %s %s}" % (sub(), sub(), clause)
        return "(%s %s)" % (sub(), clause)
    # fstring
    return "f'{%s}-{%s!r}'" % (sub(), sub())


def _target(draw) -> str:
    kind = draw(st.sampled_from(["name", "name", "name", "unpack", "attr", "item"]))
    if kind == "unpack":
        return "%s, %s" % (_name(draw), _name(draw))
    if kind == "attr":
        return "%s.attr" % _name(draw)
    if kind == "item":
        return "%s[%s]" % (_name(draw), _name(draw))
    return _name(draw)


def statements(draw, depth: int, indent: str, in_loop: bool, in_def: bool) -> list:
    """A block: one to three statements, each a list of lines at ``indent``."""
    lines = []
    for _ in range(draw(st.integers(1, 3))):
        lines += statement(draw, depth, indent, in_loop, in_def)
    return lines


def statement(draw, depth: int, indent: str, in_loop: bool, in_def: bool) -> list:
    """The lines of one statement (compound ones nest while ``depth`` lasts)."""
    simple = ["assign", "assign", "augassign", "expr", "pass", "del", "raise", "assert"]
    if in_loop:
        simple += ["break", "continue"]
    if in_def:
        simple += ["return", "return", "yield"]
    compound = ["if", "if", "while", "for", "try", "with", "def", "class"]
    kind = draw(st.sampled_from(simple + (compound if depth > 0 else [])))
    e = lambda: expression(draw, draw(st.integers(0, 2)))  # noqa: E731
    body = lambda loop=in_loop, fn=in_def: statements(  # noqa: E731
        draw, depth - 1, indent + "    ", loop, fn)
    if kind == "assign":
        return [indent + "%s = %s" % (_target(draw), e())]
    if kind == "augassign":
        return [indent + "%s %s %s" % (_name(draw), draw(st.sampled_from(AUGOPS)), e())]
    if kind == "expr":
        return [indent + e()]
    if kind in ("pass", "break", "continue"):
        return [indent + kind]
    if kind == "del":
        return [indent + "del " + _name(draw)]
    if kind == "raise":
        return [indent + draw(st.sampled_from(["raise", "raise %s" % e(),
                                               "raise %s from %s" % (e(), e())]))]
    if kind == "assert":
        return [indent + "assert %s, %s" % (e(), e())]
    if kind == "return":
        return [indent + draw(st.sampled_from(["return", "return " + e()]))]
    if kind == "yield":
        return [indent + draw(st.sampled_from(["yield " + e(), "x = yield", "yield from " + e()]))]
    if kind == "if":
        lines = [indent + "if %s:" % e()] + body()
        for _ in range(draw(st.integers(0, 2))):
            lines += [indent + "elif %s:" % e()] + body()
        if draw(st.booleans()):
            lines += [indent + "else:"] + body()
        return lines
    if kind in ("while", "for"):
        head = "while %s:" % e() if kind == "while" else "for %s in %s:" % (_target(draw), e())
        lines = [indent + head] + body(loop=True)
        if draw(st.integers(0, 3)) == 0:
            lines += [indent + "else:"] + body()
        return lines
    if kind == "try":
        lines = [indent + "try:"] + body()
        handlers = draw(st.integers(0, 2))
        for i in range(handlers):
            clause = draw(st.sampled_from(["except:", "except Exception:",
                                           "except (ValueError, a) as %s:" % _name(draw)]))
            if clause == "except:" and i < handlers - 1:
                clause = "except ValueError:"  # a bare except must come last
            lines += [indent + clause] + body()
        if handlers and draw(st.booleans()):
            lines += [indent + "else:"] + body()
        if not handlers or draw(st.booleans()):
            lines += [indent + "finally:"] + body()
        return lines
    if kind == "with":
        items = ", ".join("%s as %s" % (e(), _name(draw)) if draw(st.booleans()) else e()
                          for _ in range(draw(st.integers(1, 2))))
        return [indent + "with %s:" % items] + body()
    if kind == "def":
        params = draw(st.sampled_from(["", "a", "a, b=1", "*a, b", "a, /, b", "a, *c, **b"]))
        deco = [indent + "@%s" % _name(draw)] if draw(st.integers(0, 3)) == 0 else []
        return deco + [indent + "def %s(%s):" % (draw(st.sampled_from(["f", "g"])), params)] + \
            statements(draw, depth - 1, indent + "    ", False, True)
    # class
    base = draw(st.sampled_from(["", "(a)", "(a, metaclass=b)"]))
    head = [indent + "class C%s:" % base]
    return head + statements(draw, depth - 1, indent + "    ", False, False)


@st.composite
def structured_programs(draw, depth: int = 3):
    """A module of one to four statements nested up to ``depth`` levels.

    Example::

        >>> structured_programs().example()      # doctest: +SKIP
        'for a in b:\\n    if a:\\n        break\\nelse:\\n    x = 1\\n'
    """
    lines = []
    for _ in range(draw(st.integers(1, 4))):
        lines += statement(draw, depth, "", False, False)
    return compilable("\n".join(lines) + "\n")
