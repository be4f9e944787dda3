"""Bytes to instructions, for any supported version, driven by its table.

EXTENDED_ARG prefixes are folded into the instruction they extend, inline
CACHE entries are skipped, each argument is resolved to a value (``argval``)
as that version's ``dis`` would, jumps point at :class:`Instruction` objects,
and every instruction carries its line (and, on 3.11+, its full position).

Example::

    >>> def f(x):
    ...     return x + 1 if x else 0
    >>> bc = decode(f)
    >>> [i.opname for i in bc][-2:]                 # doctest: +SKIP
    ['LOAD_CONST', 'RETURN_VALUE']
    >>> jump = next(i for i in bc if i.target)
    >>> jump.target.offset == jump.argval
    True
"""
from __future__ import annotations

import sys
import types
from itertools import chain
from typing import Dict, List, Optional

from .code import CodeRecord, from_live
from .errors import BytecodeError, DecodeError
from .exceptions import ExceptionEntry, parse_exception_table
from .ir import Op
from .linetable import line_table, live_lines, positions_table
from .owner import code_owner
from .versions import VersionTable, get_table


class Instruction:
    """One decoded instruction.

    ``offset`` is the byte offset of the opcode itself and ``start_offset`` that
    of its first EXTENDED_ARG prefix (equal when there is none); ``arg`` is the
    full argument with prefixes applied, ``argval`` its resolved value, and
    ``target`` the Instruction a jump goes to.
    """
    __slots__ = ("offset", "start_offset", "opcode", "opname", "arg", "argval", "kind",
                 "target", "line", "starts_line", "cache", "_bytecode")

    def __init__(self, offset, start_offset, info, arg, argval, line, bytecode):
        self.offset = offset
        self.start_offset = start_offset
        self.opcode = info.op
        self.opname = info.name
        self.kind = info.kind
        self.cache = info.cache
        self.arg = arg
        self.argval = argval
        self.target: Optional[Instruction] = None
        self.line = line
        self.starts_line = False
        self._bytecode = bytecode

    @property
    def positions(self):
        """(line, end line, column, end column) on 3.11+, else None."""
        table = self._bytecode.positions
        return table[self.offset >> 1] if table is not None else None

    @property
    def is_jump(self) -> bool:
        return self.kind.startswith("jump")

    @property
    def next_offset(self) -> int:
        """Offset just past this instruction and its caches."""
        return self.offset + 2 + 2 * self.cache

    @property
    def argrepr(self) -> str:
        """The argument as ``dis`` prints it."""
        from .argrepr import format_argrepr
        return format_argrepr(self, self._bytecode.table)

    def __repr__(self) -> str:
        text = "%d %s" % (self.offset, self.opname)
        if self.arg is not None:
            text += " %d (%s)" % (self.arg, self.argrepr)
        return "<Instruction %s>" % text


class Bytecode:
    """The decoded instructions of one code object (not its nested ones).

    Iterating yields :class:`Instruction` objects; ``exception_entries`` holds
    the 3.11+ exception table with instruction references filled in.
    """

    def __init__(self, code: CodeRecord, table: VersionTable):
        self.code = code
        self.table = table
        self.instructions: List[Instruction] = []
        self.exception_entries: List[ExceptionEntry] = []
        self._by_offset: Dict[int, Instruction] = {}
        self._positions = None
        #: True when ``instructions`` holds :class:`~depyf.bytecode.ir.Op` objects
        #: (see :func:`decode_ops`)
        self.as_ops = False

    @property
    def positions(self):
        """3.11+: the position of every code unit (read when first asked for: the
        decompiler needs only lines); None before 3.11."""
        if self._positions is None and self.table.exception_table:
            code = self.code
            self._positions = positions_table(code.linetable, code.firstlineno, len(code.code))
        return self._positions

    def __iter__(self):
        return iter(self.instructions)

    def __len__(self):
        return len(self.instructions)

    def __getitem__(self, index):
        return self.instructions[index]

    def at(self, offset: int) -> Instruction:
        """The instruction starting at ``offset`` (its own or its EXTENDED_ARG's)."""
        return self._by_offset[offset]

    def __repr__(self):
        return "<Bytecode %s: %d instructions>" % (self.code.qualname, len(self.instructions))


