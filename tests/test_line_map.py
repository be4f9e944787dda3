"""The decompiler's line map: which line of the readable text each instruction went into.

A breakpoint in a dumped transformed-code file stops where the instructions
made into that line run (depyf/dynamo/linemap.py gives Dynamo's code those
lines). The map must be exact: an instruction that names something (a
global, an attribute, a local) lands on a line that shows that name, and the
instructions of nested code objects, whose offsets mean nothing here, are
not in it.
"""
import dis
import sys

import pytest

from depyf.decompiler.api import decompile_report
from depyf.decompiler.readable import Readable
from depyf.dynamo import fullcode
from depyf.dynamo.linemap import statement_lines

NAMED = {"LOAD_GLOBAL", "LOAD_ATTR", "LOAD_METHOD", "LOAD_FAST", "LOAD_FAST_BORROW", "STORE_FAST",
         "STORE_ATTR", "LOAD_DEREF", "STORE_DEREF", "LOAD_NAME"}


def graph_like(a, b):
    y = helper(a.weight, b)
    if y.flag:
        z = y.left(a)
        return wrap(z, [b, 1])
    total = 0
    for item in y.items:
        total = total + item.size
    return finish(total, key=b)


def with_lambda(xs):
    keyed = sorted(xs, key=lambda v: v.rank)
    return keyed[0].name


def closure_maker(n):
    def bump(x):
        return x.scale * n
    return bump


def try_finally(a, b):
    try:
        x = a.go(b)
    finally:
        b.close()
    return x


def _map(fn):
    report = decompile_report(fn.__code__, layout="compact", enclose=False, readable=Readable(),
                              line_map=True)
    return report.source.splitlines(), report.line_map


def _named(code):
    for ins in dis.get_instructions(code):
        if ins.opname in NAMED and isinstance(ins.argval, str):
            yield ins.offset, ins.argval


def _names_on_their_lines(code, found, lines) -> int:
    """Check that each name-bearing instruction of ``code`` in the map
    ``found`` lands on a line of ``lines`` showing its name; how many did."""
    checked = 0
    for offset, name in _named(code):
        if offset in found:
            assert name in lines[found[offset] - 1], (offset, name, found[offset], "\n".join(lines))
            checked += 1
    return checked


@pytest.mark.parametrize("fn", [graph_like, with_lambda], ids=lambda f: f.__name__)
def test_each_named_instruction_lands_on_a_line_showing_its_name(fn):
    lines, found = _map(fn)
    assert found, "no line map for %s" % fn.__name__
    assert _names_on_their_lines(fn.__code__, found, lines) >= 5


def test_the_normal_way_out_of_a_finally_has_the_finally_lines():
    # 3.9+ compile the finally body twice: the copy on the normal way out is
    # the one that runs when nothing raises (a breakpoint there must stop)
    lines, found = _map(try_finally)
    close_line = next(n for n, text in enumerate(lines, 1) if "b.close()" in text)
    closes = [ins.offset for ins in dis.get_instructions(try_finally.__code__) if ins.argval == "close"]
    assert len(closes) == 2 and all(found.get(at) == close_line for at in closes), (closes, found)


def test_nested_code_is_left_out():
    lines, found = _map(with_lambda)
    own = {ins.offset for ins in dis.get_instructions(with_lambda.__code__)}
    assert set(found) <= own
    # (the lambda's offsets, which the outer code's overlap, marked nothing)
    keyed = next(n for n, text in enumerate(lines, 1) if "keyed = " in text)
    assert sorted(set(found.values())) == [keyed, keyed + 1]


def test_an_if_owns_its_jump():
    lines, found = _map(graph_like)
    jumps = [ins.offset for ins in dis.get_instructions(graph_like.__code__)
             if "JUMP_IF" in ins.opname or ins.opname.startswith("POP_JUMP")]
    if_line = next(n for n, text in enumerate(lines, 1) if text.strip().startswith("if "))
    assert found[jumps[0]] == if_line


def test_the_map_follows_the_cells_and_the_enclosing_maker():
    """keep_cells puts two lines into the body, enclose indents it under a
    maker: the map moves with the text."""
    code = closure_maker(2).__code__          # a free variable: enclosed
    lines = {}
    text, _ = fullcode.decompiled_as(code, "bump_again", readable=Readable(), lines=lines)
    assert lines
    _names_on_their_lines(code, lines, text.splitlines())
    outer = closure_maker.__code__            # a cell variable: kept as a cell
    lines = {}
    text, _ = fullcode.decompiled_as(outer, "maker_again", readable=Readable(), lines=lines)
    assert "__depyf_cells__" in text
    _names_on_their_lines(outer, lines, text.splitlines())


def test_the_faithful_form_has_no_map():
    lines = {}
    fullcode.decompiled_as(graph_like.__code__, "g", readable=None, lines=lines)
    assert lines == {}


def test_statement_lines_run_forward_and_keep_branches_apart():
    # a load moved into a later statement runs with the earlier one; what is
    # computed before a branch stays on the if's line; a run after a jump starts
    # at its first known line
    marked = [10, 9, None, 10, 12, 12, 11, None, 14, None, 13]
    how = [None, None, None, None, None, None, "branch", "jump", None, None, "return"]
    assert statement_lines(marked, how, 8) == [9, 9, 9, 10, 11, 11, 11, 11, 13, 13, 13]
    assert statement_lines([None, None], [None, "return"], 8) == [8, 8]
