"""``unrotated_loops``: 3.10-3.13's while loops, their test repeated at the
bottom of the body, brought to the top-tested form the structurer reads.

First on small hand-built op lists (what the pass rewrites, and what it must
leave alone), then on real code that each of those interpreters compiles.
"""
import doctest
import subprocess

import pytest

from depyf.bytecode import rotated_loops
from depyf.bytecode.ir import Function, Handler, Op
from depyf.bytecode.normalize import PASSES, normalize
from depyf.bytecode.pyc import read_pyc
from depyf.bytecode.rotated_loops import unrotated_loops
from depyf.decompiler.api import decompile_report
from depyf.verify.interpreters import find_interpreter
from test_generated_regressions import CASES

ROTATING = [(3, 10), (3, 11), (3, 12), (3, 13)]


def names(func):
    return [op.name for op in func.ops]


def valid(func):
    """Every jump and handler of ``func`` lands on one of its ops."""
    ops = set(map(id, func.ops))
    return all((op.target is None or id(op.target) in ops)
               and (op.handler is None or id(op.handler.target) in ops) for op in func.ops)


def test_the_docstring_example_holds():
    result = doctest.testmod(rotated_loops)
    assert result.attempted and not result.failed


def test_it_runs_where_the_compiler_rotates_loops():
    # (3.14 tests a while loop at its top only)
    for version in PASSES:
        assert ("unrotated_loops" in PASSES[version]) == (version in ROTATING)


# -- hand-built ops -------------------------------------------------------------------

def loop(test, body, after=None, line=1):
    """``while <test>: <body>`` as 3.11 lays it out: ``test`` makes the ops of
    a one-operand test (without its jump), called twice; ``body`` the body's
    ops. Returns (func, top test's first op, body's first op, exit op)."""
    exit_ = after or Op("LOAD_CONST", None, line=9)
    top, bottom = test(), test()
    ops_body = body()
    for op in top + bottom:
        op.line = line
    ops = top + [Op("POP_JUMP_IF_FALSE", target=exit_, line=line)] + ops_body + bottom \
        + [Op("POP_JUMP_IF_TRUE", target=ops_body[0], line=line), exit_,
           Op("RETURN_VALUE", line=exit_.line)]
    return Function(None, ops), top[0], ops_body[0], exit_


def call_a():
    return [Op("PUSH_NULL"), Op("LOAD_FAST", "a"), Op("CALL", (0, (), 2))]


def call_b():
    return [Op("PUSH_NULL", line=3), Op("LOAD_FAST", "b", line=3), Op("CALL", (0, (), 2), line=3)]


def g_call():
    return [Op("PUSH_NULL", line=2), Op("LOAD_GLOBAL", "g", line=2),
            Op("CALL", (0, (), 2), line=2), Op("POP_TOP", line=2)]


def test_the_bottom_test_goes_and_the_jump_back_reaches_the_top_test():
    func, top, body, exit_ = loop(call_a, g_call)
    unrotated_loops(func, None)
    assert names(func) == ["PUSH_NULL", "LOAD_FAST", "CALL", "POP_JUMP_IF_FALSE",
                           "PUSH_NULL", "LOAD_GLOBAL", "CALL", "POP_TOP", "JUMP",
                           "LOAD_CONST", "RETURN_VALUE"]
    back = func.ops[8]
    assert back.target is top and back.line == 1     # (the test's line, which it takes)
    assert id(back) in func.rebuilt_jumps_back
    assert func.ops[3].target is exit_ and valid(func)


def test_an_and_test_repeats_with_its_inner_jumps():
    # while a and b: g()
    exit_ = Op("LOAD_CONST", None, line=9)
    body = g_call()
    ops = [Op("LOAD_FAST", "a", line=1), Op("POP_JUMP_IF_FALSE", target=exit_, line=1),
           Op("LOAD_FAST", "b", line=1), Op("POP_JUMP_IF_FALSE", target=exit_, line=1)] + body + [
        Op("LOAD_FAST", "a", line=1), Op("POP_JUMP_IF_FALSE", target=exit_, line=1),
        Op("LOAD_FAST", "b", line=1), Op("POP_JUMP_IF_TRUE", target=body[0], line=1),
        exit_, Op("RETURN_VALUE", line=9)]
    func = Function(None, ops)
    unrotated_loops(func, None)
    assert names(func)[4:] == ["PUSH_NULL", "LOAD_GLOBAL", "CALL", "POP_TOP", "JUMP",
                               "LOAD_CONST", "RETURN_VALUE"]
    assert func.ops[8].target is ops[0] and valid(func)


