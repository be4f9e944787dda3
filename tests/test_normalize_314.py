"""The passes that bring 3.14's and 3.15's spellings into the IR, each on
small hand-built op lists: what each rewrites, and what it must leave alone."""
import ast
import types

import pytest

from depyf.bytecode.inlined_calls import inlined_builtin_calls
from depyf.bytecode.ir import Function, Handler, Op
from depyf.bytecode.iterator_pairs import iterator_pairs
from depyf.bytecode.normalize import (adjacent_jumps, annotation_marks, send_loops,
                                      backward_conditional_jumps, closing_jumps_back, dead_loop_tails,
                                      nested_loop_tops,
                                      unfolded_not_jumps,
                                      unthread_short_circuit_pops)
from depyf.bytecode.special_lookups import with_specials
from depyf.bytecode.versions import get_table
from depyf.decompiler.deferred_annotations import (AnnotationMark, DeferredAnnotations,
                                                   fold_deferred_annotations)
from depyf.decompiler.failure import DecompileFailure

T314, T315 = get_table((3, 14)), get_table((3, 15))


def names(func):
    return [op.name for op in func.ops]


def prologue():
    return [Op("LOAD_FAST", "cm"), Op("COPY", 1), Op("LOAD_SPECIAL", 1), Op("SWAP", 2),
            Op("SWAP", 3), Op("LOAD_SPECIAL", 0), Op("CALL", 0)]


def nones_call():
    return [Op("LOAD_CONST", None) for _ in range(3)] + [Op("CALL", 3), Op("POP_TOP")]


def with_handler():
    return [Op("PUSH_EXC_INFO"), Op("WITH_EXCEPT_START"), Op("POP_EXCEPT"), Op("POP_TOP"),
            Op("POP_TOP"), Op("POP_TOP"), Op("RETURN_VALUE")]


# -- with statements ------------------------------------------------------------------

def test_a_call_with_three_nones_in_the_body_is_not_an_exit():
    handler = with_handler()
    w = Handler(handler[0], 2, True)
    body = [Op("LOAD_GLOBAL", "f"), Op("PUSH_NULL")] + nones_call()
    for op in [Op("POP_TOP")] + body:
        op.handler = w
    ops = prologue() + [Op("POP_TOP", handler=w)] + body + nones_call() + handler
    func = Function(None, ops)
    with_specials(func, T314)
    calls = [op.arg for op in func.ops if op.name == "CALL"]
    assert calls == [3, 2]       # the user's call keeps its three arguments; the exit has two
    assert w.depth == 1


def test_handlers_inside_two_withs_lose_two_items():
    outer_h, inner_h = with_handler(), with_handler()
    w1 = Handler(outer_h[0], 2, True)
    w2 = Handler(inner_h[0], 4, True)
    inner_body = [Op("LOAD_GLOBAL", "g", handler=w2), Op("POP_TOP", handler=w2)]
    ops = prologue() + [Op("POP_TOP", handler=w1)] + [
        Op("LOAD_FAST", "cm2", handler=w1), Op("COPY", 1, handler=w1),
        Op("LOAD_SPECIAL", 1, handler=w1), Op("SWAP", 2, handler=w1), Op("SWAP", 3, handler=w1),
        Op("LOAD_SPECIAL", 0, handler=w1), Op("CALL", 0, handler=w1),
        Op("POP_TOP", handler=w2)] + inner_body + nones_call() + nones_call() + inner_h + outer_h
    # the inner handler's own code is covered by its clean-up, whose code runs
    # inside the outer with
    cleanup = [Op("COPY", 3, handler=w1), Op("POP_EXCEPT", handler=w1), Op("RERAISE", 1, handler=w1)]
    c2 = Handler(cleanup[0], 6, True)
    for op in inner_h:
        op.handler = c2
    func = Function(None, ops + cleanup)
    with_specials(func, T314)
    assert names(func).count("BEFORE_WITH") == 2
    assert (w1.depth, w2.depth, c2.depth) == (1, 2, 4)


