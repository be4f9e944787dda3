"""The exceptions family on hand-built normalised IR (tests/structure_ops.py):
try statements read from explicit handler regions (each op names the handler
covering it, ``!label/depth/lasti``), their clauses, else and finally.
"""
from structure_ops import source, structure


#: the clean-up every handler's own code is covered by
CLEANUP = """
    cleanup:   COPY 3
               POP_EXCEPT
               RERAISE 1
"""


def test_try_except_as_with_else():
    # the else runs where the body falls off its end; the clause's name is
    # cleared and deleted on each way out of it
    assert structure("""
           2   PUSH_NULL !h/0
               LOAD_GLOBAL f !h/0
               CALL (0, (), 2) !h/0
               POP_TOP !h/0
           6   PUSH_NULL
               LOAD_GLOBAL h
               CALL (0, (), 2)
               POP_TOP
               LOAD_CONST None
               RETURN_VALUE
    h:         PUSH_EXC_INFO !cleanup/1/1
           3   LOAD_GLOBAL E !cleanup/1/1
               CHECK_EXC_MATCH !cleanup/1/1
               POP_JUMP_IF_FALSE -> nomatch !cleanup/1/1
               STORE_FAST e !cleanup/1/1
           4   PUSH_NULL !unbind/1/1
               LOAD_GLOBAL g !unbind/1/1
               LOAD_FAST e !unbind/1/1
               CALL (1, (), 2) !unbind/1/1
               POP_TOP !unbind/1/1
               POP_EXCEPT
               LOAD_CONST None
               STORE_FAST e
               DELETE_FAST e
               LOAD_CONST None
               RETURN_VALUE
    unbind:    LOAD_CONST None !cleanup/1/1
               STORE_FAST e !cleanup/1/1
               DELETE_FAST e !cleanup/1/1
               RERAISE 1 !cleanup/1/1
    nomatch: 3 RERAISE 0 !cleanup/1/1
    """ + CLEANUP, varnames=("e",), names=("f", "h", "E", "g")) == source("""
        try:
            f()
        except E as e:
            g(e)
        else:
            h()
        return None
    """)


def test_bare_except_that_swallows():
    # no type test: the handler pops the exception and goes on after the try
    assert structure("""
           2   PUSH_NULL !h/0
               LOAD_GLOBAL f !h/0
               CALL (0, (), 2) !h/0
               POP_TOP !h/0
    after: 5   PUSH_NULL
               LOAD_GLOBAL g
               CALL (0, (), 2)
               POP_TOP
               LOAD_CONST None
               RETURN_VALUE
    h:         PUSH_EXC_INFO !cleanup/1/1
           3   POP_TOP !cleanup/1/1
           4   POP_EXCEPT
               JUMP -> after
    """ + CLEANUP, names=("f", "g")) == source("""
        try:
            f()
        except:
            pass
        g()
        return None
    """)


def test_try_finally_whose_body_is_copied_on_the_normal_way_out():
    # the finally body is compiled twice: inline after the try body, and in
    # the handler, which re-raises; the copy is one finally clause
    assert structure("""
           2   PUSH_NULL !h/0
               LOAD_GLOBAL f !h/0
               CALL (0, (), 2) !h/0
               POP_TOP !h/0
           4   PUSH_NULL
               LOAD_GLOBAL g
               CALL (0, (), 2)
               POP_TOP
               LOAD_CONST None
               RETURN_VALUE
    h:         PUSH_EXC_INFO !cleanup/1/1
           4   PUSH_NULL !cleanup/1/1
               LOAD_GLOBAL g !cleanup/1/1
               CALL (0, (), 2) !cleanup/1/1
               POP_TOP !cleanup/1/1
               RERAISE 0 !cleanup/1/1
    """ + CLEANUP, names=("f", "g")) == source("""
        try:
            f()
        finally:
            g()
        return None
    """)


def test_two_typed_clauses_tried_in_turn():
    # each clause's type test jumps to the next clause when it does not match
    assert structure("""
           2   PUSH_NULL !h/0
               LOAD_GLOBAL f !h/0
               CALL (0, (), 2) !h/0
               POP_TOP !h/0
    after: 7   LOAD_CONST None
               RETURN_VALUE
    h:         PUSH_EXC_INFO !cleanup/1/1
           3   LOAD_GLOBAL A !cleanup/1/1
               CHECK_EXC_MATCH !cleanup/1/1
               POP_JUMP_IF_FALSE -> second !cleanup/1/1
               POP_TOP !cleanup/1/1
           4   PUSH_NULL !cleanup/1/1
               LOAD_GLOBAL g !cleanup/1/1
               CALL (0, (), 2) !cleanup/1/1
               POP_TOP !cleanup/1/1
               POP_EXCEPT
               JUMP -> after
    second: 5  LOAD_GLOBAL B !cleanup/1/1
               CHECK_EXC_MATCH !cleanup/1/1
               POP_JUMP_IF_FALSE -> nomatch !cleanup/1/1
               POP_TOP !cleanup/1/1
           6   PUSH_NULL !cleanup/1/1
               LOAD_GLOBAL h !cleanup/1/1
               CALL (0, (), 2) !cleanup/1/1
               POP_TOP !cleanup/1/1
               POP_EXCEPT
               JUMP -> after
    nomatch: 5 RERAISE 0 !cleanup/1/1
    """ + CLEANUP, names=("f", "A", "g", "B", "h")) == source("""
        try:
            f()
        except A:
            g()
        except B:
            h()
        return None
    """)
