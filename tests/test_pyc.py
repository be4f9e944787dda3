"""The .pyc reader: header, every marshal type code, and clear errors on bad input."""
import importlib.util
import marshal
import struct
import sys

import pytest

from depyf.bytecode import (BadMagicError, BytecodeError, CodeRecord, MarshalError,
                            TruncatedError, get_table, parse_pyc, unmarshal)
from depyf.bytecode.pyc import MAX_DEPTH

HOST = sys.version_info[:2]


def pyc_bytes(code, flags=0, extra=b"\0" * 8):
    return importlib.util.MAGIC_NUMBER + struct.pack("<I", flags) + extra + marshal.dumps(code)


def load(value):
    return unmarshal(marshal.dumps(value), HOST)


@pytest.mark.parametrize("value", [
    None, True, False, Ellipsis, StopIteration,
    0, 1, -1, 2**31 - 1, -2**31, 2**31, -2**31 - 1, 2**100, -(2**100) + 7, 2**15, 2**30,
    0.0, -0.0, 1.5, float("inf"), 1e300, 3j, complex(1.5, -2.25),
    b"", b"bytes\x00\xff", "", "ascii", "ünïcödé", "\udc80 lone surrogate", "x" * 300,
    (), (1,), tuple(range(300)), [1, [2, [3]]], {"a": 1, 2: (3,)}, {1, 2, 3},
    frozenset(), frozenset({"a", (1, 2)}), ((1, 2), (1, 2)),
])
def test_values_match_host_marshal(value):
    got = load(value)
    assert type(got) is type(value)
    if isinstance(value, (set, frozenset)):
        assert got == value      # iteration order follows insertion, not value
    else:
        assert repr(got) == repr(value)


def test_nan_float():
    assert load(float("nan")) != load(float("nan"))


def test_old_format_versions_text_float_and_int64():
    # Marshal version 1 writes floats as text ('f'/'x'); int64 'I' is still readable.
    assert unmarshal(marshal.dumps(1.25, 1), HOST) == 1.25
    assert unmarshal(marshal.dumps(2 + 3j, 1), HOST) == 2 + 3j
    assert unmarshal(b"I" + struct.pack("<q", -5), HOST) == -5


def test_refs_are_shared():
    s = "shared-string-" * 3
    data = marshal.dumps((s, s, s))
    assert b"r" in data
    a, b, c = unmarshal(data, HOST)
    assert a == b == c == s


def test_code_object_fields():
    src = "def f(a, /, b, *args, c, **kw):\n    x = lambda: a\n    return x\n"
    code = compile(src, "mod.py", "exec")
    pyc = parse_pyc(pyc_bytes(code), "mod.pyc")
    assert pyc.version == HOST and pyc.path == "mod.pyc" and not pyc.hash_based
    rec = pyc.code
    assert isinstance(rec, CodeRecord) and rec.name == "<module>" and rec.filename == "mod.py"
    f = next(rec.iter_code_consts())
    live = next(c for c in code.co_consts if hasattr(c, "co_code"))
    assert (f.name, f.argcount, f.posonlyargcount, f.kwonlyargcount, f.flags) == (
        live.co_name, live.co_argcount, live.co_posonlyargcount, live.co_kwonlyargcount,
        live.co_flags)
    assert f.varnames == live.co_varnames and f.cellvars == live.co_cellvars
    assert f.code == live.co_code and f.names == live.co_names
    assert [c.name for c in rec.walk()] == ["<module>", "f", "<lambda>"]


def test_hash_based_header():
    pyc = parse_pyc(pyc_bytes(compile("1", "m", "exec"), flags=3, extra=b"12345678"))
    assert pyc.hash_based and pyc.check_source and pyc.source_hash == b"12345678"


# -- bad input: every failure is a BytecodeError naming file and offset --------

def expect_error(data, cls, fragment, path="bad.pyc"):
    with pytest.raises(cls) as info:
        parse_pyc(data, path)
    message = str(info.value)
    assert path in message and "byte" in message, message
    assert fragment in message, message
    return info.value


GOOD = pyc_bytes(compile("x = (1, 'two', 3.0)", "m.py", "exec"))


def test_empty_and_truncated_header():
    expect_error(b"", TruncatedError, "too short")
    expect_error(GOOD[:10], TruncatedError, "header")


def test_truncated_body_everywhere():
    for cut in range(16, len(GOOD)):
        with pytest.raises(BytecodeError) as info:
            parse_pyc(GOOD[:cut], "cut.pyc")
        assert "cut.pyc" in str(info.value)


def test_wrong_magic():
    expect_error(b"\x00\x00\r\n" + GOOD[4:], BadMagicError, "unknown magic")
    expect_error(b"abcd" + GOOD[4:], BadMagicError, "not a .pyc")


def test_unknown_magic_names_the_supported_range():
    err = expect_error(b"\x00\x00\r\n" + GOOD[4:], BadMagicError, "unknown magic")
    assert "3.8-3.15" in str(err)


