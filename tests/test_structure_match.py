"""The match family on hand-built normalised IR (tests/structure_ops.py): the
subject copied for each case, the pattern tests, captures, and the case that
falls through to the next one. (The compiler copies the closing ``return
None`` into each case; the walker keeps the copies, and the function layer
drops them with the closing one.)
"""
from structure_ops import source, structure


def test_sequence_pattern_then_class_pattern():
    # the subject is copied before each test but the last case's; a failed
    # sequence test pops the copy and tries the class pattern
    assert structure("""
           1   LOAD_FAST x
           2   COPY 1
               MATCH_SEQUENCE
               POP_JUMP_IF_FALSE -> second
               GET_LEN
               LOAD_CONST 2
               COMPARE_OP '=='
               POP_JUMP_IF_FALSE -> second
               UNPACK_SEQUENCE 2
               STORE_FAST a
               STORE_FAST b
               POP_TOP
           3   PUSH_NULL
               LOAD_GLOBAL f
               LOAD_FAST a
               LOAD_FAST b
               CALL (2, (), 2)
               POP_TOP
               LOAD_CONST None
               RETURN_VALUE
    second: 2  POP_TOP
           4   LOAD_GLOBAL Point
               LOAD_CONST ('y',)
               MATCH_CLASS 0
               COPY 1
               POP_JUMP_IF_NONE -> nomatch
               UNPACK_SEQUENCE 1
               LOAD_CONST 0
               COMPARE_OP '=='
               POP_JUMP_IF_FALSE -> done
           5   PUSH_NULL
               LOAD_GLOBAL h
               CALL (0, (), 2)
               POP_TOP
               LOAD_CONST None
               RETURN_VALUE
    nomatch: 4 POP_TOP
               LOAD_CONST None
               RETURN_VALUE
    done:      LOAD_CONST None
               RETURN_VALUE
    """, varnames=("x", "a", "b"), argcount=1, names=("f", "Point", "h")) == source("""
        match x:
            case [a, b]:
                f(a, b)
                return None
            case Point(y=0):
                h()
                return None
        return None
    """)


def test_mapping_pattern_with_a_capture_and_a_wildcard_case():
    assert structure("""
           1   LOAD_FAST x
           2   MATCH_MAPPING
               POP_JUMP_IF_FALSE -> other
               GET_LEN
               LOAD_CONST 1
               COMPARE_OP '>='
               POP_JUMP_IF_FALSE -> other
               LOAD_CONST ('k',)
               MATCH_KEYS
               COPY 1
               POP_JUMP_IF_NONE -> nokeys
               UNPACK_SEQUENCE 1
               STORE_FAST v
               POP_TOP
               POP_TOP
           3   PUSH_NULL
               LOAD_GLOBAL g
               LOAD_FAST v
               CALL (1, (), 2)
               POP_TOP
               LOAD_CONST None
               RETURN_VALUE
    nokeys:    POP_TOP
               POP_TOP
    other: 2   POP_TOP
           5   PUSH_NULL
               LOAD_GLOBAL h
               CALL (0, (), 2)
               POP_TOP
               LOAD_CONST None
               RETURN_VALUE
    """, varnames=("x", "v"), argcount=1, names=("g", "h")) == source("""
        match x:
            case {'k': v}:
                g(v)
                return None
            case _:
                h()
                return None
    """)
