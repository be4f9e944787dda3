"""Reading CPython 3.8-3.15 bytecode on any supported host.

The only package in depyf that knows CPython versions: per-version tables
(:mod:`.versions`), a pure-Python .pyc reader (:mod:`.pyc`), and a decoder to
instructions with resolved arguments, jump references, line numbers and
exception-table entries (:mod:`.decode`).

Example::

    >>> from depyf.bytecode import decode
    >>> [i.opname for i in decode(lambda x: x)][-1]
    'RETURN_VALUE'
"""
from .code import CodeRecord, from_live
from .decode import Bytecode, Instruction, as_record, decode
from .errors import (BadMagicError, BytecodeError, DecodeError, MarshalError,
                     TruncatedError, UnsupportedVersionError)
from .exceptions import ExceptionEntry
from .owner import code_owner
from .pyc import PycFile, parse_pyc, read_pyc, unmarshal
from .versions import SUPPORTED, get_table, version_from_magic

__all__ = [
    "BadMagicError", "Bytecode", "BytecodeError", "CodeRecord", "DecodeError",
    "ExceptionEntry", "Instruction", "MarshalError", "PycFile", "SUPPORTED",
    "TruncatedError", "UnsupportedVersionError", "as_record", "code_owner", "decode", "from_live",
    "get_table", "parse_pyc", "read_pyc", "unmarshal", "version_from_magic",
]