# -- inlined builtin calls ------------------------------------------------------------

def inlined(jump_in=False):
    call = [Op("PUSH_NULL"), Op("LOAD_FAST", "g"), Op("CALL", 1), Op("RETURN_VALUE")]
    fast = [Op("POP_TOP"), Op("LOAD_CONST", True), Op("RETURN_VALUE")]
    ops = [Op("LOAD_GLOBAL", "all"), Op("COPY", 1), Op("LOAD_COMMON_CONSTANT", "all"),
           Op("IS_OP", 0), Op("POP_JUMP_IF_FALSE", target=call[0])] + fast + call
    if jump_in:
        ops.append(Op("JUMP", target=fast[1]))
    return Function(None, ops)


def test_the_fast_path_goes():
    func = inlined()
    inlined_builtin_calls(func, T314)
    assert names(func) == ["LOAD_GLOBAL", "PUSH_NULL", "LOAD_FAST", "CALL", "RETURN_VALUE"]


def test_a_fast_path_something_else_jumps_into_stays():
    func = inlined(jump_in=True)
    before = names(func)
    inlined_builtin_calls(func, T314)
    assert names(func) == before


def test_a_check_against_another_name_stays():
    func = inlined()
    func.ops[0].arg = "any"          # loads any, checks against all: not the idiom
    before = names(func)
    inlined_builtin_calls(func, T314)
    assert names(func) == before


# -- loops ----------------------------------------------------------------------------

def test_the_closing_jump_comes_back_where_the_body_ends():
    head = Op("LOAD_GLOBAL", "a")
    ops = [head, Op("POP_TOP"), Op("LOAD_FAST", "x"), Op("POP_JUMP_IF_FALSE", target=head),
           Op("LOAD_GLOBAL", "E"), Op("RAISE_VARARGS", 1)]
    func = Function(None, ops)
    closing_jumps_back(func, T314)
    assert names(func) == ["LOAD_GLOBAL", "POP_TOP", "LOAD_FAST", "POP_JUMP_IF_FALSE",
                           "LOAD_GLOBAL", "RAISE_VARARGS", "JUMP"]
    assert func.ops[3].target is func.ops[6] and func.ops[6].target is head


def test_a_continue_statement_is_left_alone():
    head = Op("LOAD_GLOBAL", "a")
    test = Op("POP_JUMP_IF_FALSE", target=head)
    ops = [head, Op("POP_TOP"), Op("LOAD_FAST", "x"), test, Op("LOAD_GLOBAL", "E"),
           Op("RAISE_VARARGS", 1)]
    func = Function(None, ops)
    func.jump_statements.add(id(test))
    closing_jumps_back(func, T314)
    assert "JUMP" not in names(func)


def test_a_body_ending_in_the_closing_jump_is_left_alone():
    # `while a: ...; if m: t = s`, whose false way 3.14 lays out first:
    # after backward_conditional_jumps it is already 3.13's shape.
    head = Op("LOAD_GLOBAL", "a")
    ops = [head, Op("POP_TOP"), Op("LOAD_FAST", "m"),
           Op("POP_JUMP_IF_FALSE", target=head), Op("LOAD_FAST", "s"), Op("STORE_FAST", "t"),
           Op("JUMP", target=head)]
    func = Function(None, ops)
    closing_jumps_back(func, T314)
    assert names(func).count("JUMP") == 1 and func.ops[3].target is head


def test_a_for_loops_test_stays_threaded():
    # `for x in y: if c: raise E`: 3.13 jumps straight to FOR_ITER as well.
    head = Op("FOR_ITER")
    ops = [head, Op("STORE_FAST", "x"), Op("LOAD_FAST", "c"),
           Op("POP_JUMP_IF_FALSE", target=head), Op("LOAD_GLOBAL", "E"),
           Op("RAISE_VARARGS", 1), Op("RETURN_VALUE")]
    head.target = ops[-1]
    func = Function(None, ops)
    closing_jumps_back(func, T314)
    assert "JUMP" not in names(func)


