"""The conditionals family (decompiler/structure/conditionals.py) on small
hand-built conditions: how a test is negated for the jump that reads it."""
import ast

from depyf.decompiler.structure.conditionals import negate


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