def test_an_or_test_jumps_into_the_body_from_both_copies():
    # while a or b: g()
    exit_ = Op("LOAD_CONST", None, line=9)
    body = g_call()
    ops = [Op("LOAD_FAST", "a", line=1), Op("POP_JUMP_IF_TRUE", target=body[0], line=1),
           Op("LOAD_FAST", "b", line=1), Op("POP_JUMP_IF_FALSE", target=exit_, line=1)] + body + [
        Op("LOAD_FAST", "a", line=1), Op("POP_JUMP_IF_TRUE", target=body[0], line=1),
        Op("LOAD_FAST", "b", line=1), Op("POP_JUMP_IF_TRUE", target=body[0], line=1),
        exit_, Op("RETURN_VALUE", line=9)]
    func = Function(None, ops)
    unrotated_loops(func, None)
    assert names(func).count("LOAD_FAST") == 2 and func.ops[8].target is ops[0]
    assert func.ops[1].target is body[0] and valid(func)


def conditional_operand():
    """``f(a if c else b)``: the jump over the other value stays inside the test."""
    b = Op("LOAD_FAST", "b")
    call = Op("CALL", (1, (), 2))
    return [Op("PUSH_NULL"), Op("LOAD_FAST", "f"), Op("LOAD_FAST", "c"),
            Op("POP_JUMP_IF_FALSE", target=b), Op("LOAD_FAST", "a"), Op("JUMP", target=call),
            b, call]


def test_a_conditional_expression_in_the_test_repeats_with_its_inner_jumps():
    # while f(a if c else b): g()
    func, top, body, exit_ = loop(conditional_operand, g_call)
    unrotated_loops(func, None)
    assert names(func)[8:] == ["POP_JUMP_IF_FALSE", "PUSH_NULL", "LOAD_GLOBAL", "CALL", "POP_TOP",
                               "JUMP", "LOAD_CONST", "RETURN_VALUE"]
    assert func.ops[13].target is top and valid(func)
    # (the top copy's own jumps are untouched)
    assert func.ops[3].target is func.ops[6] and func.ops[5].target is func.ops[7]


def test_an_assignment_expression_in_the_test_is_part_of_it():
    # while (x := f()) is not None: g()
    def walrus():
        return [Op("PUSH_NULL"), Op("LOAD_GLOBAL", "f"), Op("CALL", (0, (), 2)),
                Op("COPY", 1), Op("STORE_FAST", "x")]
    exit_ = Op("LOAD_CONST", None, line=9)
    top, bottom, body = walrus(), walrus(), g_call()
    for op in top + bottom:
        op.line = 1
    ops = top + [Op("POP_JUMP_IF_NONE", target=exit_, line=1)] + body + bottom + [
        Op("POP_JUMP_IF_NOT_NONE", target=body[0], line=1), exit_, Op("RETURN_VALUE", line=9)]
    func = Function(None, ops)
    unrotated_loops(func, None)
    assert names(func).count("STORE_FAST") == 1 and func.ops[10].name == "JUMP"
    assert func.ops[10].target is top[0] and valid(func)