def test_a_while_loops_pass_is_not_folded_into_its_test():
    # `while c: pass`: 3.14 tests at the top only, and the jump over which
    # the test jumps is the pass (on a line of its own).
    head = Op("LOAD_FAST", "c", line=2)
    exit_ = Op("RETURN_VALUE", line=3)
    ops = [head, Op("POP_JUMP_IF_FALSE", target=exit_, line=2), Op("JUMP", target=head, line=3),
           exit_]
    func = Function(None, ops)
    backward_conditional_jumps(func, T314)
    assert names(func) == ["LOAD_FAST", "POP_JUMP_IF_FALSE", "JUMP", "RETURN_VALUE"]


def test_a_continue_after_code_on_other_lines_is_folded():
    # `while True: x(); if c: continue; ...`
    head = Op("LOAD_GLOBAL", "x", line=2)
    after = Op("LOAD_GLOBAL", "y", line=5)
    ops = [head, Op("POP_TOP", line=2), Op("LOAD_FAST", "c", line=3),
           Op("POP_JUMP_IF_FALSE", target=after, line=3), Op("JUMP", target=head, line=4),
           after, Op("POP_TOP", line=5), Op("JUMP", target=head, line=5)]
    func = Function(None, ops)
    backward_conditional_jumps(func, T314)
    assert func.ops[3].name == "POP_JUMP_IF_TRUE" and func.ops[3].target is head
    assert id(func.ops[3]) in func.jump_statements


def test_a_while_loops_raising_tail_gets_its_closing_jump():
    # `while c: if x: y() else: raise x`: the else lies past the jump back.
    head = Op("LOAD_FAST", "c")
    exit_ = Op("RETURN_VALUE")
    raise_ = Op("LOAD_FAST", "x")
    ops = [head, Op("POP_JUMP_IF_FALSE", target=exit_), Op("LOAD_FAST", "x"),
           Op("POP_JUMP_IF_FALSE", target=raise_), Op("LOAD_GLOBAL", "y"), Op("POP_TOP"),
           Op("JUMP", target=head), raise_, Op("RAISE_VARARGS", 1), exit_]
    func = Function(None, ops)
    dead_loop_tails(func, T314)
    assert names(func)[-3:] == ["RAISE_VARARGS", "JUMP", "RETURN_VALUE"]
    assert func.ops[-2].target is head


def test_a_while_loops_break_tail_gets_its_closing_jump():
    # `while True: if a: (if b: x() else: break) else: break`: the inner
    # break's jump lies past the jump back, the outer one's NOP dropped.
    head = Op("LOAD_FAST", "a")
    exit_ = Op("LOAD_FAST", "x")
    brk = Op("JUMP", target=exit_)
    ops = [head, Op("POP_JUMP_IF_FALSE", target=exit_), Op("LOAD_FAST", "b"),
           Op("POP_JUMP_IF_FALSE", target=brk), Op("LOAD_FAST", "x"), Op("POP_TOP"),
           Op("JUMP", target=head), brk, exit_, Op("RETURN_VALUE")]
    func = Function(None, ops)
    dead_loop_tails(func, T314)
    assert names(func)[7:9] == ["JUMP", "JUMP"]
    assert func.ops[7] is brk and func.ops[8].target is head and func.ops[9] is exit_


def test_a_for_loops_raising_tail_stays():
    head = Op("FOR_ITER")
    exit_ = Op("RETURN_VALUE")
    raise_ = Op("LOAD_FAST", "x")
    ops = [head, Op("STORE_FAST", "v"), Op("LOAD_FAST", "x"),
           Op("POP_JUMP_IF_FALSE", target=raise_), Op("JUMP", target=head), raise_,
           Op("RAISE_VARARGS", 1), exit_]
    head.target = exit_
    func = Function(None, ops)
    dead_loop_tails(func, T314)
    assert names(func).count("JUMP") == 1


