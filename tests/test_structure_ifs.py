"""The if-statement family (decompiler/structure/ifs.py) on hand-built
normalised IR (tests/structure_ops.py): branches and their join, elif chains,
a branch that cannot fall off its end (no jump over the else), asserts,
conditional expressions, and `and`/`or` tests read from their jumps; and the
join the graph gives (structure/joins.py), with where it has no answer.
"""
from depyf.decompiler.structure.joins import if_join
from structure_ops import source, structure, walker


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


# -- the join read from the graph (structure/joins.py) ---------------------------------

_CALLS = dict(varnames=("a", "b"), argcount=2, names=("f", "g", "h"))


def _join(text, then_label, else_label, hi_label):
    """``if_join`` of the ops ``text`` writes, at its labels (no ``hi_label``:
    the block runs to the end of the code); and the labels."""
    index = _label_indices(text)
    w = walker(text, **_CALLS)
    hi = index[hi_label] if hi_label is not None else w.n
    return if_join(w, index[then_label], index[else_label], hi), index


def _label_indices(text):
    index, k = {}, 0
    for raw in text.splitlines():
        raw = raw.split("#", 1)[0].strip()
        if not raw:
            continue
        head = raw.split(" ", 1)[0]
        if head.endswith(":"):
            index[head[:-1]] = k
        k += 1
    return index


_NESTED_RETURN = """
       1   LOAD_FAST a
           POP_JUMP_IF_FALSE -> orelse
then:  2   LOAD_FAST b
           POP_JUMP_IF_FALSE -> ret
       3   PUSH_NULL
           LOAD_GLOBAL f
           CALL (0, (), 2)
           POP_TOP
           JUMP -> join
ret:   5   LOAD_CONST 1
           RETURN_VALUE
orelse: 7  PUSH_NULL
           LOAD_GLOBAL g
           CALL (0, (), 2)
           POP_TOP
join:  8   PUSH_NULL
           LOAD_GLOBAL h
           CALL (0, (), 2)
           POP_TOP
           LOAD_CONST None
           RETURN_VALUE
"""


def test_graph_join_is_past_a_return_inside_the_first_branch():
    # the true branch's last op is a return, yet its other way on jumps over
    # the else: the return leaves, so it does not hold the join back
    join, index = _join(_NESTED_RETURN, "then", "orelse", "join")
    assert join == index["join"]        # (the block's end: both run on past it)
    assert structure(_NESTED_RETURN, **_CALLS) == source("""
        if a:
            if b:
                f()
            else:
                return 1
        else:
            g()
        h()
        return None
    """)


def test_graph_join_where_the_block_is_the_rest_of_the_function():
    # nothing runs on past the end of the code: every way out is the exit but
    # the true branch's own (the return in it), and the join is a block
    join, index = _join(_NESTED_RETURN, "then", "orelse", None)
    assert join == index["join"]


def test_graph_join_falls_into_the_code_the_test_jumps_to():
    text = """
           1   LOAD_FAST a
               POP_JUMP_IF_FALSE -> after
    then:  2   PUSH_NULL
               LOAD_GLOBAL f
               CALL (0, (), 2)
               POP_TOP
    after: 3   PUSH_NULL
               LOAD_GLOBAL g
               CALL (0, (), 2)
               POP_TOP
    end:   4   LOAD_CONST None
               RETURN_VALUE
    """
    join, index = _join(text, "then", "after", "end")
    assert join == index["after"]       # (no else)


def test_graph_cannot_tell_an_else_after_a_returning_branch():
    # `if a: return 1` then g(), or `if a: return 1 else: g()`: the same code;
    # the graph says nothing and ifs.py's layout rules decide (no else)
    text = """
           1   LOAD_FAST a
               POP_JUMP_IF_FALSE -> after
    then:  2   LOAD_CONST 1
               RETURN_VALUE
    after: 3   PUSH_NULL
               LOAD_GLOBAL g
               CALL (0, (), 2)
               POP_TOP
    end:   4   LOAD_CONST None
               RETURN_VALUE
    """
    join, _ = _join(text, "then", "after", "end")
    assert join is None
    assert structure(text, **_CALLS) == source("""
        if a:
            return 1
        g()
        return None
    """)
