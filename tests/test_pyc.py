"""The .pyc reader: header, every marshal type code, and clear errors on bad input."""
import importlib.util
import marshal
import struct
import sys

import pytest

from depyf.bytecode import (BadMagicError, BytecodeError, CodeRecord, MarshalError,
                            TruncatedError, parse_pyc, unmarshal)
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
    # Replace the marshalled co_code bytes object's type byte by an int.
    index = data.index(b"s", 16 + 1 + 4 * 5)
    data[index] = ord("N")
    with pytest.raises(MarshalError) as info:
        parse_pyc(bytes(data), "t.pyc")
    assert "field" in str(info.value)


def test_bad_utf8_and_long_digit():
    expect_error(GOOD[:16] + b"u\x02\x00\x00\x00\xff\xfe", MarshalError, "UTF-8")
    expect_error(GOOD[:16] + b"l\x01\x00\x00\x00\xff\xff", MarshalError, "digit out of range")
