"""The with family on hand-built normalised IR (tests/structure_ops.py): the
body under the exit handler, the exit call on the normal way out, and the
handler that asks ``__exit__`` whether to swallow the exception.
"""
import pytest
from structure_ops import source, structure

from depyf.decompiler.failure import DecompileFailure


#: the exit call on the body's normal way out, ``__exit__(None, None, None)``
EXIT_CALL = """
           1   LOAD_CONST None
               LOAD_CONST None
               LOAD_CONST None
               CALL (2, (), 2)
               POP_TOP
"""

#: the handler of a with statement whose body's handler is `exit`, and the
#: clean-up covering it; `after` is where a swallowed exception goes on
EXIT_HANDLER = """
    exit:      PUSH_EXC_INFO !cleanup/3/1
               WITH_EXCEPT_START !cleanup/3/1
               POP_JUMP_IF_TRUE -> swallow !cleanup/3/1
               RERAISE 2 !cleanup/3/1
    cleanup:   COPY 3
               POP_EXCEPT
               RERAISE 1
    swallow: 1 POP_TOP !cleanup/3/1
               POP_EXCEPT
               POP_TOP
               POP_TOP
"""


def test_with_as_and_its_exit_call():
    assert structure("""
           1   LOAD_FAST x
               BEFORE_WITH
               STORE_FAST y !exit/1/1
           2   PUSH_NULL !exit/1/1
               LOAD_GLOBAL g !exit/1/1
               LOAD_FAST y !exit/1/1
               CALL (1, (), 2) !exit/1/1
               POP_TOP !exit/1/1
    """ + EXIT_CALL + """
               LOAD_CONST None
               RETURN_VALUE
    """ + EXIT_HANDLER + """
               LOAD_CONST None
               RETURN_VALUE
    """, varnames=("x", "y"), argcount=1, names=("g",)) == source("""
        with x as y:
            g(y)
        return None
    """)


def test_with_whose_value_is_not_bound_and_code_after_it():
    # the entered value is popped; after the exit call the code goes on, and
    # a swallowed exception rejoins it there
    assert structure("""
           1   LOAD_FAST x
               BEFORE_WITH
               POP_TOP !exit/1/1
           2   PUSH_NULL !exit/1/1
               LOAD_GLOBAL g !exit/1/1
               CALL (0, (), 2) !exit/1/1
               POP_TOP !exit/1/1
    """ + EXIT_CALL + """
    after: 3   PUSH_NULL
               LOAD_GLOBAL h
               CALL (0, (), 2)
               POP_TOP
               LOAD_CONST None
               RETURN_VALUE
    """ + EXIT_HANDLER + """
               JUMP -> after
    """, varnames=("x",), argcount=1, names=("g", "h")) == source("""
        with x:
            g()
        h()
        return None
    """)



def _with_g_then_return_y(swallowed_way_on: str) -> str:
    """``with ctx: g()`` whose normal way out goes on to ``return y``, and
    its handler's swallowing way out to ``swallowed_way_on`` (``top``: the
    start of the body)."""
    return """
           1   LOAD_FAST ctx
               BEFORE_WITH
               POP_TOP !exit/1/1
    top:   2   PUSH_NULL !exit/1/1
               LOAD_GLOBAL g !exit/1/1
               CALL (0, (), 2) !exit/1/1
               POP_TOP !exit/1/1
    """ + EXIT_CALL + """
           3   LOAD_FAST y
               RETURN_VALUE
    """ + EXIT_HANDLER + swallowed_way_on


def test_with_whose_swallowed_exception_goes_elsewhere_keeps_a_flag():
    # Dynamo's resume function re-entering a with block: after __exit__
    # swallows an exception the code raises (its prologue's `raise None`),
    # where the body's normal end goes on to `return y`. No with statement
    # does that alone: a flag the body's end clears tells the two apart.
    assert structure(_with_g_then_return_y("""
               LOAD_CONST None
               RAISE_VARARGS 1
    """), varnames=("ctx", "y"), argcount=2, names=("g",)) == source("""
        swallowed = True
        with ctx:
            g()
            swallowed = False
        if swallowed:
            raise None
        return y
    """)


def test_with_whose_swallowed_exception_goes_on_nowhere_a_statement_goes_fails():
    # after the swallow the code jumps back to the body's start: no flag
    # can say that, so the structure is refused (the fallback writes it)
    with pytest.raises(DecompileFailure, match="swallowed exception goes on elsewhere"):
        structure(_with_g_then_return_y("""
               JUMP -> top
        """), varnames=("ctx", "y"), argcount=2, names=("g",))
