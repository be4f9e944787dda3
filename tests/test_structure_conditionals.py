"""The conditionals family (decompiler/structure/conditionals.py) on small
hand-built conditions: how a test is negated for the jump that reads it."""
import ast

from depyf.decompiler.structure.conditionals import Segment, deciding, longest_chain, negate, parse_chain


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


class _Jump:
    """What a segment reads of its jump op: where it lands."""

    def __init__(self, index):
        self.target = self
        self.index = index


def segment(name, start, to, sense):
    return Segment(expr(name) if name else None, start, _Jump(to), sense)


def test_a_conditional_expression_whose_else_is_a_folded_constant():
    # `if a or (b if c else 1): X`: the constant branch is folded into the
    # jump of `c`, which lands on X like the JUMP ending the body.
    segments = [segment("a", 0, 7, True), segment("c", 2, 7, False),
                segment("b", 4, 11, False), segment(None, 6, 7, None)]
    assert ast.unparse(parse_chain(segments, 7, 11, False)) == "a or (b if c else True)"
    # (the chain is read whole, and goes where `b`'s jump does)
    k, test, after = longest_chain(segments, 7)
    assert (k, ast.unparse(test), after) == (4, "a or (b if c else True)", 7)
    assert deciding(segments) is segments[2]


def test_a_chain_ending_in_a_jump_elsewhere_is_not_a_folded_constant():
    # The body's JUMP goes past the code after the chain: no constant else reads so.
    segments = [segment("c", 0, 7, False), segment("b", 2, 11, False), segment(None, 4, 9, None)]
    k, test, after = longest_chain(segments, 7)
    assert k < 3
