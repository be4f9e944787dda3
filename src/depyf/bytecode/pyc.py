"""Reading .pyc files of any supported version, without ``marshal``.

The file's own interpreter need not be the one running depyf, and the data
may be hostile, so this module never calls ``marshal.loads`` and never
evaluates anything: it walks the marshal format itself and builds plain
values and :class:`~depyf.bytecode.code.CodeRecord` objects.

Layout of a 3.8+ .pyc (PEP 552)::

    magic (2 bytes LE) b'\\r\\n' | flags (4) | mtime (4) size (4)   -- flags bit 0 clear
                                           | source hash (8)       -- flags bit 0 set
    marshalled code object

Example::

    >>> pyc = read_pyc("__pycache__/mod.cpython-311.pyc")     # doctest: +SKIP
    >>> pyc.version, pyc.code.name                              # doctest: +SKIP
    ((3, 11), '<module>')
"""
from __future__ import annotations

import os
import struct
import sys
from dataclasses import dataclass
from typing import Optional, Tuple, Union

from .code import CodeRecord, frozendict, split_localsplus
from .errors import BadMagicError, BytecodeError, MarshalError, TruncatedError
from .versions import get_table, version_from_magic

HEADER_SIZE = 16
FLAG_REF = 0x80
#: Nesting bound; CPython's own is 2000, but real files nest a few dozen deep and
#: each level costs us Python frames.
MAX_DEPTH = 300

_unpack_double = struct.Struct("<d").unpack_from


@dataclass
class PycFile:
    """A parsed .pyc file."""
    path: Optional[str]
    magic: int
    version: Tuple[int, int]
    flags: int
    #: PEP 552: hash-based files have a source hash, others mtime and size
    source_hash: Optional[bytes]
    mtime: Optional[int]
    source_size: Optional[int]
    code: CodeRecord

    @property
    def hash_based(self) -> bool:
        return bool(self.flags & 1)

    @property
    def check_source(self) -> bool:
        return bool(self.flags & 2)


def read_pyc(path: Union[str, os.PathLike]) -> PycFile:
    """Read and parse a .pyc file of CPython 3.8-3.15.

    Raises :class:`BytecodeError` (naming the file and byte offset) for any
    malformed content.
    """
    path = os.fspath(path)
    with open(path, "rb") as f:
        data = f.read()
    return parse_pyc(data, path)


def parse_pyc(data: bytes, path: Optional[str] = None) -> PycFile:
    """Parse the bytes of a .pyc file; ``path`` is used in error messages only."""
    if len(data) < 4:
        raise TruncatedError("file is %d bytes, too short for a .pyc header" % len(data), path, 0)
    magic = int.from_bytes(data[:2], "little")
    if data[2:4] != b"\r\n":
        raise BadMagicError("not a .pyc file (bad magic bytes %r)" % bytes(data[:4]), path, 0)
    try:
        version = version_from_magic(magic)
    except BytecodeError as e:
        raise type(e)(e.reason, path, 0) from None
    if len(data) < HEADER_SIZE:
        raise TruncatedError("header ends after %d of %d bytes" % (len(data), HEADER_SIZE),
                             path, len(data))
    flags = int.from_bytes(data[4:8], "little")
    if flags & ~3:
        raise MarshalError("invalid .pyc flags 0x%x" % flags, path, 4)
    if flags & 1:
        source_hash, mtime, size = bytes(data[8:16]), None, None
    else:
        source_hash = None
        mtime = int.from_bytes(data[8:12], "little")
        size = int.from_bytes(data[12:16], "little")
    code = unmarshal(data, version, path=path, start=HEADER_SIZE)
    if not isinstance(code, CodeRecord):
        raise MarshalError("top-level object is %s, not a code object" % type(code).__name__,
                           path, HEADER_SIZE)
    return PycFile(path, magic, version, flags, source_hash, mtime, size, code)


def unmarshal(data: bytes, version, path: Optional[str] = None, start: int = 0):
    """Read one marshalled object from ``data[start:]`` as ``version`` wrote it;
    a code object's record keeps the bytes it was read from (``marshalled``).

    >>> import marshal, sys
    >>> data = marshal.dumps(compile("x = 1", "<s>", "exec"))
    >>> unmarshal(data, sys.version_info[:2]).marshalled == data
    True
    """
    reader = _Reader(bytes(data), tuple(version), path)
    reader.pos = start
    # Each nesting level costs a few frames; make room so MAX_DEPTH, not the
    # interpreter, decides what is too deep, whatever depth we are called from.
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(old_limit + _FRAMES_PER_LEVEL * MAX_DEPTH)
    try:
        value = reader.read_object()
        if isinstance(value, CodeRecord):
            value.marshalled = reader.data[start:reader.pos]
        return value
    except RecursionError:
        raise MarshalError("objects nested too deep", path, reader.pos) from None
    finally:
        sys.setrecursionlimit(old_limit)


