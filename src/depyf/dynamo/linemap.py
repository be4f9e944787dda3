"""Point a live code object's line numbers into a dumped file, bytecode untouched.

A breakpoint in a dumped file is hit when the code that runs names that file
and has an instruction on that line. Running code compiled from the dumped
text would do it, but decompiled text only rarely compiles back to the very
instructions Dynamo made (its code keeps values on the stack across
statements), and any difference would change what the user's program does.
So the code that runs keeps its own instructions and only gets a new file
name and line table. Results cannot change. Each instruction's line comes
one of two ways:

* from the decompiler (:func:`retarget_by_offsets`): the readable form knows
  which statement each instruction went into
  (:mod:`depyf.decompiler.line_map`), so the lines are exact, and
  :func:`statement_lines` makes them run the way a debugger needs;
* by alignment (:func:`retarget`), for text that came without that map (the
  faithful form, a graph module's or Inductor's generated code): each
  instruction takes the line of the instruction it matches in the code
  compiled from the dumped file (matched as a sequence, by operation and
  argument), and an unmatched one the line before it. Where the text has
  the same shape as the bytecode the lines are exact, elsewhere near.

Example::

    >>> dumped = compile(open(path).read(), path, "exec")      # doctest: +SKIP
    >>> fn.__code__ = retarget(fn.__code__, find_code(dumped, "forward"), path)  # doctest: +SKIP
"""
from __future__ import annotations

import bisect
import difflib
import re
import types
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

from ..bytecode.code import build_localsplus
from ..bytecode.linetable import encode_host_line_table

# One instruction: (start byte, end byte, comparison key, line or None).
Span = Tuple[int, int, str, Optional[int]]


def walk(code: types.CodeType) -> Iterator[types.CodeType]:
    """``code`` and every code object nested in it, depth first."""
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from walk(const)


def find_code(module: types.CodeType, name: str) -> Optional[types.CodeType]:
    r"""The first code object called ``name`` nested in ``module``, depth first.

    >>> find_code(compile("def f():\n    def g(): pass\n", "<s>", "exec"), "g").co_firstlineno
    2
    """
    return next((c for c in walk(module) if c is not module and c.co_name == name), None)


def child(code: Optional[types.CodeType], *names: str) -> Optional[types.CodeType]:
    r"""The code object reached from ``code`` through directly nested ones named ``names``.

    >>> mod = compile("class A:\n    def f(self): pass\ndef f(): pass\n", "<s>", "exec")
    >>> child(mod, "A", "f").co_firstlineno, child(mod, "f").co_firstlineno
    (2, 3)
    """
    for name in names:
        if code is None:
            return None
        code = next((c for c in code.co_consts if isinstance(c, types.CodeType) and c.co_name == name), None)
    return code


_LITERALS = frozenset([int, float, complex, bool, str, bytes, type(None), type(Ellipsis)])


def _const_key(value) -> str:
    """A constant as source can write it, a code object by its name, else only
    its type: Dynamo's code holds objects no text holds (the module's globals,
    whose repr once took 0.1 ms per entry and 2 ms per load), and they match
    nothing anyway.

    >>> _const_key((1, "a", frozenset())), _const_key({"x": 1})
    ("(1, 'a', frozenset())", '<dict>')
    """
    kind = type(value)
    if kind in _LITERALS:
        return repr(value)
    if kind is tuple:
        items = [_const_key(v) for v in value]
        return "(%s)" % (items[0] + "," if len(items) == 1 else ", ".join(items))
    if kind is frozenset:
        return "frozenset({%s})" % ", ".join(_const_key(v) for v in value) if value else "frozenset()"
    if kind is types.CodeType:
        return "code:%s" % value.co_name
    return "<%s>" % kind.__name__


