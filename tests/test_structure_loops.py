"""The loops family on hand-built normalised IR (tests/structure_ops.py):
for and while loops, their else, break and continue, loops inside loops.

Each op list is what ``depyf.bytecode.normalize`` makes of some CPython's
code for the source in the test's name: the structurer must read it whatever
interpreter compiled it, so the tests give it the IR itself.
"""
import ast

from structure_ops import source, structure, walker


def test_for_else_with_break():
    # the break jumps past the else; the loop's end falls into it
    assert structure("""
           1   LOAD_FAST xs
               GET_ITER
    top:       FOR_ITER -> done
               STORE_FAST x
           2   LOAD_FAST x
               POP_JUMP_IF_FALSE -> body
           3   POP_TOP
               JUMP -> after
    body:  4   PUSH_NULL
               LOAD_GLOBAL g
               LOAD_FAST x
               CALL (1, (), 2)
               POP_TOP
               JUMP -> top
    done:  6   PUSH_NULL
               LOAD_GLOBAL h
               CALL (0, (), 2)
               POP_TOP
    after: 7   LOAD_CONST 1
               RETURN_VALUE
    """, varnames=("xs", "x"), argcount=1, names=("g", "h")) == source("""
        for x in xs:
            if x:
                break
            g(x)
        else:
            h()
        return 1
    """)


def test_for_loop_whose_exit_is_the_code_after_it():
    # no else: the exhausted iterator goes where the break would
    assert structure("""
           1   LOAD_FAST xs
               GET_ITER
    top:       FOR_ITER -> done
               STORE_FAST x
           2   LOAD_FAST x
               POP_JUMP_IF_FALSE -> body
           3   POP_TOP
               JUMP -> done
    body:  4   LOAD_FAST x
               POP_JUMP_IF_FALSE -> top
           5   PUSH_NULL
               LOAD_GLOBAL g
               CALL (0, (), 2)
               POP_TOP
               JUMP -> top
    done:  6   LOAD_CONST None
               RETURN_VALUE
    """, varnames=("xs", "x"), argcount=1, names=("g",)) == source("""
        for x in xs:
            if x:
                break
            if x:
                g()
        return None
    """)


def test_while_whose_continue_is_a_statement_of_its_own():
    # 3.10-3.13 repeat the test at the bottom of the body, which
    # normalize.unrotated_loops drops: a branch's end went there (now to the
    # closing jump back), a `continue` to the top test, as it still does
    # (Function.jump_statements says so)
    assert structure("""
    head:  1   PUSH_NULL
               LOAD_FAST a
               CALL (0, (), 2)
               POP_JUMP_IF_FALSE -> out
           2   PUSH_NULL
               LOAD_GLOBAL b
               CALL (0, (), 2)
               POP_JUMP_IF_FALSE -> rest
    cont:  3   JUMP -> head
    rest:  4   PUSH_NULL
               LOAD_GLOBAL c
               CALL (0, (), 2)
               POP_TOP
           1   JUMP -> head
    out:       LOAD_CONST None
               RETURN_VALUE
    """, statements=("cont",), varnames=("a",), argcount=1, names=("b", "c")) == source("""
        while a():
            if b():
                continue
            c()
        return None
    """)


def test_while_whose_body_ends_in_an_if_else():
    # the jump over the else goes to the closing jump back (the compiler did
    # not thread it on to the head, as it would to 3.9's)
    assert structure("""
    head:  1   PUSH_NULL
               LOAD_FAST a
               CALL (0, (), 2)
               POP_JUMP_IF_FALSE -> out
           2   PUSH_NULL
               LOAD_GLOBAL b
               CALL (0, (), 2)
               POP_JUMP_IF_FALSE -> other
           3   PUSH_NULL
               LOAD_GLOBAL c
               CALL (0, (), 2)
               POP_TOP
               JUMP -> back
    other: 5   PUSH_NULL
               LOAD_GLOBAL d
               CALL (0, (), 2)
               POP_TOP
    back:  1   JUMP -> head
    out:       LOAD_CONST None
               RETURN_VALUE
    """, varnames=("a",), argcount=1, names=("b", "c", "d")) == source("""
        while a():
            if b():
                c()
            else:
                d()
        return None
    """)


def test_top_tested_while():
    # the test at the head, the jump back unconditional (3.8-3.9, and loops
    # the compiler did not rotate)
    assert structure("""
    head:  1   LOAD_FAST x
               POP_JUMP_IF_FALSE -> out
           2   PUSH_NULL
               LOAD_GLOBAL f
               LOAD_FAST x
               CALL (1, (), 2)
               STORE_FAST x
               JUMP -> head
    out:   3   LOAD_FAST x
               RETURN_VALUE
    """, varnames=("x",), argcount=1, names=("f",)) == source("""
        while x:
            x = f(x)
        return x
    """)