class _Reader:
    __slots__ = ("data", "pos", "refs", "depth", "path", "version", "table", "readers")

    def __init__(self, data: bytes, version, path):
        self.data = data
        self.pos = 0
        self.refs = []
        self.depth = 0
        self.path = path
        self.version = version
        self.table = get_table(version)
        self.readers = _READERS_BY_MARSHAL[min(self.table.marshal_version, _NEWEST_MARSHAL)]

    # -- primitives -----------------------------------------------------

    def error(self, message, offset=None, cls=MarshalError):
        return cls(message, self.path, self.pos if offset is None else offset)

    def take(self, n: int) -> bytes:
        pos = self.pos
        end = pos + n
        if end > len(self.data):
            raise self.error("data ends %d bytes into a %d-byte field"
                             % (len(self.data) - pos, n), pos, TruncatedError)
        self.pos = end
        return self.data[pos:end]

    def byte(self) -> int:
        pos = self.pos
        if pos >= len(self.data):
            raise self.error("unexpected end of data", pos, TruncatedError)
        self.pos = pos + 1
        return self.data[pos]

    def int32(self) -> int:
        return int.from_bytes(self.take(4), "little", signed=True)

    def length(self, what: str, unit: int = 1) -> int:
        """A declared element count, checked against the bytes that remain."""
        at = self.pos
        n = self.int32()
        if n < 0:
            raise self.error("negative %s length %d" % (what, n), at)
        if n * unit > len(self.data) - self.pos:
            raise self.error("%s declares %d items but only %d bytes remain"
                             % (what, n, len(self.data) - self.pos), at)
        return n

    # -- objects ----------------------------------------------------------

    def read_object(self):
        at = self.pos
        code = self.byte()
        flag = code & FLAG_REF
        reader = self.readers.get(code & ~FLAG_REF)
        if reader is None:
            raise self.error("unknown type code %r (0x%02x)" % (chr(code & ~FLAG_REF), code), at)
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.error("objects nested more than %d deep" % MAX_DEPTH, at)
        if flag:
            # Containers are registered before their children are read, so a
            # reference index is the order of the FLAG_REF bytes in the stream.
            index = len(self.refs)
            self.refs.append(_PENDING)
            value = reader(self, at)
            self.refs[index] = value
        else:
            value = reader(self, at)
        self.depth -= 1
        return value

    def read_null(self, at):
        raise self.error("NULL object where a value is required", at)

    def read_ref(self, at):
        index = self.int32()
        if not 0 <= index < len(self.refs):
            raise self.error("reference %d out of range (%d objects so far)"
                             % (index, len(self.refs)), at)
        value = self.refs[index]
        if value is _PENDING:
            raise self.error("reference %d to an object still being read" % index, at)
        return value

    def read_int(self, at):
        return self.int32()

    def read_int64(self, at):
        return int.from_bytes(self.take(8), "little", signed=True)

    def read_long(self, at):
        n = self.int32()
        size = abs(n)
        if size * 2 > len(self.data) - self.pos:
            raise self.error("long declares %d digits but only %d bytes remain"
                             % (size, len(self.data) - self.pos), at)
        raw = self.take(size * 2)
        digits = [raw[2 * i] | (raw[2 * i + 1] << 8) for i in range(size)]
        if any(d >= 1 << 15 for d in digits):
            raise self.error("digit out of range in long", at)
        # Joining 15-bit groups as binary text keeps huge values linear in size.
        value = int("".join(format(d, "015b") for d in reversed(digits)), 2) if size else 0
        if size and raw[-2:] == b"\0\0":
            raise self.error("unnormalized long (leading zero digit)", at)
        return -value if n < 0 else value

    def read_text_float(self, at):
        n = self.byte()
        raw = self.take(n)
        try:
            return float(raw.decode("ascii"))
        except (UnicodeDecodeError, ValueError):
            raise self.error("bad float literal %r" % raw, at) from None

    def read_binary_float(self, at):
        return _unpack_double(self.take(8))[0]

    def read_text_complex(self, at):
        return complex(self.read_text_float(at), self.read_text_float(at))

    def read_binary_complex(self, at):
        return complex(self.read_binary_float(at), self.read_binary_float(at))

    def read_bytes(self, at):
        return self.take(self.length("bytes"))

    def read_unicode(self, at):
        raw = self.take(self.length("string"))
        try:
            return raw.decode("utf-8", "surrogatepass")
        except UnicodeDecodeError as e:
            raise self.error("invalid UTF-8 in string: %s" % e.reason, at) from None

    def read_ascii(self, at):
        return self.take(self.length("string")).decode("latin-1")

    def read_short_ascii(self, at):
        return self.take(self.byte()).decode("latin-1")

    def read_items(self, n):
        read = self.read_object
        items = []
        for _ in range(n):
            items.append(read())
        return items

    def read_tuple(self, at):
        return tuple(self.read_items(self.length("tuple")))

    def read_small_tuple(self, at):
        return tuple(self.read_items(self.byte()))

    def read_list(self, at):
        return self.read_items(self.length("list"))

    def read_set(self, at):
        items = self.read_items(self.length("set"))
        try:
            return set(items)
        except TypeError:
            raise self.error("unhashable element in set", at) from None

    def read_frozenset(self, at):
        return frozenset(self.read_set(at))

    def read_dict(self, at, result=None):
        result = {} if result is None else result
        while True:
            if self.pos < len(self.data) and self.data[self.pos] == 0x30:   # TYPE_NULL ends it
                self.pos += 1
                return result
            key = self.read_object()
            value = self.read_object()
            try:
                dict.__setitem__(result, key, value)
            except TypeError:
                raise self.error("unhashable dict key", at) from None

    def read_frozendict(self, at):
        # (filled in place: a reference to it may come before its end)
        return self.read_dict(at, frozendict())

    def read_slice(self, at):
        return slice(self.read_object(), self.read_object(), self.read_object())

    def read_code(self, at):
        fields = {}
        for name in self.table.code_fields:
            if name in _INT_FIELDS:
                fields[name] = self.int32()
            else:
                field_at = self.pos
                value = self.read_object()
                expected = _FIELD_TYPES[name]
                if not isinstance(value, expected):
                    raise self.error("code object field %s is %s, expected %s"
                                     % (name, type(value).__name__, expected.__name__), field_at)
                if name == "code":
                    fields["code_offset"] = field_at
                fields[name] = value
        return self._make_code(fields, at)

    def _make_code(self, f, at):
        for name in ("names", "varnames", "freevars", "cellvars", "localsplusnames"):
            if not all(isinstance(s, str) for s in f.get(name, ())):
                raise self.error("code object field %s holds a non-string" % name, at)
        if "localsplusnames" in f:
            names, kinds = f["localsplusnames"], f["localspluskinds"]
            if len(names) != len(kinds):
                raise self.error("localsplusnames and localspluskinds differ in length", at)
            f["varnames"], f["cellvars"], f["freevars"] = split_localsplus(names, kinds)
            f["nlocals"] = len(f["varnames"])
        else:
            from .code import build_localsplus
            f["localsplusnames"], f["localspluskinds"] = build_localsplus(
                f["varnames"], f["cellvars"], f["freevars"])
        f.setdefault("qualname", f["name"])
        return CodeRecord(version=self.version, path=self.path, file_offset=at, **f)