def spans(code: types.CodeType, names: Optional[Dict[str, str]] = None,
          shared_locals: Optional[frozenset] = None) -> List[Span]:
    """One :data:`Span` per instruction, EXTENDED_ARG prefixes, inline caches
    and the interpreter's bookkeeping ops (RESUME, MAKE_CELL, ...) included in
    the span of the instruction they belong to.

    A light scan of a code object of this interpreter, not the decoder: the
    line map needs no jump targets or exception table, and an argument only
    as far as telling two instructions apart (two host code objects encode
    ``<`` or ``+`` alike), which made it a third of what full decoding cost.

    >>> [s[2] for s in spans(compile("x = y", "<s>", "exec"))][-3:]
    [('STORE_NAME', 'x'), ('LOAD_CONST', 'None'), 'RETURN_VALUE']

    ``shared_locals``: the local variables both codes have; any other is keyed
    as ``<local>`` (the readable form renames Dynamo's temporaries, ``tmp_1``
    becomes ``value``: its loads and stores still match by place).
    """
    names = names or {}
    localsplus = _host_shapes()[2]
    raw = code.co_code
    # (start, end, line) ranges in order: the scan only moves forward
    ranges = [r for r in code.co_lines() if r[1] > r[0]]
    ranges.append((len(raw), len(raw) + 2, None))
    r = 0
    if localsplus:      # locals and cells both index the "localsplus" names
        local = free = build_localsplus(code.co_varnames, code.co_cellvars, code.co_freevars)[0]
    else:
        local, free = code.co_varnames, code.co_cellvars + code.co_freevars
    values = {"const": code.co_consts, "name": code.co_names, "local": local, "free": free}
    out: List[Span] = []
    for start, i, end, name, arg, how, shift in _scan(raw):
        if how is None:
            key = (name, arg)
        elif how is _NO_ARG or how is _JUMP:
            key = name
        elif how == "const":
            key = (name, _const_key(values["const"][arg]))
        elif how is _COMPARE:
            key = (name, arg >> shift)
        elif how == "pair":
            local = values["local"]
            key = (name, (_local_key(local[arg >> 4], shared_locals),
                          _local_key(local[arg & 15], shared_locals)))
        elif how == "local":
            key = (name, _local_key(values["local"][arg >> shift], shared_locals))
        else:
            value = values[how][arg >> shift]
            key = (name, names.get(value, value))
        while ranges[r][1] <= i:
            r += 1
        out.append((start, end, key, ranges[r][2] if ranges[r][0] <= i else None))
    return out


def _scan(raw: bytes) -> Iterator[Tuple[int, int, int, str, int, object, int]]:
    """(start, offset, end, name, argument, how it is read, shift) of each
    instruction of this interpreter's ``raw`` code (see :func:`_host_shapes`):
    its range holds its EXTENDED_ARG prefix, its inline caches and the
    bookkeeping ops before it; ``offset`` is its opcode's."""
    shapes, extended_arg, _ = _host_shapes()
    start = i = ext = 0
    n = len(raw)
    while i < n:
        op = raw[i]
        if op == extended_arg:
            ext = (ext | raw[i + 1]) << 8
            i += 2
            continue
        name, size, how, shift = shapes[op]
        arg = raw[i + 1] | ext
        ext = 0
        if how is _SILENT:
            i += size       # its bytes go to the next instruction's range
            continue
        yield start, i, i + size, name, arg, how, shift
        start = i = i + size


def _local_key(name: str, shared: Optional[frozenset]) -> str:
    return name if shared is None or name in shared else "<local>"


_SILENT, _JUMP, _NO_ARG, _COMPARE = "<silent>", "<jump>", "<no argument>", "<compare>"
#: argument kind -> (what the argument indexes, how far its flag bits shift it)
_INDEXES = {"const": ("const", 0), "name": ("name", 0), "global": ("name", 1),
            "attr": ("name", 1), "super_attr": ("name", 2), "local": ("local", 0),
            "free": ("free", 0), "local_pair": ("pair", 0)}
_HOST: list = []