def test_endless_loop_left_by_a_break():
    assert structure("""
    head:  2   PUSH_NULL
               LOAD_FAST a
               CALL (0, (), 2)
               POP_JUMP_IF_FALSE -> body
           3   JUMP -> out
    body:  4   PUSH_NULL
               LOAD_GLOBAL b
               CALL (0, (), 2)
               POP_TOP
           1   JUMP -> head
    out:   5   PUSH_NULL
               LOAD_GLOBAL c
               CALL (0, (), 2)
               POP_TOP
               LOAD_CONST None
               RETURN_VALUE
    """, varnames=("a",), argcount=1, names=("b", "c")) == source("""
        while True:
            if a():
                break
            b()
        c()
        return None
    """)


def test_a_loop_inside_a_loop_jumps_back_to_its_own_head():
    assert structure("""
           1   LOAD_FAST xs
               GET_ITER
    outer:     FOR_ITER -> done
               STORE_FAST x
           2   LOAD_FAST x
               GET_ITER
    inner:     FOR_ITER -> next
               STORE_FAST y
           3   PUSH_NULL
               LOAD_GLOBAL g
               LOAD_FAST y
               CALL (1, (), 2)
               POP_TOP
               JUMP -> inner
    next:  2   JUMP -> outer
    done:  1   LOAD_CONST None
               RETURN_VALUE
    """, varnames=("xs", "x", "y"), argcount=1, names=("g",)) == source("""
        for x in xs:
            for y in x:
                g(y)
        return None
    """)


def test_continue_of_the_outer_loop_is_a_break_of_the_inner_one():
    # `continue` in the inner loop jumps to the inner head; a jump from the
    # inner body to the outer head is the inner loop's break followed by the
    # outer loop's end
    assert structure("""
           1   LOAD_FAST xs
               GET_ITER
    outer:     FOR_ITER -> done
               STORE_FAST x
           2   LOAD_FAST x
               GET_ITER
    inner:     FOR_ITER -> next
               STORE_FAST y
           3   LOAD_FAST y
               POP_JUMP_IF_FALSE -> inner
           4   POP_TOP
               JUMP -> outer
    next:  5   PUSH_NULL
               LOAD_GLOBAL g
               CALL (0, (), 2)
               POP_TOP
               JUMP -> outer
    done:  1   LOAD_CONST None
               RETURN_VALUE
    """, varnames=("xs", "x", "y"), argcount=1, names=("g",)) == source("""
        for x in xs:
            for y in x:
                if y:
                    break
            else:
                g()
        return None
    """)


def test_a_loop_head_mark_starts_no_statement_of_the_body():
    # `while True:` whose body starts with a while loop: the outer loop's head
    # is a LOOP_TOP on its own line, the inner loop's statement on its test's
    stmts = walker("""
    outer: 1   LOOP_TOP
    inner: 2   LOAD_FAST a
               POP_JUMP_IF_FALSE -> rest
           3   PUSH_NULL
               LOAD_GLOBAL g
               CALL (0, (), 2)
               POP_TOP
           2   JUMP -> inner
    rest:  4   PUSH_NULL
               LOAD_GLOBAL h
               CALL (0, (), 2)
               POP_TOP
           1   JUMP -> outer
    """, varnames=("a",), argcount=1, names=("g", "h")).body()
    outer = stmts[0]
    assert (outer.lineno, outer.body[0].lineno, outer.body[1].lineno) == (1, 2, 4)
    assert ast.unparse(outer) == source("""
        while True:
            while a:
                g()
            h()
    """)


#: the clean-up an except clause's own code is covered by
CLEANUP = """
    cleanup:   COPY 3
               POP_EXCEPT
               RERAISE 1
"""


def test_loop_gone_round_only_from_an_except_clause():
    # `while c: try: while True: g() except E: pass`: the try body never falls
    # off its end, so the only jump back to the outer head is the clause's way
    # out; it is a back edge all the same (the head dominates it), and closes
    # the loop
    text = """
    head:  2   LOAD_FAST c
               POP_JUMP_IF_FALSE -> out
    inner: 5   PUSH_NULL !h/0
               LOAD_GLOBAL g !h/0
               CALL (0, (), 2) !h/0
               POP_TOP !h/0
           4   JUMP -> inner !h/0
    h:         PUSH_EXC_INFO !cleanup/1/1
           6   LOAD_GLOBAL E !cleanup/1/1
               CHECK_EXC_MATCH !cleanup/1/1
               POP_JUMP_IF_FALSE -> other !cleanup/1/1
               POP_TOP !cleanup/1/1
           7   POP_EXCEPT
               JUMP -> head
    other:     RERAISE 0 !cleanup/1/1
    out:       LOAD_CONST None
               RETURN_VALUE
    """ + CLEANUP
    fields = dict(varnames=("c",), argcount=1, names=("g", "E"))
    assert walker(text, **fields).back_targets == {0: [13], 2: [6]}
    assert structure(text, **fields) == source("""
        while c:
            try:
                while True:
                    g()
            except E:
                pass
        return None
    """)