_PENDING = object()
_FRAMES_PER_LEVEL = 4
_INT_FIELDS = frozenset({"argcount", "posonlyargcount", "kwonlyargcount", "nlocals",
                         "stacksize", "flags", "firstlineno"})
_FIELD_TYPES = {
    "code": bytes, "consts": tuple, "names": tuple, "varnames": tuple, "freevars": tuple,
    "cellvars": tuple, "localsplusnames": tuple, "localspluskinds": bytes, "filename": str,
    "name": str, "qualname": str, "linetable": bytes, "exceptiontable": bytes,
}
_R = _Reader
_CONSTANTS = {"N": None, "F": False, "T": True, ".": Ellipsis, "S": StopIteration}
_READERS = {
    ord("0"): _R.read_null,
    ord("r"): _R.read_ref,
    ord("i"): _R.read_int,
    ord("I"): _R.read_int64,
    ord("l"): _R.read_long,
    ord("f"): _R.read_text_float,
    ord("g"): _R.read_binary_float,
    ord("x"): _R.read_text_complex,
    ord("y"): _R.read_binary_complex,
    ord("s"): _R.read_bytes,
    ord("t"): _R.read_unicode,
    ord("u"): _R.read_unicode,
    ord("a"): _R.read_ascii,
    ord("A"): _R.read_ascii,
    ord("z"): _R.read_short_ascii,
    ord("Z"): _R.read_short_ascii,
    ord("("): _R.read_tuple,
    ord(")"): _R.read_small_tuple,
    ord("["): _R.read_list,
    ord("{"): _R.read_dict,
    ord("<"): _R.read_set,
    ord(">"): _R.read_frozenset,
    ord("c"): _R.read_code,
}
for _char, _value in _CONSTANTS.items():
    _READERS[ord(_char)] = (lambda v: lambda self, at: v)(_value)
#: The type codes each marshal version added (Python/marshal.c): an older
#: interpreter's marshal rejects them, so ours does in its files.
_ADDED = {5: {ord(":"): _R.read_slice}, 6: {ord("}"): _R.read_frozendict}}
_NEWEST_MARSHAL = max(_ADDED)
#: marshal version (4: 3.8-3.13) -> type code -> reader
_READERS_BY_MARSHAL = {4: _READERS}
for _version in range(5, _NEWEST_MARSHAL + 1):
    _READERS_BY_MARSHAL[_version] = dict(_READERS_BY_MARSHAL[_version - 1])
    _READERS_BY_MARSHAL[_version].update(_ADDED[_version])