def _host_shapes():
    """Per opcode of this interpreter: (name, bytes with its caches, how its
    argument is read (what it indexes: one of ``_INDEXES``' values; _JUMP,
    _NO_ARG, _COMPARE, _SILENT; None for a plain number), the shift that drops
    its flag bits); EXTENDED_ARG's opcode; whether local and cell arguments
    index the "localsplus" names."""
    if not _HOST:
        from ..bytecode.versions import SILENT_OPS, host_table
        table = host_table()
        shapes = [("<%d>" % op, 2, None, 0) for op in range(256)]
        for info in table.opcode_by_name.values():
            # (a truth test matches as the op it belongs to, as the decoder once read it)
            if info.name in SILENT_OPS or info.name == "TO_BOOL":
                how, shift = _SILENT, 0
            elif info.kind.startswith("jump"):
                how, shift = _JUMP, 0
            elif not info.has_arg:
                how, shift = _NO_ARG, 0
            elif info.kind == "compare":
                # (3.12+ keep flag bits below the operator, which generated code may leave unset)
                how, shift = _COMPARE, table.compare_shift
            else:
                how, shift = _INDEXES.get(info.kind, (None, 0))
            name = _JUMP_NAMES.sub("", info.name) if how is _JUMP else info.name
            shapes[info.op] = (name, 2 + 2 * info.cache, how, shift)
        _HOST[:] = [shapes, table.extended_arg, table.locals_are_localsplus]
    return _HOST


# Which way a jump points depends on the block layout, not on what it does.
_JUMP_NAMES = re.compile("FORWARD_|BACKWARD_")


def matched_lines(live: Sequence[Span], dumped: Sequence[Span], first: int) -> List[int]:
    """For each live instruction, the line of the dumped instruction it is
    aligned with; unmatched ones (and matched ones without a line) repeat the
    line before them, ``first`` at the start.

    Where both sides leave their straight runs of code the same way (the
    same sequence of branches, jumps, returns and raises: the readable form
    keeps Dynamo's control flow), each run is aligned with its counterpart
    alone, and a run's first unmatched instructions take the line of its
    first matched one: a run of the one branch cannot borrow the lines of
    the other, which share most of their instructions."""
    live_runs, dumped_runs = _runs(live), _runs(dumped)
    if [k for k, _, _ in live_runs] != [k for k, _, _ in dumped_runs]:
        # Generated code can jump where the text has none (torch 2.15 ends each
        # side of an `if` with a constant the join pops, a jump over the
        # other's): runs may pair up once no jump ends one.
        live_runs, dumped_runs = _runs(live, jumps=False), _runs(dumped, jumps=False)
    if len(live_runs) > 1 and [k for k, _, _ in live_runs] == [k for k, _, _ in dumped_runs]:
        out: List[int] = []
        previous = first
        for (_, a0, a1), (_, b0, b1) in zip(live_runs, dumped_runs):
            lines = _aligned(live[a0:a1], dumped[b0:b1])
            lead = next((line for line in lines if line is not None), previous)
            matched = False
            for line in lines:
                if line is not None:
                    matched = True
                else:
                    line = previous if matched else lead
                previous = line
                out.append(line)
        return out
    out, previous = [], first
    for line in _aligned(live, dumped):
        previous = line if line is not None else previous
        out.append(previous)
    return out


def _aligned(live: Sequence[Span], dumped: Sequence[Span]) -> List[Optional[int]]:
    """The dumped line each live instruction is aligned with, or None."""
    a, b = [s[2] for s in live], [s[2] for s in dumped]
    # Only instructions of both sides can match: the dumped code's loads and
    # stores of its temporaries and Dynamo's stack shuffles (a third of each)
    # are left out, and the rest, aligned, mostly runs alike.
    # Each key common to both is matched as a small number: difflib hashes and
    # compares every element many times over, and a tuple key costs more there.
    number: Dict[object, int] = {key: n for n, key in enumerate(set(a).intersection(b))}
    at_a = [i for i, key in enumerate(a) if key in number]
    at_b = [j for j, key in enumerate(b) if key in number]
    lines: List[Optional[int]] = [None] * len(live)
    for i, j, n in matching_blocks([number[a[i]] for i in at_a], [number[b[j]] for j in at_b]):
        for t in range(n):
            lines[at_a[i + t]] = dumped[at_b[j + t]][3]
    return lines


#: how a straight run of instructions ends, by the name of its last one
_ENDS = (("RETURN_", "return"), ("RAISE_VARARGS", "raise"), ("RERAISE", "raise"),
         ("POP_JUMP", "branch"), ("JUMP_IF", "branch"), ("JUMP", "jump"))


