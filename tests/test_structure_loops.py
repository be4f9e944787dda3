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