def decode(obj) -> Bytecode:
    """Decode a :class:`CodeRecord`, a code object, or a function into instructions.

    >>> bc = decode(compile("a = 1", "<s>", "exec"))
    >>> [(i.opname, i.argval) for i in bc if i.opname.startswith("STORE")]
    [('STORE_NAME', 'a')]
    """
    return _decoded(obj, False)


def decode_ops(obj) -> Bytecode:
    """Like :func:`decode`, but each instruction is already an
    :class:`~depyf.bytecode.ir.Op` (its ``arg`` the resolved value, ``extra`` the
    raw argument, ``target`` set; no ``starts_line`` or ``positions``): the
    decompiler needs nothing else, and skipping the Instruction objects saves a
    few percent of its time.

    >>> [op.name for op in decode_ops(lambda: 1)][-1]      # doctest: +SKIP
    'RETURN_VALUE'
    """
    return _decoded(obj, True)


def _decoded(obj, as_ops: bool) -> Bytecode:
    code = as_record(obj)
    table = get_table(code.version)
    bc = Bytecode(code, table)
    bc.as_ops = as_ops
    try:
        _decode_into(bc)
    except BytecodeError as e:
        if e.path is None and e.offset is None:
            raise _error(code, e.reason, None) from None
        raise
    except (IndexError, KeyError, ValueError, TypeError) as e:
        raise DecodeError("malformed code object %r: %s: %s"
                          % (code.qualname, type(e).__name__, e), code.path, code.code_offset)
    return bc


def as_record(obj) -> CodeRecord:
    """The record of a CodeRecord, code object, function, method, or of the
    code any other callable runs (``functools.partial``, ``lru_cache`` and
    other ``__wrapped__`` wrappers, an instance's ``__call__``: see
    :func:`~depyf.bytecode.owner.code_owner`); ``TypeError`` naming ``obj``
    otherwise.

    >>> as_record(lambda: 1).name
    '<lambda>'
    """
    if isinstance(obj, CodeRecord):
        return obj
    if isinstance(obj, types.CodeType):
        return from_live(obj)
    owner = code_owner(obj)
    if isinstance(owner, CodeRecord):
        return owner
    return from_live(owner if isinstance(owner, types.CodeType) else owner.__code__)