def test_a_tail_code_before_the_loop_jumps_into_stays():
    head = Op("LOAD_FAST", "c")
    exit_ = Op("RETURN_VALUE")
    raise_ = Op("LOAD_FAST", "x")
    ops = [Op("LOAD_FAST", "a"), Op("POP_JUMP_IF_TRUE", target=raise_), head,
           Op("POP_JUMP_IF_FALSE", target=exit_), Op("LOAD_FAST", "x"),
           Op("POP_JUMP_IF_FALSE", target=raise_), Op("JUMP", target=head), raise_,
           Op("RAISE_VARARGS", 1), exit_]
    func = Function(None, ops)
    dead_loop_tails(func, T314)
    assert names(func).count("JUMP") == 1


def test_no_end_where_code_before_the_loop_jumps_in():
    head = Op("LOAD_GLOBAL", "a")
    shared = Op("LOAD_GLOBAL", "E")
    ops = [Op("LOAD_FAST", "c"), Op("POP_JUMP_IF_TRUE", target=shared), head, Op("POP_TOP"),
           Op("LOAD_FAST", "x"), Op("POP_JUMP_IF_FALSE", target=head), shared,
           Op("RAISE_VARARGS", 1)]
    func = Function(None, ops)
    closing_jumps_back(func, T314)
    assert "JUMP" not in names(func)


# -- short circuits and nots ----------------------------------------------------------

def test_an_and_jump_past_the_or_test_goes_to_the_test():
    d = Op("LOAD_FAST", "d")
    or_pop = Op("POP_TOP")
    or_copy = Op("COPY", 1)
    ops = [Op("LOAD_FAST", "b"), Op("COPY", 1), Op("POP_JUMP_IF_FALSE", target=or_pop),
           Op("POP_TOP"), Op("LOAD_FAST", "c"), or_copy, Op("POP_JUMP_IF_TRUE"), or_pop, d,
           Op("RETURN_VALUE")]
    ops[6].target = ops[9]
    func = Function(None, ops)
    unthread_short_circuit_pops(func, T314)
    assert func.ops[2].target is or_copy


def test_a_not_on_a_membership_test_is_spelt_out():
    ops = [Op("LOAD_FAST", "x"), Op("LOAD_FAST", "y"), Op("COMPARE_OP", "in"),
           Op("POP_JUMP_IF_TRUE"), Op("RETURN_VALUE")]
    ops[3].target = ops[4]
    func = Function(None, ops)
    unfolded_not_jumps(func, T314)
    assert names(func)[2:4] == ["COMPARE_OP", "UNARY_NOT"] and func.ops[4].name == "POP_JUMP_IF_FALSE"


def test_a_not_on_an_equality_test_is_left_to_the_jump():
    ops = [Op("LOAD_FAST", "x"), Op("LOAD_FAST", "y"), Op("COMPARE_OP", "=="),
           Op("POP_JUMP_IF_TRUE"), Op("RETURN_VALUE")]
    ops[3].target = ops[4]
    func = Function(None, ops)
    unfolded_not_jumps(func, T314)
    assert "UNARY_NOT" not in names(func)


# -- 3.15's iterator pairs ------------------------------------------------------------

def test_a_comprehension_append_counts_without_the_pair():
    end = Op("END_FOR")
    ops = [Op("BUILD_LIST", 0, extra=0), Op("LOAD_FAST", "a", extra=0), Op("GET_ITER", 0, extra=0),
           Op("FOR_ITER", target=end, extra=0), Op("LIST_APPEND", 3, extra=3),
           Op("JUMP_BACKWARD", extra=0), end, Op("POP_ITER"), Op("RETURN_VALUE")]
    ops[5].target = ops[3]
    func = Function(None, ops)
    iterator_pairs(func, T315)
    assert [op.arg for op in func.ops if op.name == "LIST_APPEND"] == [2]


