"""The comprehensions family on hand-built normalised IR
(tests/structure_ops.py): a comprehension inlined into the code around it
(3.12+ compiles list, set and dict comprehensions so), its loop variable saved
and restored around it, folded into one expression.
"""
from structure_ops import source, structure


def inlined(build, append, element):
    """``return <comprehension over xs with `if x`>``, inlined: the outer
    ``x`` is saved (LOAD_FAST_AND_CLEAR) and put back on both ways out."""
    return """
           1   LOAD_FAST xs
               GET_ITER
               LOAD_FAST_AND_CLEAR x
               SWAP 2
               %s !restore/2
               SWAP 2 !restore/2
    top:       FOR_ITER -> done !restore/2
               STORE_FAST x !restore/2
               LOAD_FAST x !restore/2
               POP_JUMP_IF_FALSE -> top !restore/2
    %s
               JUMP -> top !restore/2
    done:      SWAP 2
               STORE_FAST x
               RETURN_VALUE
    restore:   SWAP 2
               POP_TOP
           1   SWAP 2
               STORE_FAST x
               RERAISE 0
    """ % (build, "\n".join("           %s !restore/2" % op for op in element + [append]))


def test_inlined_list_comprehension_with_a_condition():
    assert structure(inlined("BUILD_LIST 0", "LIST_APPEND 2",
                             ["LOAD_FAST x", "LOAD_CONST 1", "BINARY_OP '+'"]),
                     varnames=("xs", "x"), argcount=1) == source("""
        return [x + 1 for x in xs if x]
    """)


def test_inlined_set_comprehension():
    assert structure(inlined("BUILD_SET 0", "SET_ADD 2", ["LOAD_FAST x"]),
                     varnames=("xs", "x"), argcount=1) == source("""
        return {x for x in xs if x}
    """)


def test_inlined_dict_comprehension():
    assert structure(inlined("BUILD_MAP 0", "MAP_ADD 2", ["LOAD_FAST x", "LOAD_CONST 0"]),
                     varnames=("xs", "x"), argcount=1) == source("""
        return {x: 0 for x in xs if x}
    """)