def _lines(code: CodeRecord, table: VersionTable, n: int) -> list:
    """The line of each code unit: from the live code object's ``co_lines``
    when the record is that object's, as it was made (same table, first line
    and interpreter), else decoded from the record's table."""
    live = code.live
    if live is not None and code.version == _HOST and table.linetable_format != "lnotab" \
            and live.co_linetable is code.linetable and live.co_firstlineno == code.firstlineno:
        lines = live_lines(live, n // 2)
        if lines is not None:
            return lines
    return line_table(code.linetable, table.linetable_format, code.firstlineno, n)


_HOST = sys.version_info[:2]


def _decode_into(bc: Bytecode) -> None:
    code = bc.code
    table = bc.table
    # (A list: 3.11+ index lists of ints in one specialised step, bytes not.)
    raw = list(code.code)
    n = len(raw)
    if n % 2:
        raise _error(code, "code length %d is odd" % n, n - 1)
    units = n // 2
    lines = _lines(code, table, n)
    resolver = _Resolver(code, table)
    as_ops = bc.as_ops
    steps = _steps(table, as_ops)
    # Past the end, markers (no opcode has their number) that the loop's rare
    # branch stops at: no end test per instruction. As many as the longest
    # instruction has bytes, so one whose caches run past the end lands on one.
    raw += table._decode_end
    silent = table._decode_silent_sizes if as_ops else {}
    # The argument kinds most ops have index a tuple (see _LOOKUPS), not a resolver call.
    # (3.11+ LOAD_GLOBAL and 3.12+ LOAD_ATTR keep a flag in the low bit: each
    # name twice over, indexed by the whole argument, reads names[arg >> 1].)
    names = code.names
    consts = code.consts
    local_names = resolver.locals
    flagged = tuple(chain.from_iterable(zip(names, names))) \
        if table._decode_flagged_names else None
    ops = table.ops
    extended_arg = table.extended_arg
    out = bc.instructions
    by_offset = bc._by_offset
    jumps = []
    # offsets of EXTENDED_ARGs and silent ops left out, for the next op kept
    dropped = []
    dropped_line = dropped_offset = None
    ext = 0
    start = None
    last_line = None
    new_op = object.__new__
    op_class = Op
    i = 0
    while True:
        op = raw[i]
        step = steps[op]
        if step is None:        # (EXTENDED_ARG, CACHE, silent ops too: one test for most ops)
            if op == extended_arg:
                ext = (ext | raw[i + 1]) << 8
                if start is None:
                    start = i
                dropped.append(i)
                i += 2
                continue
            size = silent.get(op)
            if size is not None:
                # Bookkeeping of the interpreter (the table's silent ops): what aims at
                # one aims at the next op kept, as normalize's drop_noise would do.
                dropped.append(i)
                start = None
                dropped_line, dropped_offset = lines[i >> 1], i
                ext = 0
                i += size
                continue
            if op != table.cache_op:
                if op == _END:
                    break
                raise _error(code, "opcode %d does not exist in Python %s" % (op, table.name), i)
            # (A stray CACHE never executes; it is skipped like the padding it is.)
            i += 2
            continue
        name, how, resolve, size, flow = step
        line = lines[i >> 1]
        if resolve is not None:
            arg = raw[i + 1]
            if ext:
                arg |= ext
                ext = 0
            try:
                # (tests and a subscript: cheaper than a call of a bound __getitem__)
                if how == 1:
                    argval = consts[arg]
                elif how == 3:
                    argval = local_names[arg]
                elif how == 2:
                    argval = names[arg]
                elif how == 4:
                    argval = flagged[arg]
                elif how == 5:
                    argval = arg
                else:
                    argval = resolve(resolver, arg, i, size // 2 - 1)
            except IndexError:
                argval = _resolve_or_raise(code, resolver, step, arg, i)
            except _BadArg as e:
                raise _error(code, "%s: %s" % (name, e), i) from None
        else:
            arg = argval = None
            ext = 0
        if as_ops:
            # Op(name, argval, None, line, i, None, arg), its fields set here: one
            # Python call fewer for every instruction of every code object.
            ins = new_op(op_class)
            ins.name = name
            ins.arg = argval
            ins.target = ins.handler = None
            ins.line = line
            ins.offset = i
            ins.index = -1
            ins.extra = arg
        else:
            ins = Instruction(i, i if start is None else start, ops[op], arg, argval, line, bc)
            if line is not None and line != last_line:
                ins.starts_line = True
                last_line = line
        out.append(ins)     # (a method call 3.11 specialises; a bound append it does not)
        by_offset[i] = ins
        if dropped:
            for off in dropped:
                by_offset[off] = ins
            dropped.clear()
            start = None
        if flow:
            jumps.append((ins, argval, name))
        i += size
    if i > n:           # (only the last op can end past the code)
        last = out[-1]
        raise _error(code, "%s's inline cache runs past the end of the code"
                     % (last.name if as_ops else last.opname), last.offset)
    if start is not None:
        raise _error(code, "EXTENDED_ARG at the end of the code", start)
    if dropped:
        # Nothing follows: a terminal NOP-like marker takes their place.
        end = Op("END", line=dropped_line, offset=dropped_offset)
        out.append(end)
        for off in dropped:
            by_offset[off] = end
    for ins, argval, name in jumps:
        target = by_offset.get(argval)
        if target is None:
            raise _error(code, "%s jumps to offset %r, which starts no instruction"
                         % (name, argval), ins.offset)
        ins.target = target
    if table.exception_table:
        bc.exception_entries = _exception_entries(bc, units)


def _steps(table: VersionTable, as_ops: bool) -> list:
    """Per opcode of ``table``: None (no such opcode, EXTENDED_ARG, CACHE, or
    when decoding ops a silent op) or what the decoding loop reads of it, (name,
    its tuple lookup's number in _LOOKUPS or 0, argument resolver or
    None, bytes with its caches, _JUMP or None), derived once per table rather
    than attribute by attribute per instruction. (Also sets the table's
    ``_decode_silent_sizes``: silent opcode -> bytes with its caches.)"""
    key = "_decode_op_steps" if as_ops else "_decode_steps"
    steps = getattr(table, key, None)
    if steps is None:
        silent = table.silent_ops if as_ops else ()
        steps = [
            None if info is None or info.op in (table.extended_arg, table.cache_op)
            or info.op in silent else
            (info.name, _LOOKUPS.get(info.kind, 0) if info.has_arg else 0,
             _RESOLVERS[info.kind] if info.has_arg else None, 2 + 2 * info.cache,
             _JUMP if info.kind[0] == "j" else None)
            for info in table.ops] + [None]         # (the end marker's)
        setattr(table, key, steps)
        table._decode_end = [_END] * max(2 + 2 * info.cache for info in table.ops if info)
        table._decode_silent_sizes = {info.op: 2 + 2 * info.cache for info in table.ops
                                      if info is not None and info.op in table.silent_ops}
        # (whether the loop's names-twice-over lookup can be needed at all)
        table._decode_flagged_names = any(
            info is not None and info.has_arg and _LOOKUPS.get(info.kind) == 4
            for info in table.ops)
    return steps


#: (truthy: the decoding loop tests ``flow`` once for most ops)
_JUMP = "jump"
#: the end marker after the code (opcodes are bytes)
_END = 256


def _resolve_or_raise(code, resolver, step, arg, i):
    """The argument a fast lookup found out of range: the resolver's value, or
    its error located in the code."""
    name, _, resolve, size, _ = step
    try:
        return resolve(resolver, arg, i, size // 2 - 1)
    except _BadArg as e:
        raise _error(code, "%s: %s" % (name, e), i) from None


def _exception_entries(bc: Bytecode, units: int) -> List[ExceptionEntry]:
    code = bc.code
    try:
        entries = parse_exception_table(code.exceptiontable)
    except BytecodeError as e:
        raise _error(code, e.reason, None) from None
    by_offset = bc._by_offset
    ordered = bc.instructions
    for entry in entries:
        if not (0 <= entry.start < entry.end <= units * 2):
            raise _error(code, "exception table range %d-%d outside the code"
                         % (entry.start, entry.end), None)
        entry.start_instr = by_offset.get(entry.start)
        entry.target_instr = by_offset.get(entry.target)
        if entry.start_instr is None or entry.target_instr is None:
            raise _error(code, "exception table entry %r does not start or land on an "
                         "instruction" % (entry,), None)
        entry.end_instr = by_offset.get(entry.end)
        if entry.end_instr is None and entry.end < units * 2:
            # The region may end inside a cache run; the next instruction follows it.
            entry.end_instr = next((x for x in ordered if x.offset >= entry.end), None)
    return entries


def _error(code: CodeRecord, message: str, at: Optional[int]):
    """A DecodeError located in the file when we know where the code bytes lie."""
    where = "in %r" % (code.qualname or code.name)
    if at is not None:
        where += " at instruction offset %d" % at
    file_offset = None
    if code.code_offset is not None:
        # code_offset points at the 's' type byte; the bytes start 5 later.
        file_offset = code.code_offset + 5 + (at or 0)
    return DecodeError("%s: %s" % (where, message), code.path, file_offset)


class _BadArg(Exception):
    """An argument that indexes past its table; located by the caller."""


class _Resolver:
    """Turns (kind, arg) into argval, one small method per argument kind."""

    def __init__(self, code: CodeRecord, table: VersionTable):
        self.code = code
        self.table = table
        self.consts = code.consts
        self.names = code.names
        if table.locals_are_localsplus:
            self.locals = self.cells = code.localsplusnames
        else:
            self.locals = code.varnames
            self.cells = code.cellvars + code.freevars
        self.jump_unit = table.jump_unit
        self.skip_caches = table.jump_skips_caches

    def __call__(self, kind, arg, offset, cache):
        return _RESOLVERS[kind](self, arg, offset, cache)

    @staticmethod
    def _lookup(seq, index, what):
        if 0 <= index < len(seq):
            return seq[index]
        raise _BadArg("%s index %d out of range (%d entries)" % (what, index, len(seq)))

    # The common kinds index directly (arguments are never negative); a bad
    # index still ends in _lookup's message.

    def _const(self, arg, offset, cache):
        try:
            return self.consts[arg]
        except IndexError:
            return self._lookup(self.consts, arg, "constant")

    def _name(self, arg, offset, cache):
        try:
            return self.names[arg]
        except IndexError:
            return self._lookup(self.names, arg, "name")

    def _local(self, arg, offset, cache):
        try:
            return self.locals[arg]
        except IndexError:
            return self._lookup(self.locals, arg, "local variable")

    def _none(self, arg, offset, cache):
        return None

    def _int(self, arg, offset, cache):
        return arg

    def _global(self, arg, offset, cache):
        return self._lookup(self.names, arg >> 1, "name")

    _attr = _global

    def _super_attr(self, arg, offset, cache):
        return self._lookup(self.names, arg >> 2, "name")

    _import_name = _super_attr

    def _local_pair(self, arg, offset, cache):
        try:
            return self.locals[arg >> 4], self.locals[arg & 15]
        except IndexError:
            return (self._lookup(self.locals, arg >> 4, "local variable"),
                    self._lookup(self.locals, arg & 15, "local variable"))

    def _free(self, arg, offset, cache):
        try:
            return self.cells[arg]
        except IndexError:
            return self._lookup(self.cells, arg, "cell variable")

    def _jump_abs(self, arg, offset, cache):
        return arg * self.jump_unit

    def _jump_fwd(self, arg, offset, cache):
        base = offset + 2 + (2 * cache if self.skip_caches else 0)
        return base + arg * self.jump_unit

    def _jump_back(self, arg, offset, cache):
        base = offset + 2 + (2 * cache if self.skip_caches else 0)
        return base - arg * self.jump_unit

    def _compare(self, arg, offset, cache):
        return self._lookup(self.table.cmp_op, arg >> self.table.compare_shift, "comparison")

    def _binary_op(self, arg, offset, cache):
        self._lookup(self.table.binary_ops, arg, "binary operator")
        return arg

    def _format_value(self, arg, offset, cache):
        return (_CONVERSIONS[arg & 3], bool(arg & 4))

    def _convert_value(self, arg, offset, cache):
        return self._lookup(_CONVERSIONS, arg, "conversion")

    def _make_function(self, arg, offset, cache):
        return arg

    def _intrinsic1(self, arg, offset, cache):
        self._lookup(self.table.intrinsic1, arg, "intrinsic function")
        return arg

    def _intrinsic2(self, arg, offset, cache):
        self._lookup(self.table.intrinsic2, arg, "intrinsic function")
        return arg

    _is_op = _contains_op = _int

    def _special_method(self, arg, offset, cache):
        self._lookup(self.table.special_method_names, arg, "special method")
        return arg

    def _common_constant(self, arg, offset, cache):
        value = self._lookup(self.table.common_constants, arg, "common constant")
        return value if self.table.common_constant_argval == "object" else arg


# dis reports conversions as the builtin that performs them.
_CONVERSIONS = (None, str, repr, ascii)
_KINDS = ("none", "int", "const", "name", "global", "attr", "super_attr", "local",
          "local_pair", "free", "jump_abs", "jump_fwd", "jump_back", "compare",
          "binary_op", "format_value", "convert_value", "make_function",
          "intrinsic1", "intrinsic2", "import_name", "is_op", "contains_op",
          "special_method", "common_constant")

#: argument kind -> the _Resolver method that resolves it (looked up once, not per code object)
_RESOLVERS = {kind: getattr(_Resolver, "_" + kind) for kind in _KINDS}
#: argument kinds resolved by indexing a tuple -> the number _decode_into tests for:
#: 1 constants, 2 names, 3 locals, 4 names twice over (a flag in the low bit);
#: 5 the argument itself (counts, flags: no resolver call for the commonest rest)
_LOOKUPS = {"const": 1, "name": 2, "local": 3, "global": 4, "attr": 4,
            "int": 5, "is_op": 5, "contains_op": 5, "make_function": 5}