_END_OF: Dict[object, Optional[str]] = {}       # instruction key -> how a run ends there (or None)


def _end_of(key) -> Optional[str]:
    name = key if isinstance(key, str) else key[0]
    end = _END_OF[key] = next((kind for prefix, kind in _ENDS if name.startswith(prefix)), None)
    return end


def _runs(spans_: Sequence[Span], jumps: bool = True) -> List[Tuple[str, int, int]]:
    """(how it ends, start, end) of each straight run: the instructions up to
    and including a branch, jump (unless not ``jumps``), return or raise."""
    runs, start = [], 0
    ends = _END_OF
    for i, span in enumerate(spans_):
        key = span[2]
        end = ends[key] if key in ends else _end_of(key)
        if end is not None and (jumps or end != "jump"):
            runs.append((end, start, i + 1))
            start = i + 1
    if start < len(spans_):
        runs.append(("fall", start, len(spans_)))
    return runs


def matching_blocks(a: Sequence[str], b: Sequence[str]) -> List[Tuple[int, int, int]]:
    """difflib's matching blocks of ``a`` and ``b``, the common head and tail
    taken first: the two usually differ in a few places only, and difflib's
    time grows with the square of what it is given.

    >>> matching_blocks(["a", "b", "c", "d"], ["a", "x", "c", "d"])
    [(0, 0, 1), (2, 2, 2)]
    """
    n = min(len(a), len(b))
    head = 0
    while head < n and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < n - head and a[len(a) - 1 - tail] == b[len(b) - 1 - tail]:
        tail += 1
    blocks = [(0, 0, head)] if head else []
    middle_a, middle_b = a[head:len(a) - tail], b[head:len(b) - tail]
    if middle_a and middle_b:
        matcher = difflib.SequenceMatcher(None, middle_a, middle_b, autojunk=False)
        blocks += [(i + head, j + head, k) for i, j, k in matcher.get_matching_blocks() if k]
    if tail:
        blocks.append((len(a) - tail, len(b) - tail, tail))
    return blocks


def retarget(live: types.CodeType, dumped: types.CodeType, filename: str,
             names: Optional[Dict[str, str]] = None) -> types.CodeType:
    """``live`` with ``filename`` and the lines of ``dumped`` (the same function
    compiled from the file); ``names`` maps names in ``live`` to the names
    the file uses for them (torch's graph names to stable ones)."""
    shared = frozenset(live.co_varnames) & frozenset(dumped.co_varnames)
    live_spans = spans(live, names, shared)
    dumped_spans = spans(dumped, shared_locals=shared)
    lines = matched_lines(live_spans, dumped_spans, dumped.co_firstlineno)
    first = next((s[3] for s in dumped_spans if s[3] is not None and s[3] > dumped.co_firstlineno),
                 None)
    return _pointed(live, [(s[0], s[1]) for s in live_spans], lines, first, dumped.co_firstlineno,
                    filename)


def _pointed(live: types.CodeType, bounds: Sequence[Tuple[int, int]], lines: List[int],
             first: Optional[int], start: int, filename: str) -> types.CodeType:
    """``live`` with ``filename``, ``start`` for its first line and ``lines[k]``
    for the bytes ``bounds[k]``; ``first`` is the line of the file's first
    statement."""
    if lines and first is not None and first not in lines:
        # The file's first statement holds nothing of this code (the readable
        # form moved it, or renamed what it stores): it is where the function
        # starts, so a breakpoint there stops on entry.
        lines[0] = first
    ranges = [(a, b, line) for (a, b), line in zip(bounds, lines)]
    table = encode_host_line_table(ranges, start, len(live.co_code))
    new = live.replace(co_filename=filename, co_firstlineno=start, co_linetable=table)
    check_lines(new, ranges)
    return new