def test_a_branch_that_went_to_the_bottom_test_goes_to_the_jump_back():
    # while a(): if b: c() else: d()    (3.10+ does not thread the jump over
    # the else: it lands on the bottom test)
    exit_ = Op("LOAD_CONST", None, line=9)
    top, bottom = call_a(), call_a()
    other = Op("LOAD_GLOBAL", "d", line=5)
    over = Op("JUMP", line=3)
    body = [Op("LOAD_FAST", "b", line=2), Op("POP_JUMP_IF_FALSE", target=other, line=2),
            Op("LOAD_GLOBAL", "c", line=3), Op("POP_TOP", line=3), over,
            other, Op("POP_TOP", line=5)]
    over.target = bottom[0]
    ops = top + [Op("POP_JUMP_IF_FALSE", target=exit_)] + body + bottom + [
        Op("POP_JUMP_IF_TRUE", target=body[0]), exit_, Op("RETURN_VALUE")]
    func = Function(None, ops)
    unrotated_loops(func, None)
    back = func.ops[-3]
    assert back.name == "JUMP" and back.target is top[0]
    assert over.target is back and id(over) not in func.jump_statements and valid(func)


def test_a_continue_jumps_to_the_top_test_as_a_statement():
    # while a(): if b: continue; g()
    exit_ = Op("LOAD_CONST", None, line=9)
    top, bottom = call_a(), call_a()
    rest = g_call()
    cont = Op("JUMP", target=top[0], line=3)
    body = [Op("LOAD_FAST", "b", line=2), Op("POP_JUMP_IF_FALSE", target=rest[0], line=2),
            cont] + rest
    ops = top + [Op("POP_JUMP_IF_FALSE", target=exit_)] + body + bottom + [
        Op("POP_JUMP_IF_TRUE", target=body[0]), exit_, Op("RETURN_VALUE")]
    func = Function(None, ops)
    unrotated_loops(func, None)
    assert cont.target is top[0] and id(cont) in func.jump_statements
    assert func.ops[-3].target is top[0] and id(func.ops[-3]) not in func.jump_statements


def test_a_continue_in_an_except_clause_laid_out_after_the_loop():
    # while a(): try: g() except: continue   (3.11+ lays the handler out last)
    exit_ = Op("LOAD_CONST", None, line=9)
    top, bottom = call_a(), call_a()
    entry = Op("PUSH_EXC_INFO")
    body = g_call()
    for op in body:
        op.handler = Handler(entry, 0, False)
    cont = Op("JUMP", target=top[0], line=4)
    handler_code = [entry, Op("POP_TOP", line=3), Op("POP_EXCEPT", line=4), cont]
    ops = top + [Op("POP_JUMP_IF_FALSE", target=exit_)] + body + bottom + [
        Op("POP_JUMP_IF_TRUE", target=body[0]), exit_, Op("RETURN_VALUE")] + handler_code
    func = Function(None, ops)
    unrotated_loops(func, None)
    assert cont.target is top[0] and id(cont) in func.jump_statements
    assert "LOOP_TOP" not in names(func) and valid(func)


def test_an_enclosing_while_true_gets_a_head_of_its_own():
    # while True: (while a(): g()); h()    both loops would jump back to a()
    top, bottom = call_a(), call_a()
    for op in top + bottom:
        op.line = 2
    body = g_call()
    body[0].line = 3
    after = Op("LOAD_GLOBAL", "h", line=4)
    outer_back = Op("JUMP", target=top[0], line=1)   # (on the `while True:` line)
    ops = top + [Op("POP_JUMP_IF_FALSE", target=after, line=2)] + body + bottom + [
        Op("POP_JUMP_IF_TRUE", target=body[0], line=2), after, Op("POP_TOP", line=4),
        outer_back]
    func = Function(None, ops)
    unrotated_loops(func, None)
    assert func.ops[0].name == "LOOP_TOP" and outer_back.target is func.ops[0]
    assert func.ops[0].line == 1
    inner_back = func.ops[func.ops.index(after) - 1]
    assert inner_back.name == "JUMP" and inner_back.target is top[0] and valid(func)