def test_an_awaits_null_goes():
    ops = [Op("LOAD_FAST", "x", extra=0), Op("GET_AWAITABLE", 0, extra=0), Op("PUSH_NULL"),
           Op("LOAD_CONST", None, extra=0), Op("SEND", extra=4), Op("END_SEND"),
           Op("RETURN_VALUE")]
    ops[4].target = ops[5]
    func = Function(None, ops)
    iterator_pairs(func, T315)
    assert names(func) == ["LOAD_FAST", "GET_AWAITABLE", "LOAD_CONST", "SEND", "END_SEND",
                           "RETURN_VALUE"]


def async_genexpr_ops():
    # (x async for x in .0), 3.15, as decoded: aiter() before the generator starts
    wrap = Op("CALL_INTRINSIC_1", 3)
    wrapper = Handler(wrap, 1, True)
    loop_exit = Op("END_ASYNC_FOR", extra=12)
    in_loop = Handler(loop_exit, 1, False)
    head = Op("GET_ANEXT", handler=in_loop)
    send = Op("SEND", extra=4, handler=in_loop)
    done = Op("END_SEND", handler=wrapper)
    send.target = done
    ops = [Op("LOAD_FAST", ".0", extra=0), Op("GET_AITER"), Op("RETURN_GENERATOR"), Op("POP_TOP"),
           head, Op("PUSH_NULL", handler=in_loop), Op("LOAD_CONST", None, extra=0, handler=in_loop),
           send, done, Op("STORE_FAST", "x", extra=0, handler=wrapper),
           Op("LOAD_FAST", "x", extra=0, handler=wrapper), Op("YIELD_VALUE", 0, extra=0, handler=wrapper),
           Op("POP_TOP", handler=wrapper), Op("JUMP_BACKWARD", target=head, handler=wrapper),
           loop_exit, Op("LOAD_CONST", None, extra=0, handler=wrapper),
           Op("RETURN_VALUE", handler=wrapper), wrap, Op("RERAISE", 1, extra=1)]
    loop_exit.target = ops[9]
    return ops, wrapper


def test_an_async_generator_expressions_aiter_goes_to_its_caller():
    ops, wrapper = async_genexpr_ops()
    func = Function(types.SimpleNamespace(name="<genexpr>"), ops)
    iterator_pairs(func, T315)
    assert names(func)[:6] == ["LOAD_FAST", "RETURN_GENERATOR", "POP_TOP", "GET_ANEXT",
                               "LOAD_CONST", "SEND"]
    assert wrapper.depth == 0       # the StopIteration wrapper counts no iterator, as in 3.14


def test_an_async_generator_expressions_caller_gets_aiter_back():
    genexpr = types.SimpleNamespace(name="<genexpr>", flags=0x200 | 0x20)
    ops = [Op("LOAD_CONST", genexpr, extra=0), Op("MAKE_FUNCTION"), Op("LOAD_FAST", "a", extra=0),
           Op("CALL", 0, extra=0), Op("RETURN_VALUE")]
    func = Function(None, ops)
    iterator_pairs(func, T315)
    assert names(func) == ["LOAD_CONST", "MAKE_FUNCTION", "LOAD_FAST", "GET_AITER", "CALL",
                           "RETURN_VALUE"]


def test_paths_that_disagree_leave_the_code_alone():
    join = Op("RETURN_VALUE")
    ops = [Op("LOAD_FAST", "a", extra=0), Op("POP_JUMP_IF_FALSE", target=join, extra=0),
           Op("LOAD_FAST", "b", extra=0), Op("LOAD_FAST", "c", extra=0), join]
    func = Function(None, ops)
    before = [(op.name, op.arg) for op in func.ops]
    iterator_pairs(func, T315)
    assert [(op.name, op.arg) for op in func.ops] == before


