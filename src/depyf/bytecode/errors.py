"""Errors raised while reading or decoding bytecode.

Every problem with the input (a corrupt or truncated .pyc, an unknown magic
number, an opcode the target version does not have, an argument out of range)
raises :class:`BytecodeError` or a subclass, never a bare IndexError or
RecursionError. The message names the file and byte offset where known.
"""
from __future__ import annotations

from typing import Optional


class BytecodeError(Exception):
    """Malformed or unsupported bytecode.

    ``path`` and ``offset`` (byte offset in the file, or in ``co_code`` for a
    live code object) are kept as attributes for tools.
    """

    def __init__(self, message: str, path: Optional[str] = None, offset: Optional[int] = None):
        self.reason = message
        self.path = path
        self.offset = offset
        where = []
        if path is not None:
            where.append(str(path))
        if offset is not None:
            where.append("byte %d" % offset)
        super().__init__(("%s: %s" % (", ".join(where), message)) if where else message)


class UnsupportedVersionError(BytecodeError):
    """Bytecode of a Python version depyf has no table for."""


class BadMagicError(UnsupportedVersionError):
    """A .pyc whose magic number is wrong or unknown."""


class TruncatedError(BytecodeError):
    """The data ends before the structure it declares."""


class MarshalError(BytecodeError):
    """The marshalled data is malformed (unknown type code, bad reference, absurd size, ...)."""


class DecodeError(BytecodeError):
    """The instruction stream of a code object is malformed."""
