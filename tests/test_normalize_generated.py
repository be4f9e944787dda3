"""Normalising passes for idioms only generated code (Dynamo's) writes, on
hand-built ops: what each rewrites, and what it must leave alone."""
from depyf.bytecode.ir import Function, Op
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