def test_continue_from_an_except_clause_does_not_close_the_loop():
    # the clause's `continue` goes back to the head too, but the loop's body
    # ends with the jump after `g(x)`: only the jumps back in normal code
    # close it, wherever the clause is laid out
    text = """
           1   LOAD_FAST xs
               GET_ITER
    top:       FOR_ITER -> done
               STORE_FAST x
           3   PUSH_NULL !h/0
               LOAD_GLOBAL g !h/0
               LOAD_FAST x !h/0
               CALL (1, (), 2) !h/0
               POP_TOP !h/0
               JUMP -> rest
    h:         PUSH_EXC_INFO !cleanup/1/1
           4   LOAD_GLOBAL E !cleanup/1/1
               CHECK_EXC_MATCH !cleanup/1/1
               POP_JUMP_IF_FALSE -> other !cleanup/1/1
               POP_TOP !cleanup/1/1
           5   POP_EXCEPT
               JUMP -> top
    other:     RERAISE 0 !cleanup/1/1
    """ + CLEANUP + """
    rest:  6   PUSH_NULL
               LOAD_GLOBAL g
               LOAD_FAST x
               CALL (1, (), 2)
               POP_TOP
               JUMP -> top
    done:      LOAD_CONST None
               RETURN_VALUE
    """
    fields = dict(varnames=("xs", "x"), argcount=1, names=("g", "E"))
    w = walker(text, **fields)
    assert [loop.header.start for loop in w.cfg.loops] == [2]
    assert sorted(b.last.index for b in w.cfg.loops[0].latches) == [16, 26]
    assert w.back_targets == {2: [26]}
    assert structure(text, **fields) == source("""
        for x in xs:
            try:
                g(x)
            except E:
                continue
            g(x)
        return None
    """)


def test_jump_back_over_an_else_is_no_loop():
    # an if's branch jumping back to the join laid out before it (the code
    # after the if moved up): backward in layout, but the join does not
    # dominate the branch, so there is no loop
    w = walker("""
           1   LOAD_FAST a
               POP_JUMP_IF_FALSE -> other
           2   PUSH_NULL
               LOAD_GLOBAL f
               CALL (0, (), 2)
               POP_TOP
    join:  4   LOAD_CONST None
               RETURN_VALUE
    other: 3   PUSH_NULL
               LOAD_GLOBAL g
               CALL (0, (), 2)
               POP_TOP
               JUMP -> join
    """, varnames=("a",), argcount=1, names=("f", "g"))
    assert w.back_targets == {}


def test_loop_gone_round_only_by_a_with_that_swallows_has_no_closing_jump():
    # `for x in xs: with x: raise E()`: only the with statement's way on
    # after a swallowed exception goes round (a back edge all the same); the
    # with statement reads that way on itself, so the loop is walked as one
    # whose body never comes back, and the code after it is no part of it
    text = """
           1   LOAD_FAST xs
               GET_ITER
    top:       FOR_ITER -> done
               STORE_FAST x
           2   LOAD_FAST x
               BEFORE_WITH
               POP_TOP !exit/2/1
           3   PUSH_NULL !exit/2/1
               LOAD_GLOBAL E !exit/2/1
               CALL (0, (), 2) !exit/2/1
               RAISE_VARARGS 1 !exit/2/1
    done:  4   LOAD_CONST 5
               RETURN_VALUE
    exit:  2   PUSH_EXC_INFO !cleanup/4/1
               WITH_EXCEPT_START !cleanup/4/1
               POP_JUMP_IF_TRUE -> swallow !cleanup/4/1
               RERAISE 2 !cleanup/4/1
    swallow:   POP_TOP !cleanup/4/1
               POP_EXCEPT
               POP_TOP
               POP_TOP
               JUMP -> top
    """ + CLEANUP
    fields = dict(varnames=("xs", "x"), argcount=1, names=("E",))
    w = walker(text, **fields)
    assert [loop.header.start for loop in w.cfg.loops] == [2]
    assert w.back_targets == {}
    assert structure(text, **fields) == source("""
        for x in xs:
            with x:
                raise E()
        return 5
    """)