# -- deferred annotations -------------------------------------------------------------

def test_annotation_marks():
    ops = [Op("BUILD_SET", 0), Op("STORE_NAME", "__conditional_annotations__"),
           Op("LOAD_CONST", 1), Op("STORE_NAME", "x"),
           Op("LOAD_NAME", "__conditional_annotations__"), Op("LOAD_CONST", 0),
           Op("SET_ADD", 1), Op("POP_TOP"), Op("RETURN_VALUE")]
    func = Function(None, ops)
    annotation_marks(func, T314)
    assert [(op.name, op.arg) for op in func.ops] == [
        ("LOAD_CONST", 1), ("STORE_NAME", "x"), ("ANNOTATION_MARK", 0), ("RETURN_VALUE", None)]


def test_a_mark_without_its_function_is_refused():
    with pytest.raises(DecompileFailure, match="annotation marks without"):
        fold_deferred_annotations([AnnotationMark(0)], lambda value: [])


def test_an_unmarked_annotation_goes_on_its_line():
    stored = ast.Assign([ast.Name("a", ast.Store())], ast.Constant(3))
    stored.lineno = 5
    later = ast.Pass()
    later.lineno = 9
    body = [stored, later, DeferredAnnotations(None)]
    entries = [(None, "a", ast.Name("int"), 5), (None, "b", ast.Name("str"), 7)]
    out = fold_deferred_annotations(body, lambda value: entries)
    assert ast.unparse(ast.Module(out, [])).splitlines() == ["a: int = 3", "b: str", "pass"]


def test_an_annotation_after_a_class_bodys_closing_statements_goes_before_them():
    # class A: / x: int  -- the epilogue and return carry the class's line, 1
    def on_line_1(stmt):
        stmt.lineno = 1
        return stmt
    body = [on_line_1(ast.Assign([ast.Name("__static_attributes__", ast.Store())], ast.Constant(()))),
            on_line_1(ast.Return(ast.Constant(None))), DeferredAnnotations(None)]
    out = fold_deferred_annotations(body, lambda value: [(None, "x", ast.Name("int"), 2)],
                                    {"__static_attributes__"})
    assert ast.unparse(ast.Module(out, [])).splitlines() == [
        "x: int", "__static_attributes__ = ()", "return None"]


def test_a_body_ending_in_a_return_from_a_with_gets_its_closing_jump():
    # with cm: / while True: / if c: return v   -- the with's exit runs
    # outside the with's handler, before the return
    with_h = Handler(Op("PUSH_EXC_INFO"), 1, True)
    head = Op("LOAD_GLOBAL", "c", handler=with_h)
    ops = [head, Op("POP_JUMP_IF_FALSE", target=head, handler=with_h),
           Op("LOAD_GLOBAL", "v", handler=with_h), Op("SWAP", 2), Op("LOAD_CONST", None),
           Op("CALL", 2), Op("POP_TOP"), Op("RETURN_VALUE"), with_h.target]
    func = Function(None, ops)
    closing_jumps_back(func, T314)
    assert names(func)[7:9] == ["RETURN_VALUE", "JUMP"]
    back = func.ops[8]
    assert back.target is head and back.handler is with_h and func.ops[1].target is back


def test_an_if_break_into_code_a_handler_breaks_to_gets_its_jumps_back():
    # while 1: / try: ... except E: break / if c: break  -- the if's break
    # (its NOP dropped) falls into the exit, which the clause's break jumps to
    head = Op("LOAD_FAST", "s", line=4)
    exit_ = Op("LOAD_CONST", None, line=9)
    test = Op("POP_JUMP_IF_FALSE", target=head, line=7)
    ops = [head, Op("POP_TOP", line=4), Op("LOAD_FAST", "c", line=7), test, exit_,
           Op("RETURN_VALUE", line=9), Op("PUSH_EXC_INFO"), Op("POP_EXCEPT", line=6),
           Op("JUMP", target=exit_, line=6)]
    func = Function(None, ops)
    func.line_nop_jumps[id(test)] = 8
    closing_jumps_back(func, T314)
    assert names(func)[3:6] == ["POP_JUMP_IF_FALSE", "JUMP", "JUMP"]
    brk, back = func.ops[4], func.ops[5]
    assert brk.target is exit_ and brk.line == 8 and back.target is head and test.target is back