def test_a_rotated_loop_around_this_one_needs_no_head_of_its_own():
    # while a(): (while b(): g()); h()   the outer loop's bottom test jumped
    # back to the inner test, its body's start: it goes, the outer jump back
    # reaches the outer test
    exit_ = Op("LOAD_CONST", None, line=9)
    outer_top, outer_bottom = call_a(), call_a()
    inner_top, inner_bottom = call_b(), call_b()
    inner_body = g_call()
    rest = [Op("LOAD_GLOBAL", "h", line=4), Op("POP_TOP", line=4)]
    ops = outer_top + [Op("POP_JUMP_IF_FALSE", target=exit_, line=1)] \
        + inner_top + [Op("POP_JUMP_IF_FALSE", target=rest[0], line=3)] + inner_body \
        + inner_bottom + [Op("POP_JUMP_IF_TRUE", target=inner_body[0], line=3)] + rest \
        + outer_bottom + [Op("POP_JUMP_IF_TRUE", target=inner_top[0], line=1), exit_,
                          Op("RETURN_VALUE", line=9)]
    func = Function(None, ops)
    unrotated_loops(func, None)
    assert "LOOP_TOP" not in names(func) and names(func).count("CALL") == 3
    backs = [op for op in func.ops if op.name == "JUMP"]
    assert [op.target for op in backs] == [inner_top[0], outer_top[0]] and valid(func)


def test_copies_of_the_closing_return_are_one_way_out():
    # 3.10+ copies `return None` onto the top test's way out: one exit, the
    # copy, which nothing reaches any more, dropped (its line is the jump's)
    func, top, body, exit_ = loop(call_a, g_call)
    copy = [Op("LOAD_CONST", None, line=1), Op("RETURN_VALUE", line=1)]
    func.ops[3].target = copy[0]
    func.ops += copy
    unrotated_loops(func, None)
    assert func.ops[3].target is exit_ and names(func)[-2:] == ["LOAD_CONST", "RETURN_VALUE"]
    assert len(func.ops) == 11 and valid(func)


def test_the_3_12_form_with_a_jump_back_after_the_test():
    # c; POP_JUMP_IF_FALSE X; JUMP L; X:   (backward_conditional_jumps left it)
    exit_ = Op("LOAD_CONST", None, line=9)
    top, bottom, body = call_a(), call_a(), g_call()
    ops = top + [Op("POP_JUMP_IF_FALSE", target=exit_)] + body + bottom + [
        Op("POP_JUMP_IF_FALSE", target=exit_), Op("JUMP", target=body[0]), exit_,
        Op("RETURN_VALUE")]
    func = Function(None, ops)
    unrotated_loops(func, None)
    assert names(func)[-3:] == ["JUMP", "LOAD_CONST", "RETURN_VALUE"]
    assert func.ops[-3].target is top[0] and valid(func)


# -- what it leaves alone -------------------------------------------------------------

def unchanged(func):
    before = [(op.name, op.target) for op in func.ops]
    unrotated_loops(func, None)
    return [(op.name, op.target) for op in func.ops] == before


def test_a_bottom_test_on_other_lines_is_not_the_top_one():
    func, *_ = loop(call_a, g_call)
    for op in func.ops[7:10]:
        op.line = 7
    assert unchanged(func)


def test_a_test_that_differs_is_left_alone():
    func, *_ = loop(call_a, g_call)
    func.ops[8].arg = "b"
    assert unchanged(func)


def test_a_jump_into_the_bottom_test_leaves_the_loop_alone():
    func, top, body, exit_ = loop(call_a, g_call)
    func.ops[5].name = "POP_JUMP_IF_TRUE"       # (a jump past the bottom test's first op)
    func.ops[5].target = func.ops[9]
    assert unchanged(func)


def test_inner_jumps_that_go_different_ways_leave_the_loop_alone():
    # the top test's `a` leaves, the bottom one's goes into the body: no one test
    exit_ = Op("LOAD_CONST", None, line=9)
    body = g_call()
    ops = [Op("LOAD_FAST", "a", line=1), Op("POP_JUMP_IF_FALSE", target=exit_, line=1),
           Op("LOAD_FAST", "b", line=1), Op("POP_JUMP_IF_FALSE", target=exit_, line=1)] + body + [
        Op("LOAD_FAST", "a", line=1), Op("POP_JUMP_IF_TRUE", target=body[0], line=1),
        Op("LOAD_FAST", "b", line=1), Op("POP_JUMP_IF_TRUE", target=body[0], line=1),
        exit_, Op("RETURN_VALUE", line=9)]
    assert unchanged(Function(None, ops))


