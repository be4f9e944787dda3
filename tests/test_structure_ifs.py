"""The if-statement family (decompiler/structure/ifs.py) on hand-built
normalised IR (tests/structure_ops.py): branches and their join, elif chains,
a branch that cannot fall off its end (no jump over the else), asserts,
conditional expressions, and `and`/`or` tests read from their jumps.
"""
from structure_ops import source, structure


def test_if_else_joins_where_the_then_branch_jumps():
    assert structure("""
           1   LOAD_FAST a
               POP_JUMP_IF_FALSE -> orelse
           2   PUSH_NULL
               LOAD_GLOBAL f
               CALL (0, (), 2)
               POP_TOP
               JUMP -> join
    orelse: 4  PUSH_NULL
               LOAD_GLOBAL g
               CALL (0, (), 2)
               POP_TOP
    join:  5   PUSH_NULL
               LOAD_GLOBAL h
               CALL (0, (), 2)
               POP_TOP
               LOAD_CONST None
               RETURN_VALUE
    """, varnames=("a",), argcount=1, names=("f", "g", "h")) == source("""
        if a:
            f()
        else:
            g()
        h()
        return None
    """)


def test_a_returning_branch_has_no_jump_over_what_follows():
    # the code after the if is no else: it is where the test jumps when false
    assert structure("""
           1   LOAD_FAST a
               POP_JUMP_IF_FALSE -> rest
           2   LOAD_CONST 1
               RETURN_VALUE
    rest:  3   PUSH_NULL
               LOAD_GLOBAL g
               CALL (0, (), 2)
               POP_TOP
               LOAD_CONST None
               RETURN_VALUE
    """, varnames=("a",), argcount=1, names=("g",)) == source("""
        if a:
            return 1
        g()
        return None
    """)


def test_elif_chain_whose_branches_each_end_in_the_copied_return():
    # (3.10+ copies the closing `return None` into each branch)
    assert structure("""
           1   LOAD_FAST a
               POP_JUMP_IF_FALSE -> second
           2   PUSH_NULL
               LOAD_GLOBAL f
               CALL (0, (), 2)
               POP_TOP
               LOAD_CONST None
               RETURN_VALUE
    second: 3  LOAD_FAST b
               POP_JUMP_IF_FALSE -> last
           4   PUSH_NULL
               LOAD_GLOBAL g
               CALL (0, (), 2)
               POP_TOP
               LOAD_CONST None
               RETURN_VALUE
    last:  6   PUSH_NULL
               LOAD_GLOBAL h
               CALL (0, (), 2)
               POP_TOP
               LOAD_CONST None
               RETURN_VALUE
    """, varnames=("a", "b"), argcount=2, names=("f", "g", "h")) == source("""
        if a:
            f()
            return None
        elif b:
            g()
            return None
        else:
            h()
            return None
    """)


def test_and_inside_or_read_from_where_each_jump_goes():
    # (each way out ends in its own copy of the return: the function layer
    # folds them into the closing one)
    assert structure("""
           1   LOAD_FAST a
               POP_JUMP_IF_FALSE -> skip
               LOAD_FAST b
               POP_JUMP_IF_TRUE -> then
               LOAD_FAST c
               POP_JUMP_IF_FALSE -> skip2
    then:  2   PUSH_NULL
               LOAD_GLOBAL f
               CALL (0, (), 2)
               POP_TOP
               LOAD_CONST None
               RETURN_VALUE
    skip:  1   LOAD_CONST None
               RETURN_VALUE
    skip2:     LOAD_CONST None
               RETURN_VALUE
    """, varnames=("a", "b", "c"), argcount=3, names=("f",)) == source("""
        if a and (b or c):
            f()
            return None
        else:
            return None
    """)


def test_assert_with_a_message():
    assert structure("""
           1   LOAD_FAST a
               POP_JUMP_IF_TRUE -> ok
               LOAD_ASSERTION_ERROR
               LOAD_CONST 'no'
               CALL (0, (), 2)
               RAISE_VARARGS 1
    ok:        LOAD_CONST None
               RETURN_VALUE
    """, varnames=("a",), argcount=1) == source("""
        assert a, 'no'
        return None
    """)


def test_conditional_expression_leaves_one_value():
    # both branches push a value and meet at the op that takes it
    assert structure("""
           1   LOAD_FAST a
               POP_JUMP_IF_FALSE -> orelse
               PUSH_NULL
               LOAD_GLOBAL f
               CALL (0, (), 2)
               JUMP -> join
    orelse:    PUSH_NULL
               LOAD_GLOBAL g
               CALL (0, (), 2)
    join:      RETURN_VALUE
    """, varnames=("a",), argcount=1, names=("f", "g")) == source("""
        return f() if a else g()
    """)


def test_if_continue_in_a_loop_is_a_jump_back_that_is_not_the_latch():
    assert structure("""
           1   LOAD_FAST xs
               GET_ITER
    top:       FOR_ITER -> done
               STORE_FAST x
           2   LOAD_FAST x
               POP_JUMP_IF_FALSE -> body
           3   JUMP -> top
    body:  4   PUSH_NULL
               LOAD_GLOBAL g
               LOAD_FAST x
               CALL (1, (), 2)
               POP_TOP
               JUMP -> top
    done:  5   LOAD_CONST None
               RETURN_VALUE
    """, varnames=("xs", "x"), argcount=1, names=("g",)) == source("""
        for x in xs:
            if x:
                continue
            g(x)
        return None
    """)