def retarget_by_offsets(live: types.CodeType, lines_at: Dict[int, int], dumped: types.CodeType,
                        filename: str) -> types.CodeType:
    """``live`` with ``filename`` and, for each instruction, the line
    ``lines_at`` gives its offset: the line of the dumped file's statement
    made of it (:mod:`depyf.decompiler.line_map`), which the decompiler
    knows exactly; ``dumped`` is the function compiled from the file (for
    where it starts). See :func:`statement_lines` for what a debugger needs
    of them.

    >>> def f(a):
    ...     b = a + 1
    ...     return b
    >>> at = {i.offset: 10 if i.opname.startswith("RETURN") else 9
    ...       for i in __import__("dis").get_instructions(f) if i.opname != "RESUME"}
    >>> g = retarget_by_offsets(f.__code__, at, f.__code__.replace(co_firstlineno=8), "t.py")
    >>> sorted({line for _, _, line in g.co_lines() if line}), g.co_filename
    ([9, 10], 't.py')
    """
    scanned = instruction_ranges(live)
    start = dumped.co_firstlineno
    lines = statement_lines([lines_at.get(offset) for _, _, offset, _ in scanned],
                            [how for _, _, _, how in scanned], start)
    first = next((line for _, _, line in dumped.co_lines() if line is not None and line > start), None)
    return _pointed(live, [(a, b) for a, b, _, _ in scanned], lines, first, start, filename)


def statement_lines(marked: List[Optional[int]], how: List[Optional[str]], start: int) -> List[int]:
    """The line of each instruction, from the lines ``marked`` on some of them
    (``how`` each ends a straight run, as :data:`_ENDS` names it: None where
    it does not, "branch" where control may also fall through), such that a
    breakpoint on a statement stops once each time it runs and only when it
    runs:

    * in a straight run no line comes back after a later one: what the
      readable form moved into a later statement (a load of the graph to
      call, a value computed before an ``if`` for one of its branches) runs
      while the earlier one does, and takes its line;
    * an instruction with no line (a stack shuffle, a store a readable pass
      dropped) takes the line before it, or where no code falls into it,
      the first line of its run; ``start`` where there is none.

    >>> statement_lines([10, 9, None, 10, 12, None, 11, None, 13],
    ...                 [None, None, None, None, None, None, "branch", "jump", None], 8)
    [9, 9, 9, 10, 11, 11, 11, 11, 13]
    """
    lines = list(marked)
    low = None
    for i in range(len(lines) - 1, -1, -1):
        if how[i]:
            low = None              # (the instruction ending a run is its last)
        line = lines[i]
        if line is not None:
            low = line if low is None or line < low else low
            lines[i] = low
    previous, waiting = None, []
    for i, line in enumerate(lines):
        if line is not None:
            for k in waiting:
                lines[k] = line
            waiting = []
        elif previous is None:
            waiting.append(i)       # (the first line of the run is not known yet)
        else:
            lines[i] = line = previous
        previous = line if how[i] is None or how[i] == "branch" else None
    for k in waiting:
        lines[k] = lines[waiting[0] - 1] if waiting[0] else start
    return lines


def instruction_ranges(code: types.CodeType) -> List[Tuple[int, int, int, Optional[str]]]:
    """(start, end, offset, how it ends a run) of each instruction of a code
    object of this interpreter: the bytes of its EXTENDED_ARG prefix, its
    inline caches and the bookkeeping ops before it (RESUME...) in its range,
    ``offset`` that of its opcode (the decoder's, so the decompiler's), and
    how a straight run ends there ("return", "raise", "branch", "jump", as
    :data:`_ENDS` names it; None where it does not).

    >>> [r[3] for r in instruction_ranges(compile("x = y", "<s>", "exec"))][-2:]
    [None, 'return']
    """
    ends = _END_OF
    return [(start, end, i, ends[name] if name in ends else _end_of(name))
            for start, i, end, name, _, _, _ in _scan(code.co_code)]


def check_lines(code: types.CodeType, ranges: Sequence[Tuple[int, int, Optional[int]]]) -> None:
    """Raise unless ``code`` reports line ``line`` at the start of each range
    (the line table is hand-encoded: a slip must not reach the debugger)."""
    starts, lines = [], []
    for start, _end, line in code.co_lines():
        starts.append(start)
        lines.append(line)
    for start, _end, line in ranges:
        at = bisect.bisect_right(starts, start) - 1
        got = lines[at] if at >= 0 else None
        if got != line:
            raise ValueError("line table check failed at offset %d: %r != %r" % (start, got, line))
