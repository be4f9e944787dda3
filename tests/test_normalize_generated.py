"""Normalising passes for idioms only generated code (Dynamo's) writes, on
hand-built ops: what each rewrites, and what it must leave alone."""
from depyf.bytecode.dead_code_entries import jumps_into_dead_code
from depyf.bytecode.ir import Function, Handler, Op
from depyf.bytecode.normalize import popped_branch_constants


def _jump(target):
    op = Op("JUMP")
    op.target = target
    return op


def _names(func):
    return [op.name for op in func.ops]


def test_constant_pushed_over_a_handler_and_popped_goes():
    # exit(); LOAD_CONST None; JUMP L; <handler>; RERAISE; L: POP_TOP; RETURN
    pop = Op("POP_TOP")
    ops = [Op("CALL"), Op("LOAD_CONST", None), _jump(pop), Op("PUSH_EXC_INFO"), Op("RERAISE", 1),
           pop, Op("LOAD_FAST", "x"), Op("RETURN_VALUE")]
    func = Function(None, ops)
    popped_branch_constants(func, None)
    assert _names(func) == ["CALL", "JUMP", "PUSH_EXC_INFO", "RERAISE", "LOAD_FAST", "RETURN_VALUE"]
    assert func.ops[1].target is func.ops[4]        # (what aimed at the POP_TOP aims past it)


def test_pop_that_another_value_falls_into_stays():
    # the fall-through pushes a computed value: the POP_TOP pops something real
    pop = Op("POP_TOP")
    ops = [Op("LOAD_CONST", None), _jump(pop), Op("LOAD_FAST", "y"), pop, Op("RETURN_VALUE")]
    func = Function(None, ops)
    popped_branch_constants(func, None)
    assert _names(func) == ["LOAD_CONST", "JUMP", "LOAD_FAST", "POP_TOP", "RETURN_VALUE"]


def test_pop_a_jump_without_a_constant_reaches_stays():
    pop = Op("POP_TOP")
    ops = [Op("LOAD_FAST", "y"), _jump(pop), Op("RERAISE", 0), pop, Op("RETURN_VALUE")]
    func = Function(None, ops)
    popped_branch_constants(func, None)
    assert _names(func) == ["LOAD_FAST", "JUMP", "RERAISE", "POP_TOP", "RETURN_VALUE"]


# -- jumps_into_dead_code ----------------------------------------------------------


def test_run_a_jump_enters_amid_unreached_code_follows_the_jump():
    # Dynamo's resume prologue: BEFORE_WITH; ...; JUMP L; <handler>;
    # <original code up to the break, unreached>; L: ...; RETURN_VALUE
    handler_start = Op("PUSH_EXC_INFO")
    body_rest = Op("LOAD_FAST", "y")
    ops = [Op("BEFORE_WITH"), Op("POP_TOP"), _jump(body_rest),
           handler_start, Op("RERAISE", 2),
           Op("LOAD_FAST", "x"), Op("STORE_FAST", "y"),            # unreached, falls into L
           body_rest, Op("RETURN_VALUE")]
    for op in ops[1:3]:
        op.handler = Handler(handler_start, 1, True)
    func = Function(None, ops)
    jumps_into_dead_code(func, None)
    assert _names(func) == ["BEFORE_WITH", "POP_TOP", "LOAD_FAST", "RETURN_VALUE",
                            "PUSH_EXC_INFO", "RERAISE", "LOAD_FAST", "STORE_FAST"]
    assert func.ops[2] is body_rest and [op.index for op in func.ops] == list(range(8))


def test_join_after_a_branch_that_returns_stays():
    # if/else: the first branch jumps over the second, which returns; the
    # join is reached by that jump alone, but nothing unreached is before it
    join = Op("LOAD_FAST", "x")
    other = Op("LOAD_CONST", 2)
    ops = [Op("LOAD_FAST", "c"), Op("POP_JUMP_IF_FALSE", target=other), Op("LOAD_CONST", 1),
           _jump(join), other, Op("RETURN_VALUE"), join, Op("RETURN_VALUE")]
    func = Function(None, ops)
    jumps_into_dead_code(func, None)
    assert func.ops == ops


def test_run_reached_another_way_too_stays():
    # the op before L falls into it and is reached (by the conditional jump)
    join = Op("LOAD_FAST", "x")
    before = Op("LOAD_CONST", 2)
    ops = [Op("LOAD_FAST", "c"), Op("POP_JUMP_IF_FALSE", target=before), _jump(join),
           before, Op("POP_TOP"), join, Op("RETURN_VALUE")]
    func = Function(None, ops)
    jumps_into_dead_code(func, None)
    assert func.ops == ops


def test_run_two_jumps_enter_stays():
    target = Op("LOAD_FAST", "x")
    ops = [Op("LOAD_FAST", "c"), Op("POP_JUMP_IF_FALSE", target=target), _jump(target),
           Op("LOAD_CONST", 1), target, Op("RETURN_VALUE")]
    func = Function(None, ops)
    jumps_into_dead_code(func, None)
    assert func.ops == ops


def test_loop_exit_amid_unreached_code_follows_the_jump_back():
    # the moved code holds a loop whose exit lies past unreached code: the
    # exit goes after the loop's jump back, where a compiler puts it
    header = Op("FOR_ITER")
    exit_ = Op("LOAD_FAST", "x")
    header.target = exit_
    ops = [Op("GET_ITER"), header, Op("STORE_FAST", "i"), _jump(header),
           Op("LOAD_CONST", None), Op("POP_TOP"),                   # unreached, falls into the exit
           exit_, Op("RETURN_VALUE")]
    func = Function(None, ops)
    jumps_into_dead_code(func, None)
    assert _names(func) == ["GET_ITER", "FOR_ITER", "STORE_FAST", "JUMP", "LOAD_FAST", "RETURN_VALUE",
                            "LOAD_CONST", "POP_TOP"]
    assert func.ops[1].target is exit_ and func.ops[3].target is header
