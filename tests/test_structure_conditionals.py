"""The conditionals family (decompiler/structure/conditionals.py) on small
hand-built conditions: how a test is negated for the jump that reads it."""
import ast

from depyf.decompiler.structure.conditionals import Segment, deciding, longest_chain, negate, parse_chain

from structure_ops import assemble, source, structure


def expr(text):
    return ast.parse(text, mode="eval").body


def test_a_double_negation_goes():
    assert ast.unparse(negate(expr("not a"))) == "a"


def test_a_not_on_an_is_test_folds_into_it():
    # the compiler makes `not (a is b)` of `a is not b` anyway (up to 3.13)
    assert ast.unparse(negate(expr("a is b"))) == "a is not b"
    assert ast.unparse(negate(expr("a not in b"))) == "a in b"


def test_a_written_not_on_a_membership_test_comes_back():
    # 3.14 keeps `if not a in b` apart from `if a not in b`: negated twice,
    # the explicit `not` is what comes back, not the flipped comparison
    once = negate(expr("not a in b"))
    assert ast.unparse(once) == "a in b"
    assert ast.unparse(negate(once)) == "not a in b"


def test_de_morgan_where_it_leaves_fewer_nots():
    assert ast.unparse(negate(expr("not a and not b"))) == "a or b"


#: ``if a or (b if c else 1): x = 1``: the constant branch is folded into the
#: jump of ``c``, which lands on the body like the JUMP ending ``b``'s branch
FOLDED_ELSE = """
1     LOAD_NAME a
      POP_JUMP_IF_TRUE -> body
      LOAD_NAME c
      POP_JUMP_IF_FALSE -> body
      LOAD_NAME b
      POP_JUMP_IF_FALSE -> out
      JUMP -> body
body: 2 LOAD_CONST 1
      STORE_NAME x
out:  LOAD_CONST None
      RETURN_VALUE
"""


def folded_else_segments(jump_past=False):
    """The segments of FOLDED_ELSE's test (``jump_past``: with the body's JUMP
    landing past the code after the chain, where the false way goes)."""
    ops = assemble(FOLDED_ELSE)
    if jump_past:
        ops[6].target = ops[9]
    return [Segment(expr("a"), 0, ops[1], True), Segment(expr("c"), 2, ops[3], False),
            Segment(expr("b"), 4, ops[5], False), Segment(None, 6, ops[6], None)]


def test_a_conditional_expression_whose_else_is_a_folded_constant():
    segments = folded_else_segments()
    assert ast.unparse(parse_chain(segments, 7, 9, False)) == "a or (b if c else True)"
    # (the chain is read whole, and goes where `b`'s jump does)
    k, test, after = longest_chain(segments, 7)
    assert (k, ast.unparse(test), after) == (4, "a or (b if c else True)", 7)
    assert deciding(segments) is segments[2]
    assert structure(FOLDED_ELSE, names=("a", "b", "c", "x")) == source("""
        if a or (b if c else True):
            x = 1
        return None""")


def test_a_chain_ending_in_a_jump_elsewhere_is_not_a_folded_constant():
    # The body's JUMP goes past the code after the chain: no constant else reads so.
    k, test, after = longest_chain(folded_else_segments(jump_past=True), 7)
    assert k < 4