def test_an_inner_loops_test_threaded_to_the_outer_head_gets_the_closing_jump():
    # while a: / while b: pass   -- b's way out goes straight to a's test
    outer = Op("LOAD_FAST", "a", line=2)
    exit_ = Op("LOAD_CONST", None, line=2)
    inner = Op("LOAD_FAST", "b", line=3)
    test = Op("POP_JUMP_IF_FALSE", target=outer, line=3)
    ops = [outer, Op("POP_JUMP_IF_FALSE", target=exit_, line=2), inner, test,
           Op("JUMP", target=inner, line=4), exit_, Op("RETURN_VALUE", line=2)]
    func = Function(None, ops)
    closing_jumps_back(func, T314)
    assert names(func)[4:6] == ["JUMP", "JUMP"]
    assert func.ops[5].target is outer and test.target is func.ops[5]


def test_an_if_break_ending_the_body_gets_its_jumps_back():
    head = Op("LOAD_FAST", "s", line=4)
    exit_ = Op("LOAD_CONST", None, line=7)
    ops = [head, Op("POP_JUMP_IF_FALSE", target=exit_, line=5), Op("LOAD_FAST", "s", line=5),
           Op("POP_JUMP_IF_FALSE", target=head, line=5), exit_, Op("RETURN_VALUE", line=7)]
    func = Function(None, ops)
    closing_jumps_back(func, T314)
    assert names(func) == ["LOAD_FAST", "POP_JUMP_IF_FALSE", "LOAD_FAST", "POP_JUMP_IF_FALSE",
                           "JUMP", "JUMP", "LOAD_CONST", "RETURN_VALUE"]
    brk, back = func.ops[4], func.ops[5]
    assert brk.target is exit_ and back.target is head
    assert func.ops[1].target is brk and func.ops[3].target is back


def test_an_if_or_falling_into_its_body_is_no_break():
    # for x in xs: if a or b: body  (the body goes back to the loop's head)
    head = Op("FOR_ITER")
    body = Op("LOAD_FAST", "x", line=5)
    after = Op("RETURN_VALUE", line=9)
    head.target = after
    ops = [head, Op("STORE_FAST", "x", line=3), Op("LOAD_FAST", "a", line=4),
           Op("POP_JUMP_IF_TRUE", target=body, line=4), Op("LOAD_FAST", "b", line=4),
           Op("POP_JUMP_IF_FALSE", target=head, line=4), body, Op("POP_TOP", line=5),
           Op("JUMP", target=head, line=5), after]
    func = Function(None, ops)
    closing_jumps_back(func, T314)
    assert func.ops[5].target is head and names(func).count("JUMP") == 1


def test_a_conditions_two_jumps_back_become_one():
    head = Op("LOAD_FAST", "i", line=2)
    j1, j2 = Op("JUMP", target=head, line=6), Op("JUMP", target=head, line=6)
    ops = [head, Op("POP_JUMP_IF_FALSE", target=j2, line=6), Op("LOAD_FAST", "b", line=6),
           Op("POP_JUMP_IF_FALSE", target=j1, line=6), Op("JUMP", target=head, line=7), j1, j2]
    func = Function(None, ops)
    adjacent_jumps(func, T314)
    # (an END marker takes the place of a last op removed)
    assert names(func)[4:] == ["JUMP", "JUMP", "END"]
    assert func.ops[1].target is j1 and func.ops[3].target is j1


