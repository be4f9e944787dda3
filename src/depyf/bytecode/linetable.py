"""Line numbers and source positions of each code unit.

Three on-disk formats, chosen by the version table (``linetable_format``):

* ``lnotab`` (3.8, 3.9): byte pairs (address increment, signed line increment).
* ``linetable`` (3.10): byte pairs (address delta, signed line delta), where a
  line delta of -128 marks "no line".
* ``locations`` (3.11+): variable-length entries covering 1-8 code units with
  line, end line and columns (``Objects/locations.md`` in CPython).

Each decoder returns one entry per 2-byte code unit, so callers index by
``offset // 2``. Data that runs past the code is ignored, as CPython does;
a truncated entry raises :class:`BytecodeError`.

Example::

    >>> line_table(b"\\x02\\x01\\x02\\x01", "lnotab", 10, 6)
    [10, 11, 12]
"""
from __future__ import annotations

import itertools
from typing import Iterator, List, Optional, Sequence, Tuple

from .errors import TruncatedError

Position = Tuple[Optional[int], Optional[int], Optional[int], Optional[int]]


def line_table(data: bytes, fmt: str, firstlineno: int, code_len: int) -> List[Optional[int]]:
    """Line number (or None) of every code unit of a code object."""
    if fmt == "locations":
        return location_lines(data, firstlineno, code_len)
    units = code_len // 2
    lines: List[Optional[int]] = []
    line = firstlineno
    # (A list: 3.11+ index lists of ints in one specialised step, bytes not.)
    data = list(data)
    addr = 0    # in bytes: increments are byte counts and may be odd (255, then the rest)
    lnotab = fmt == "lnotab"
    for i in range(0, len(data) - 1, 2):
        addr += data[i]
        ldelta = data[i + 1]
        if ldelta >= 0x80:
            ldelta -= 0x100
        if lnotab:
            # lnotab applies the line increment *after* the address run.
            value = line
            line += ldelta
        elif ldelta == -128:
            value = None
        else:
            line += ldelta
            value = line
        # A unit belongs to the run that holds its first byte.
        more = (addr + 1) // 2 - len(lines)
        if more > 0:
            lines.extend([value] * more)
            if len(lines) >= units:
                break
    if len(lines) < units:
        # lnotab's final run has no entry of its own; 3.10 leaves it lineless.
        fill = line if lnotab else None
        lines.extend([fill] * (units - len(lines)))
    return lines[:units]


def live_lines(code, units: int) -> Optional[List[Optional[int]]]:
    """The lines of a code object of the running interpreter (3.10+), from its
    ``co_lines``: what :func:`line_table` reads from its table, at a third of
    the cost for the decoder's large generated code objects. None when the
    ranges do not cover ``units`` code units in order (then read the table)."""
    out: List[Optional[int]] = []
    for start, end, line in code.co_lines():
        if start != 2 * len(out):
            return None
        out += [line] * ((end - start) >> 1)
    return out if len(out) == units else None


def positions_table(data: bytes, firstlineno: int, code_len: int) -> List[Position]:
    """(line, end line, column, end column) of every code unit, from a 3.11+ location table."""
    units = code_len // 2
    out: List[Position] = []
    line = firstlineno
    n = len(data)
    pos = 0
    count = 0       # len(out), kept by hand: this loop runs once per entry of every code object
    while pos < n and count < units:
        first = data[pos]
        if not first & 0x80:
            raise TruncatedError("location table entry at byte %d lacks its start bit" % pos)
        pos += 1
        code = (first >> 3) & 15
        length = (first & 7) + 1
        if code == 15:
            entry = _NO_POSITION
        elif code == 14:
            delta, pos = _svarint(data, pos)
            line += delta
            end_delta, pos = _varint(data, pos)
            col, pos = _varint(data, pos)
            end_col, pos = _varint(data, pos)
            entry = (line, line + end_delta, col - 1 if col else None,
                     end_col - 1 if end_col else None)
        elif code == 13:
            delta, pos = _svarint(data, pos)
            line += delta
            entry = (line, line, None, None)
        elif code >= 10:
            if pos + 2 > n:
                raise TruncatedError("location table ends inside an entry")
            line += code - 10
            entry = (line, line, data[pos], data[pos + 1])
            pos += 2
        else:
            if pos >= n:
                raise TruncatedError("location table ends inside an entry")
            second = data[pos]
            pos += 1
            col = code * 8 + ((second >> 4) & 7)
            entry = (line, line, col, col + (second & 15))
        if length == 1:
            out.append(entry)
        else:
            out.extend([entry] * length)
        count += length
    if count < units:
        out.extend([_NO_POSITION] * (units - count))
    elif count > units:
        del out[units:]
    return out