def test_break_threaded_to_the_outer_head():
    # the inner loop ends the outer body, so its exit is the outer loop's
    # closing jump; the compiler sent the break straight on to the outer head:
    # out of the inner loop's body, where its exit leads, so a break (Python
    # has no `continue` of an outer loop)
    text = """
           1   LOAD_FAST xs
               GET_ITER
    outer:     FOR_ITER -> done
               STORE_FAST x
           2   LOAD_FAST x
               GET_ITER
    inner:     FOR_ITER -> next
               STORE_FAST y
           3   LOAD_FAST y
               POP_JUMP_IF_FALSE -> inner
           4   POP_TOP
    brk:       JUMP -> outer
    next:  2   JUMP -> outer
    done:  1   LOAD_CONST None
               RETURN_VALUE
    """
    fields = dict(varnames=("xs", "x", "y"), argcount=1)
    w = walker(text, **fields)
    inner = w.loop_forest[6]
    assert inner.parent is w.loop_forest[2]
    assert w.cfg.block_of(w.ops[11]) not in inner      # (the break leaves the body)
    assert structure(text, **fields) == source("""
        for x in xs:
            for y in x:
                if y:
                    break
        return None
    """)


def test_continue_and_break_of_a_loop_in_a_finally_body():
    # the loop's copy in the handler is handler code: its jumps back are
    # handler code too, and close it; the `break` leaves the loop's body for
    # its exit, the RERAISE ending the finally body (the conditional jumps
    # back are `continue` statements of their own: Function.jump_statements)
    text = """
           2   PUSH_NULL !h/0
               LOAD_GLOBAL f !h/0
               CALL (0, (), 2) !h/0
               POP_TOP !h/0
           4   LOAD_FAST xs
               GET_ITER
    top:       FOR_ITER -> done
               STORE_FAST x
           5   LOAD_FAST x
    c1:        POP_JUMP_IF_TRUE -> top
           6   LOAD_FAST x
               POP_JUMP_IF_FALSE -> rest
               POP_TOP
               JUMP -> done
    rest:  7   PUSH_NULL
               LOAD_GLOBAL g
               LOAD_FAST x
               CALL (1, (), 2)
               POP_TOP
               JUMP -> top
    done:      LOAD_CONST None
               RETURN_VALUE
    h:         PUSH_EXC_INFO !cleanup/1/1
           4   LOAD_FAST xs !cleanup/1/1
               GET_ITER !cleanup/1/1
    htop:      FOR_ITER -> hdone !cleanup/1/1
               STORE_FAST x !cleanup/1/1
           5   LOAD_FAST x !cleanup/1/1
    c2:        POP_JUMP_IF_TRUE -> htop !cleanup/1/1
           6   LOAD_FAST x !cleanup/1/1
               POP_JUMP_IF_FALSE -> hrest !cleanup/1/1
               POP_TOP !cleanup/1/1
               JUMP -> hdone !cleanup/1/1
    hrest: 7   PUSH_NULL !cleanup/1/1
               LOAD_GLOBAL g !cleanup/1/1
               LOAD_FAST x !cleanup/1/1
               CALL (1, (), 2) !cleanup/1/1
               POP_TOP !cleanup/1/1
               JUMP -> htop !cleanup/1/1
    hdone:     RERAISE 0 !cleanup/1/1
    """ + CLEANUP
    fields = dict(varnames=("xs", "x"), argcount=1, names=("f", "g"), statements=("c1", "c2"))
    w = walker(text, **fields)
    assert sorted(w.back_targets) == [6, 25]
    assert w.back_targets[25] == [28, 38]
    assert structure(text, **fields) == source("""
        try:
            f()
        finally:
            for x in xs:
                if x:
                    continue
                if x:
                    break
                g(x)
        return None
    """)


def test_while_test_with_a_conditional_expression_in_an_operand():
    # the test's own jumps land inside it: read as a value, then the loop's exit test
    assert structure("""
    top:   1   PUSH_NULL
               LOAD_FAST f
               LOAD_FAST c
               POP_JUMP_IF_FALSE -> other
               LOAD_FAST a
               JUMP -> call
    other:     LOAD_FAST b
    call:      CALL (1, (), 2)
               POP_JUMP_IF_FALSE -> done
           2   LOAD_FAST a
               LOAD_CONST 1
               BINARY_OP '+='
               STORE_FAST a
               JUMP -> top
    done:  3   LOAD_FAST a
               RETURN_VALUE
    """, varnames=("f", "a", "b", "c"), argcount=4) == source("""
        while f(a if c else b):
            a += 1
        return a
    """)
