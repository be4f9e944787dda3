"""The 3.11+ exception table, decoded into entries.

Each entry covers the code units ``[start, end)`` and sends an exception to
``target`` with the value stack cut to ``depth`` items (plus the offset of the
raising instruction when ``lasti`` is set). The table is a sequence of
big-endian varints in 6-bit groups (bit 6: more follows; bit 7 marks the first
byte of an entry); offsets are in code units.

Example::

    >>> parse_exception_table(bytes([0x82, 0x04, 0x0a, 0x02]))
    [ExceptionEntry(start=4, end=12, target=20, depth=1, lasti=False)]
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional

from .errors import TruncatedError


@dataclass
class ExceptionEntry:
    """One row of the exception table; offsets are in bytes, ``end`` exclusive."""
    start: int
    end: int
    target: int
    depth: int
    lasti: bool
    #: the decoder fills these with Instruction objects (end: first one past the
    #: region, None when the region runs to the end of the code)
    start_instr: object = field(default=None, repr=False, compare=False)
    end_instr: object = field(default=None, repr=False, compare=False)
    target_instr: object = field(default=None, repr=False, compare=False)


def parse_exception_table(data: bytes) -> List[ExceptionEntry]:
    entries = []
    pos = 0
    n = len(data)
    while pos < n:
        if not data[pos] & 0x80:
            raise TruncatedError("exception table entry at byte %d lacks its start bit" % pos)
        start, pos = _varint(data, pos)
        length, pos = _varint(data, pos)
        target, pos = _varint(data, pos)
        depth_lasti, pos = _varint(data, pos)
        entries.append(ExceptionEntry(start * 2, (start + length) * 2, target * 2,
                                      depth_lasti >> 1, bool(depth_lasti & 1)))
    return entries


def _varint(data: bytes, pos: int):
    n = len(data)
    value = 0
    while True:
        if pos >= n:
            raise TruncatedError("exception table ends inside an entry")
        b = data[pos]
        pos += 1
        value = (value << 6) | (b & 63)
        if not b & 64:
            return value, pos