_NO_POSITION: Position = (None, None, None, None)


def location_lines(data: bytes, firstlineno: int, code_len: int) -> List[Optional[int]]:
    """The lines of :func:`positions_table`, without building the positions (the
    decoder needs only lines; it reads the same entries, with the same checks).

    >>> location_lines(bytes([0xd8, 0, 0, 0x81, 0, 0xf8]), 5, 8)   # line+1 (1 unit), 2 units, none
    [6, 6, 6, None]
    """
    units = code_len // 2
    out: List[Optional[int]] = []
    line = firstlineno
    n = len(data)
    # (A list, as in line_table. Markers past the end stop the loop without a
    # test per entry; a fixed-size entry cut short is found once, after it.)
    raw = data
    data = list(data)
    data += _END_MARKS
    pos = 0
    count = 0
    # Units from ``mark`` to ``count`` have ``line``, not written out yet: most
    # entries keep the line, and a run of them goes in with one extend.
    mark = 0
    fixed = _LINE_ENTRIES
    numbered = _NUMBERED_UNITS
    while count < units:
        first = data[pos]
        entry = fixed[first]
        if entry is not None:       # (the usual forms: one table look-up each)
            size, length, delta = entry
            pos += size
            if delta:
                out += [line] * (count - mark)
                line += delta
                mark = count
            count += length
            continue
        length = numbered[first]
        if length:
            b = data[pos + 1]       # (an end marker when the entry is cut short)
            if b < 64:
                # Code 13 with its line change in one byte (all but a few of
                # Dynamo's entries): the same run goes on when it is 0.
                pos += 2
                if b:
                    out += [line] * (count - mark)
                    line += -(b >> 1) if b & 1 else b >> 1
                    mark = count
                count += length
                continue
        out += [line] * (count - mark)
        if first == _END:
            mark = count
            break
        if not first & 0x80:
            raise TruncatedError("location table entry at byte %d lacks its start bit" % pos)
        length = (first & 7) + 1
        if first >> 3 & 15 == 15:   # no location
            pos += 1
            value = None
        else:                       # codes 13 and 14: a line change written as a number
            b = data[pos + 1] if pos + 1 < n else 64
            if not b & 64:              # a one-byte line change, the usual case
                line += -(b >> 1 & 31) if b & 1 else b >> 1 & 31
                pos += 2
            else:
                delta, pos = _svarint(raw, pos + 1)
                line += delta
            value = line
            if first >> 3 & 15 == 14:
                for _ in range(3):          # end line, column, end column: skipped inline
                    while pos < n and data[pos] & 64:
                        pos += 1
                    if pos >= n:
                        raise TruncatedError("location table ends inside a number")
                    pos += 1
        out += [value] * length
        count += length
        mark = count
    out += [line] * (count - mark)
    if pos > n:
        raise TruncatedError("location table ends inside an entry")
    if count < units:
        out.extend([None] * (units - count))
    elif count > units:
        del out[units:]
    return out


def _line_entry(first: int):
    """(bytes, code units, line change) of a location entry whose first byte
    alone says all that and that has a line, else None."""
    if not first & 0x80:
        return None
    code, length = first >> 3 & 15, (first & 7) + 1
    if code < 10:
        return 2, length, 0             # short form: columns only
    if code < 13:
        return 3, length, code - 10     # one-line form
    return None


#: first byte -> _line_entry; one more entry for the end marker
_END = 256
_LINE_ENTRIES = [_line_entry(b) for b in range(256)] + [None]
#: first byte -> code units of a code 13 entry (the line as a number, no
#: columns), else 0; one more entry for the end marker
_NUMBERED_UNITS = [(b & 7) + 1 if b >> 3 == 0b11101 else 0 for b in range(256)] + [0]
_END_MARKS = [_END] * 3     # (past the longest fixed-size entry)