def test_a_statement_before_the_loop_like_the_bodys_last_is_not_the_test():
    # x = f(); while x: ...; x = f()   the stores repeat, on other lines
    def load_x():
        return [Op("LOAD_FAST", "x")]

    def body():
        return [Op("LOAD_GLOBAL", "f", line=3), Op("CALL", (0, (), 2), line=3),
                Op("STORE_FAST", "x", line=3)]
    func, top, _, _ = loop(load_x, body)
    func.ops[:0] = [Op("LOAD_GLOBAL", "f", line=1), Op("CALL", (0, (), 2), line=1),
                    Op("STORE_FAST", "x", line=1)]
    for op in func.ops[3:]:
        if op.line == 1:
            op.line = 2
    unrotated_loops(func, None)
    assert names(func)[:5] == ["LOAD_GLOBAL", "CALL", "STORE_FAST", "LOAD_FAST",
                               "POP_JUMP_IF_FALSE"]
    assert func.ops[-3].name == "JUMP" and func.ops[-3].target is top


# -- real code ------------------------------------------------------------------------

SOURCE = '''\
def plain(a):
    while a():
        g()

def and_or(a, b, c):
    while a and (b() or c):
        g()
    return 1

def walrus(f):
    while (x := f()) is not None:
        g(x)

def none_test(node):
    while node is not None:
        node = node.next

def continue_break_else(a, b, c):
    while a():
        if b():
            continue
        if c():
            break
        g()
    else:
        h()
    return 2

def if_else_ends_the_body(a, b):
    while a():
        if b():
            g()
        else:
            h()

def nested(a, b):
    while a():
        while b():
            g()
        h()

def continue_in_except(a):
    while a():
        try:
            g()
        except E:
            continue
        h()

def while_true_around(lines, it):
    while True:
        while len(lines) < 4:
            lines.append(next(it))
        if lines[0]:
            return lines
'''


def compiled(version, tmp_path, text=SOURCE):
    python = find_interpreter(version)
    if python is None:
        pytest.skip("no Python %d.%d interpreter" % version)
    source, pyc = tmp_path / "m.py", tmp_path / "m.pyc"
    source.write_text(text)
    subprocess.run([python, "-c", "import py_compile, sys; "
                    "py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)",
                    str(source), str(pyc)], check=True)
    return read_pyc(str(pyc)).code


@pytest.mark.parametrize("version", ROTATING, ids=lambda v: "%d.%d" % v)
def test_real_loops_come_out_top_tested(version, tmp_path):
    module = compiled(version, tmp_path)
    for record in module.walk():
        if record.name == "<module>":
            continue
        func = normalize(record)
        assert valid(func), record.name
        # each while loop jumps back to its test with a JUMP; only a
        # `continue` statement may jump back conditionally
        for op in func.ops:
            if op.target is not None and op.target.index <= op.index and op.name != "JUMP":
                assert id(op) in func.jump_statements, (record.name, op)
        assert all(rotated_loops.rotated_loop(func.ops, op) is None for op in func.ops)
        # (only an enclosing `while True` needs a head of its own)
        assert ("LOOP_TOP" in names(func)) == (record.name == "while_true_around")


@pytest.mark.parametrize("version", ROTATING, ids=lambda v: "%d.%d" % v)
def test_real_loops_decompile_to_the_same_code(version, tmp_path):
    report = decompile_report(compiled(version, tmp_path))
    assert report.fallbacks == [] and report.unverified is None
    assert {verdict for _, verdict in report.verdicts} == {"identical"}, report.verdicts


@pytest.mark.parametrize("version", ROTATING, ids=lambda v: "%d.%d" % v)
def test_while_true_whose_body_starts_with_an_if_stays_while_true(version, tmp_path):
    # (transformers' hp_naming, a regression case) The if's jumps look like a
    # test at the loop's top; the NOP of the `while True:` line says there is none.
    case = next(c for c in CASES if c.name == "tp_while_true_if_continue_else_break")
    report = decompile_report(compiled(version, tmp_path, case.source))
    assert report.fallbacks == [], report.source
    assert {verdict for _, verdict in report.verdicts} <= {"identical", "equivalent"}, report.verdicts
    assert "while True:" in report.source and "while x" not in report.source
