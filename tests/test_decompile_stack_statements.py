"""Statements while earlier-evaluated values wait on the stack (Dynamo's bytecode).

Source never leaves a value on the stack across a statement; Dynamo's
generated code does (``graph_out_0[0]`` loaded, then ``del graph_out_0``, then
returned). The structured decompiler must not print such a statement before
the value's expression: these run the decompiled code (no fallback forced)
beside the bytecode and compare results and the order of side effects.
"""
from test_fallback import Assembler, compare_code, template


def test_call_on_the_stack_across_an_expression_statement():
    # note(a) waits on the stack while note(b) runs as a statement: a is noted first
    asm = Assembler()
    asm.call(2, 1, lambda s: s.op("LOAD_FAST", 0))
    asm.call(2, 1, lambda s: s.op("LOAD_FAST", 1)).op("POP_TOP")
    asm.op("RETURN_VALUE")
    compare_code(asm.code(template, []), [(1, 2), ("x", "y")])


def test_value_on_the_stack_across_a_delete_of_its_name():
    # a + 1 is computed, then a is deleted, then the sum returned
    asm = Assembler()
    asm.op("LOAD_FAST", 0).op("LOAD_CONST", 0).binary("+")
    asm.op("DELETE_FAST", 0).op("RETURN_VALUE")
    source = compare_code(asm.code(template, [1]), [(1, 0), (41, 0)])
    assert source.index("del a") > source.index("a + 1"), source