def _varint(data: bytes, pos: int):
    """Little-endian 6-bit groups; bit 6 says another group follows."""
    n = len(data)
    if pos < n and not data[pos] & 64:
        return data[pos] & 63, pos + 1      # most numbers fit one group
    shift = value = 0
    while True:
        if pos >= n:
            raise TruncatedError("location table ends inside a number")
        b = data[pos]
        pos += 1
        value |= (b & 63) << shift
        if not b & 64:
            return value, pos
        shift += 6


def _svarint(data: bytes, pos: int):
    value, pos = _varint(data, pos)
    return (-(value >> 1) if value & 1 else value >> 1), pos


# -- writing a line table ------------------------------------------------------------
# Only code objects of the running interpreter are re-lined (depyf.dynamo points
# Dynamo's code at dumped files), so only the host formats 3.10+ are written.

_UNIT = 2
# 3.11+ location entries: first byte 1CCCCLLL (code, units - 1); code 13 = line
# only, with the line change as a signed varint; code 15 = no location.
_NO_COLUMNS, _NO_LOCATION = 13, 15


def encode_host_line_table(ranges: Sequence[Tuple[int, int, Optional[int]]], firstlineno: int,
                           code_len: int) -> bytes:
    """``co_linetable`` for a code object of the running interpreter giving each
    byte range [start, end) of its code its line (None: no line).

    >>> encode_line_table([(0, 2, 1), (2, 6, 2)], "locations", 1, 6)
    b'\\xe8\\x00\\xe9\\x02'
    """
    from .versions import host_table
    return encode_line_table(ranges, host_table().linetable_format, firstlineno, code_len)


def encode_line_table(ranges, fmt: str, firstlineno: int, code_len: int) -> bytes:
    """:func:`encode_host_line_table` for the table format ``fmt``."""
    units: List[Optional[int]] = [None] * (code_len // _UNIT)
    for start, end, line in ranges:
        units[start // _UNIT:end // _UNIT] = [line] * (end // _UNIT - start // _UNIT)
    if fmt == "locations":
        return _encode_locations(units, firstlineno)
    if fmt == "linetable":
        return _encode_linetable(units, firstlineno)
    raise ValueError("writing %r line tables is not supported" % fmt)


def _runs(units: List[Optional[int]], longest: Optional[int] = None) -> Iterator[Tuple[Optional[int], int]]:
    """(line, count) for each run of code units with one line, at most ``longest`` long.

    >>> list(_runs([1, 1, 1, None, 2], longest=2))
    [(1, 2), (1, 1), (None, 1), (2, 1)]
    """
    for line, group in itertools.groupby(units):
        n = len(list(group))
        if longest is not None:
            while n > longest:
                yield line, longest
                n -= longest
        yield line, n


def _encode_locations(units, firstlineno: int) -> bytes:
    out = bytearray()
    previous = firstlineno
    deltas = _SVARINTS
    for line, n in _runs(units, 8):
        if line is None:
            out.append(0x80 | (_NO_LOCATION << 3) | (n - 1))
        else:
            out.append(0x80 | (_NO_COLUMNS << 3) | (n - 1))
            delta = line - previous
            out += deltas[delta] if -64 < delta < 64 else _write_svarint(delta)
            previous = line
    return bytes(out)


def _encode_linetable(units, firstlineno: int) -> bytes:
    """3.10's table: (byte count, line change) pairs, counts up to 254, changes
    within -127..127, -128 for no line."""
    out = bytearray()
    previous = firstlineno
    for line, n in _runs(units):
        length = n * _UNIT
        if line is None:
            delta = -128
        else:
            delta = line - previous
            previous = line
            while delta > 127:
                out += bytes((0, 127))
                delta -= 127
            while delta < -127:
                out += bytes((0, 256 - 127))
                delta += 127
        while length > 254:
            out += bytes((254, delta & 0xFF))
            length -= 254
            delta = 0 if line is not None else -128
        out += bytes((length, delta & 0xFF))
    return bytes(out)


def _write_varint(value: int) -> bytes:
    out = bytearray()
    while value >= 64:
        out.append(0x40 | (value & 63))
        value >>= 6
    out.append(value)
    return bytes(out)


def _write_svarint(value: int) -> bytes:
    return _write_varint(((-value) << 1) | 1 if value < 0 else value << 1)


#: the line changes most entries have, written once (negative ones by their index from the end)
_SVARINTS = [_write_svarint(d) for d in range(64)] + [_write_svarint(d) for d in range(-64, 0)]