@pytest.mark.parametrize("magic,version", [(3627, (3, 14)), (3666, (3, 15)),
                                           (3571, (3, 13)), (3413, (3, 8))])
def test_release_magics(magic, version):
    from depyf.bytecode import version_from_magic
    assert version_from_magic(magic) == version


@pytest.mark.parametrize("magic,version", [(3600, "3.14"), (3626, "3.14"), (3650, "3.15")])
def test_newest_prerelease_magics_are_named(magic, version):
    err = expect_error(magic.to_bytes(2, "little") + b"\r\n" + GOOD[4:], BadMagicError,
                       "pre-release")
    assert version in str(err)


# 3.14's marshal (version 5) writes slice constants, 3.15's (6) frozendicts; the
# bytes are what those interpreters' marshal.dumps gave.
SLICE = b":\xe9\x01\x00\x00\x00\xe9\x02\x00\x00\x00N"                  # slice(1, 2)
FROZENDICT = b"\xfd\xda\x01k\xe9\x01\x00\x00\x00\xda\x01j\xe7" + struct.pack("<d", 1.5) + b"0"


def test_slice_constants_from_314():
    assert unmarshal(SLICE, (3, 14)) == slice(1, 2, None)
    # (slice, slice) of one slice: the slice takes reference 0, before its items
    shared = b")\x02\xba\xe9\x01\x00\x00\x00\xe9\x02\x00\x00\x00Nr\x00\x00\x00\x00"
    first, second = unmarshal(shared, (3, 15))
    assert first == slice(1, 2) and second is first
    with pytest.raises(MarshalError, match="unknown type code ':'"):
        unmarshal(SLICE, (3, 13))


def test_frozendict_constants_from_315():
    from depyf.bytecode.code import frozendict
    value = unmarshal(FROZENDICT, (3, 15))
    assert type(value) is frozendict and type(value).__name__ == "frozendict"
    assert value == {"k": 1, "j": 1.5} and repr(value) == "frozendict({'k': 1, 'j': 1.5})"
    assert hash(value) == hash(frozendict(j=1.5, k=1))
    with pytest.raises(TypeError):
        value["k"] = 2
    # a reference to it (index 0: reserved before its items are read) is the same object
    pair = unmarshal(b")\x02" + FROZENDICT + b"r\x00\x00\x00\x00", (3, 15))
    assert pair[0] is pair[1]
    with pytest.raises(MarshalError, match="unknown type code '}'"):
        unmarshal(FROZENDICT, (3, 14))
    with pytest.raises(MarshalError, match="unhashable dict key"):
        unmarshal(b"}[\x00\x00\x00\x00N0", (3, 15))


def test_prerelease_magic_is_named():
    err = expect_error((3450).to_bytes(2, "little") + b"\r\n" + GOOD[4:], BadMagicError,
                       "pre-release")
    assert "3.11" in str(err)


def test_unknown_type_code():
    err = expect_error(GOOD[:16] + b"Q", MarshalError, "unknown type code")
    assert err.offset == 16


def test_reference_out_of_range():
    expect_error(GOOD[:16] + b"r" + struct.pack("<i", 7), MarshalError, "reference 7 out of range")


def test_absurd_lengths():
    expect_error(GOOD[:16] + b"(" + struct.pack("<i", 2**30), MarshalError, "declares")
    expect_error(GOOD[:16] + b"u" + struct.pack("<i", 2**31 - 1), MarshalError, "declares")
    expect_error(GOOD[:16] + b"l" + struct.pack("<i", -2**30), MarshalError, "digits")
    expect_error(GOOD[:16] + b"[" + struct.pack("<i", -4), MarshalError, "negative")


def test_deep_nesting():
    data = GOOD[:16] + b")\x01" * (MAX_DEPTH + 50) + b"N"
    expect_error(data, MarshalError, "nested")


def test_top_level_not_code():
    expect_error(GOOD[:16] + marshal.dumps((1, 2)), MarshalError, "not a code object")


def test_code_field_of_wrong_type():
    data = bytearray(GOOD)
    # Replace the marshalled co_code bytes object's type byte by None. It follows
    # the code object's type byte and its int fields (the code's own bytes may
    # hold an "s", 3.15's STORE_NAME).
    # (every field before co_code is a 4-byte int)
    fields = get_table(HOST).code_fields
    index = 16 + 1 + 4 * fields.index("code")
    assert data[index] & 0x7f == ord("s")
    data[index] = ord("N")
    with pytest.raises(MarshalError) as info:
        parse_pyc(bytes(data), "t.pyc")
    assert "field" in str(info.value)


def test_bad_utf8_and_long_digit():
    expect_error(GOOD[:16] + b"u\x02\x00\x00\x00\xff\xfe", MarshalError, "UTF-8")
    expect_error(GOOD[:16] + b"l\x01\x00\x00\x00\xff\xff", MarshalError, "digit out of range")