def test_two_statements_jumps_back_stay_two():
    head = Op("LOAD_FAST", "i", line=2)
    j1, j2 = Op("JUMP", target=head, line=5), Op("JUMP", target=head, line=8)
    ops = [head, Op("POP_JUMP_IF_FALSE", target=j2, line=4), Op("LOAD_FAST", "b", line=5),
           Op("POP_JUMP_IF_FALSE", target=j1, line=5), Op("JUMP", target=head, line=7), j1, j2]
    func = Function(None, ops)
    adjacent_jumps(func, T314)
    assert len(func.ops) == 7


def test_an_if_break_before_an_enclosing_loops_continue():
    # for x in xs: ... while True: ...; if c: break  /  continue
    outer = Op("FOR_ITER")
    head = Op("LOAD_FAST", "s", line=7)
    cont = Op("JUMP", target=outer, line=11)
    ops = [outer, Op("STORE_FAST", "x"), head, Op("POP_TOP", line=7), Op("LOAD_FAST", "c", line=9),
           Op("POP_JUMP_IF_FALSE", target=head, line=9), cont, Op("RETURN_VALUE")]
    outer.target = ops[-1]
    func = Function(None, ops)
    closing_jumps_back(func, T314)
    assert names(func)[5:9] == ["POP_JUMP_IF_FALSE", "JUMP", "JUMP", "JUMP"]
    brk, back = func.ops[6], func.ops[7]
    assert brk.target is cont and back.target is head and func.ops[5].target is back


# -- nested loop heads ----------------------------------------------------------------

def nested_while_ops():
    # while 1: / while c: x / y   (3.14: both tested at the top)
    outer = Op("NOP", line=2)
    inner = Op("LOAD_FAST", "c", line=3)
    out = Op("LOAD_FAST", "y", line=5)
    return outer, inner, [outer, inner, Op("POP_JUMP_IF_FALSE", target=out, line=3),
                          Op("LOAD_FAST", "x", line=4), Op("POP_TOP", line=4),
                          Op("JUMP_BACKWARD", target=inner, line=4), out, Op("POP_TOP", line=5),
                          Op("JUMP_BACKWARD", target=outer, line=5)]


def test_an_outer_loops_nop_right_before_an_inner_loop_head_stays():
    outer, _, ops = nested_while_ops()
    func = Function(None, ops)
    nested_loop_tops(func, T314)
    assert outer.name == "LOOP_TOP"


def test_a_loop_head_nop_with_no_loop_after_it_goes():
    # while 1: x  -- one loop: its NOP is dropped later, as ever
    outer, inner, ops = nested_while_ops()
    ops[5].target = outer
    func = Function(None, ops)
    nested_loop_tops(func, T314)
    assert outer.name == "NOP"



# -- yield from's clean-up ------------------------------------------------------------

def test_a_yield_froms_clean_up_block_keeps_where_it_lay():
    # yield from x  (3.12+): SEND's exceptions go to CLEANUP_THROW; JUMP E, out of line
    end_send = Op("END_SEND")
    cleanup = Op("CLEANUP_THROW")
    send = Op("SEND", target=end_send)
    yield_ = Op("YIELD_VALUE", 1, handler=Handler(cleanup, 3, False))
    marker = Op("RERAISE", 1)       # (the handler code the block was laid out after)
    ops = [Op("LOAD_FAST", "x"), Op("GET_YIELD_FROM_ITER"), Op("LOAD_CONST", None), send, yield_,
           Op("JUMP", target=send), end_send, Op("POP_TOP"), Op("RETURN_VALUE"), marker, cleanup,
           Op("JUMP", target=end_send)]
    func = Function(None, ops)
    send_loops(func, T314)
    assert "CLEANUP_THROW" not in names(func) and send.name == "YIELD_FROM"
    assert func.yield_from_cleanups[id(send)] is marker
