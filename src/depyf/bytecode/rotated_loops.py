"""3.10-3.13's rotated while loops, tested at the top as 3.8/3.9 have them.

3.10-3.13 compile ``while c: B`` with the test at the top and a copy of it
at the bottom of the body, so that each iteration takes one jump; 3.8/3.9
and 3.14 test at the top only. :func:`unrotated_loops` drops the bottom copy
and jumps back to the top test instead, so that the structurer reads one
spelling of a while loop::

    T: c; POP_JUMP_IF_FALSE X; L: B; c; POP_JUMP_IF_TRUE L; X:
    -> T: c; POP_JUMP_IF_FALSE X; L: B; J: JUMP T; X:

(3.12+ has no backward conditional jump: its bottom test ends ``c;
POP_JUMP_IF_FALSE X; JUMP L``, which ``backward_conditional_jumps`` folds
into the form above where it can; both forms are read here.)

Only a bottom test that provably repeats the top one goes: op for op the
same names, arguments, lines and handlers, its inner jumps (an ``and``/
``or``) landing where the top test's land, the run of repeated ops ending
each side where a statement ends (see :func:`_tests_start_after`); anything
else is left as it is. The top test may leave by a copy of the code after
the loop (3.10+ copies a small block that returns onto each way there), or
straight to the enclosing loop's head the op after the loop jumps to.

What the rest of the code says of the loop stays true:

* what jumped to the bottom test (a branch ending the body) jumps to ``J``,
  which ``Function.rebuilt_jumps_back`` records;
* a ``continue`` jumps to the top test, from the body or from the code of an
  except clause laid out after the loop, as before; as layout alone no
  longer tells it from a branch's end, ``Function.jump_statements`` records it;
* the top test's jumps to a copy of the code after the loop go to that code
  (copies nothing reaches any more go);
* an enclosing ``while True`` whose body starts with the loop jumped back to
  its top test too: it gets a head of its own, ``LOOP_TOP`` on its line (as
  3.14 keeps its NOP: see ``normalize.nested_loop_tops``).

Example (``while a and b: g()``, 3.11)::

    >>> from depyf.bytecode.ir import Function, Op
    >>> x = Op("LOAD_CONST", 1, line=3)
    >>> top = [Op("LOAD_FAST", "a", line=1), Op("POP_JUMP_IF_FALSE", target=x, line=1),
    ...        Op("LOAD_FAST", "b", line=1), Op("POP_JUMP_IF_FALSE", target=x, line=1)]
    >>> body = [Op("LOAD_GLOBAL", "g", line=2), Op("CALL", 0, line=2), Op("POP_TOP", line=2)]
    >>> bottom = [Op("LOAD_FAST", "a", line=1), Op("POP_JUMP_IF_FALSE", target=x, line=1),
    ...           Op("LOAD_FAST", "b", line=1), Op("POP_JUMP_IF_TRUE", target=body[0], line=1)]
    >>> f = Function(None, top + body + bottom + [x, Op("RETURN_VALUE", line=3)])
    >>> unrotated_loops(f, None)
    >>> [op.name for op in f.ops]    # doctest: +NORMALIZE_WHITESPACE
    ['LOAD_FAST', 'POP_JUMP_IF_FALSE', 'LOAD_FAST', 'POP_JUMP_IF_FALSE',
     'LOAD_GLOBAL', 'CALL', 'POP_TOP', 'JUMP', 'LOAD_CONST', 'RETURN_VALUE']
    >>> f.ops[7].target is top[0], f.ops[7].line
    (True, 1)
"""
from __future__ import annotations

from typing import Dict, List, NamedTuple, Optional, Tuple

from .edits import remove_ops, replace_ops
from .ir import Function, Op, same_handler

#: a conditional jump -> the one that jumps on the opposite outcome
_OPPOSITE = {"POP_JUMP_IF_TRUE": "POP_JUMP_IF_FALSE", "POP_JUMP_IF_FALSE": "POP_JUMP_IF_TRUE",
             "POP_JUMP_IF_NONE": "POP_JUMP_IF_NOT_NONE",
             "POP_JUMP_IF_NOT_NONE": "POP_JUMP_IF_NONE"}
#: ops that end a statement: a loop test holds none of them (so the test
#: found cannot run on into the statements before the loop and at the end
#: of its body, which may repeat one another too)
_STATEMENT_ENDS = frozenset({"POP_TOP", "RETURN_VALUE", "RAISE_VARARGS", "RERAISE", "JUMP"})
#: more ops after which a statement starts: an except clause's start (the
#: exception it handles stays on the stack under it) and end, the marks of a
#: loop's head and of the function's end
_OTHER_ENDS = frozenset({"PUSH_EXC_INFO", "POP_EXCEPT", "LOOP_TOP", "END", "IMPORT_STAR"})
#: the ops that end a block the compiler copies
_BLOCK_ENDS = frozenset({"RETURN_VALUE", "RAISE_VARARGS", "RERAISE"})
#: the copies that keep an assignment expression's value (``x := v``)
_KEEPING_COPIES = (("COPY", 1), ("DUP_TOP", None))


class RotatedLoop(NamedTuple):
    """A rotated while loop, by index: ``top`` starts its top test, ``body``
    its body, ``bottom`` the bottom test, which ends at ``last`` (its jump
    back, a JUMP after a conditional jump in 3.12+'s form)."""
    top: int
    body: int
    bottom: int
    last: int


def unrotated_loops(func: Function, table) -> None:
    """Test each rotated while loop at its top only (see the module docstring)."""
    func.reindex()
    ops = func.ops
    loops = []
    entries = _Entries(ops)
    for op in ops:
        # (a jump back first: no call for the most ops)
        if op.target is not None and op.target.index <= op.index:
            loop = rotated_loop(ops, op, entries)
            if loop is not None:
                loops.append(loop)
    if loops:
        _unrotate(func, loops, entries)


def rotated_loop(ops: List[Op], op: Op, entries: Optional["_Entries"] = None
                 ) -> Optional[RotatedLoop]:
    """The rotated loop whose jump back ``op`` is, or None (``op.index`` current;
    ``entries``: how ``ops`` are entered, where the caller keeps that)."""
    back = _bottom_jump(ops, op)
    if back is None:
        return None
    test_end, exit_ = back
    body = op.target.index
    if body == 0:
        return None
    final = ops[body - 1]
    # (the top test leaves the loop when the bottom one would not go back)
    leaves = _OPPOSITE[ops[test_end].name] if test_end == op.index else ops[test_end].name
    if final.name != leaves or not _leaves(ops, final.target, exit_):
        return None
    size = _repeated_size(ops, body - 1, test_end, exit_)
    if not size:
        return None
    top, bottom = body - 1 - size, test_end - size
    if not _entered_only_at_start(ops, bottom, op.index, entries or _Entries(ops)):
        return None
    return RotatedLoop(top, body, bottom, op.index)


def _bottom_jump(ops: List[Op], op: Op):
    """(index of the bottom test's final conditional jump, the op after the
    loop) when ``op`` jumps back as a rotated loop's bottom test does, else None."""
    i = op.index
    if op.target is None or op.target.index > i or i + 1 >= len(ops):
        return None
    if op.name in _OPPOSITE:
        return i, ops[i + 1]
    before = ops[i - 1] if i else None
    if op.name == "JUMP" and before is not None and before.name in _OPPOSITE \
            and before.target is ops[i + 1]:
        return i - 1, ops[i + 1]        # (3.12+: c; POP_JUMP_IF_FALSE X; JUMP L; X:)
    return None


def _leaves(ops: List[Op], target: Op, exit_: Op) -> bool:
    """A jump to ``target`` leaves the loop as falling out of the bottom test
    into ``exit_`` does: ``target`` is ``exit_``, the enclosing loop's head
    that ``exit_`` jumps to (the compiler threads jumps through that JUMP), or
    a copy of the block at ``exit_`` (3.10+ copies a small block that returns
    onto each way there)."""
    return target is exit_ or (exit_.name == "JUMP" and exit_.target is target) \
        or _copied_block(ops, exit_.index, target.index)


def _copied_block(ops: List[Op], x: int, copy: int) -> bool:
    """The ops from ``copy`` repeat those from ``x`` up to a return or raise
    (3.10+ copies a small block after a loop onto the top test's ways out).
    The compiler's closing ``return None`` has no line of its own: each copy
    takes the line of the jump to it."""
    if copy <= x:
        return False
    if _returns_none(ops, x) and _returns_none(ops, copy):
        return same_handler(ops[x], ops[copy]) and same_handler(ops[x + 1], ops[copy + 1])
    for k in range(copy - x):
        if copy + k >= len(ops):
            return False
        a, b = ops[x + k], ops[copy + k]
        if a.target is not None or b.target is not None or not _same_op(a, b):
            return False
        if a.name in _BLOCK_ENDS:
            return True
    return False


def _returns_none(ops: List[Op], k: int) -> bool:
    """``LOAD_CONST None; RETURN_VALUE`` at ``k``."""
    return k + 1 < len(ops) and ops[k].name == "LOAD_CONST" and ops[k].arg is None \
        and ops[k + 1].name == "RETURN_VALUE" and ops[k + 1].arg is None


def _repeated_size(ops: List[Op], top_end: int, test_end: int, exit_: Op) -> int:
    """How many ops before the top test's final jump (at ``top_end``) the ops
    before the bottom test's (at ``test_end``) repeat: the test's, as long as
    each pair is the same op of the same line; 0 where the run does not stop
    where statements end (see _tests_start_after): the test found would be
    only its end."""
    body = top_end + 1
    shift = test_end - top_end
    size = 0
    while top_end - 1 - size >= 0:
        a = ops[top_end - 1 - size]
        if test_end - 1 - size < body:
            # (the bottom test is all the body holds: ``while c: pass``)
            return size if _ends_statement(a) else 0
        b = ops[test_end - 1 - size]
        if not _same_test_op(ops, a, b) or not _same_jump(ops, a, b, shift, body, exit_):
            return size if _tests_start_after(a, b) else 0
        size += 1
    return size      # (the test starts the code)


def _tests_start_after(a: Op, b: Op) -> bool:
    """The run of repeated ops stopping at ``a`` (before the top test) and
    ``b`` (before the bottom one) found the whole test: each ends a statement
    (the one before the loop, the body's last), and they are not two copies
    of one op of the test (alike but for where they jump), nor two jumps of
    one line (the test's and/or, going different ways)."""
    if not (_ends_statement(a) and _ends_statement(b)) or _same_op(a, b):
        return False
    return not (a.name in _OPPOSITE and b.name in _OPPOSITE and a.line == b.line)


def _ends_statement(op: Op) -> bool:
    """No value of ``op``'s is left for the op after it: a statement ends there."""
    name = op.name
    return name in _STATEMENT_ENDS or name in _OPPOSITE or name in _OTHER_ENDS \
        or name.startswith(("STORE", "DELETE"))


def _same_op(a: Op, b: Op) -> bool:
    """Two ops alike but for where they jump."""
    return a.name == b.name and a.line == b.line and same_handler(a, b) and (
        a.target is not None or (a.arg == b.arg and type(a.arg) is type(b.arg)))


def _same_test_op(ops: List[Op], a: Op, b: Op) -> bool:
    """``a`` (top) and ``b`` (bottom) are one op of a loop test."""
    if not _same_op(a, b):
        return False
    name = a.name
    if name == "JUMP":
        # a conditional expression's jump over its other value (``while
        # f(a if c else b):``), forward within the test (:func:`_same_jump`)
        return a.target.index > a.index
    if name in _STATEMENT_ENDS or name.startswith("DELETE"):
        return False
    # (a store ends a statement, but an assignment expression's, which keeps
    # its value, is part of the test)
    return not name.startswith("STORE") or _keeps_value(ops[a.index - 1])


def _keeps_value(op: Op) -> bool:
    return any(op.name == name and (arg is None or op.arg == arg)
               for name, arg in _KEEPING_COPIES)


def _same_jump(ops: List[Op], a: Op, b: Op, shift: int, body: int, exit_: Op) -> bool:
    """``a`` (top) and ``b`` (bottom) jump alike (or neither jumps): on inside
    their tests (``shift`` ops apart), into the body, or out of the loop."""
    if a.target is None:
        return b.target is None
    t = a.target.index
    if a.index < t < body:
        return b.target.index == t + shift
    if t == body:
        return b.target.index == body
    return _leaves(ops, a.target, exit_) and _leaves(ops, b.target, exit_)


#: how an op is entered: by a jump (an op's ``target``), by an exception (its ``handler``)
_JUMPED, _HANDLED = "jump", "handler"


class _Entries:
    """How each op is entered: (the op that jumps to it or whose handler
    starts there, how), indexed on first use (most loops are no rotated one)."""

    def __init__(self, ops: List[Op]):
        self.ops = ops
        self._by_op: Optional[Dict[int, List[Tuple[Op, str]]]] = None

    def of(self, op: Op) -> List[Tuple[Op, str]]:
        if self._by_op is None:
            self._by_op = {}
            for o in self.ops:
                if o.target is not None:
                    self._by_op.setdefault(id(o.target), []).append((o, _JUMPED))
                if o.handler is not None:
                    self._by_op.setdefault(id(o.handler.target), []).append((o, _HANDLED))
        return self._by_op.get(id(op), [])


def _entered_only_at_start(ops: List[Op], bottom: int, last: int, entries: _Entries) -> bool:
    """Nothing but the bottom test's own jumps reaches into it past its first
    op, and no handler starts in it."""
    for k in range(bottom, last + 1):
        for o, how in entries.of(ops[k]):
            if how == _HANDLED or k > bottom and not bottom <= o.index <= last:
                return False
    return True


def _unrotate(func: Function, loops: List[RotatedLoop], entries: _Entries) -> None:
    """Put ``JUMP T`` in place of each loop's bottom test."""
    ops = func.ops
    spans = _HandlerSpans(ops)
    # (the bottom tests go: their jumps say nothing of the code that stays)
    bottoms = {k for loop in loops for k in range(loop.bottom, loop.last + 1)}
    replacements = {}
    doomed = []
    shared = []
    copies = []
    for loop in loops:
        copies += _exits_to_copies(ops, loop)
        top, first, last = ops[loop.top], ops[loop.bottom], ops[loop.last]
        sources = [o for o, how in entries.of(top)
                   if how == _JUMPED and o.index not in bottoms]
        continues, outer = _jumps_to_top(loop, sources, spans)
        # (the end of a branch went to the bottom test, so to the new jump
        # back, never straight to the top: layout alone no longer tells these
        # from a branch's end)
        func.jump_statements.update(map(id, continues))
        back = Op("JUMP", None, top, first.line, first.offset, first.handler)
        func.rebuilt_jumps_back.add(id(back))
        func.loop_bodies.add(id(ops[loop.body]))
        if func.unguarded is not None and id(last) in func.unguarded:
            func.unguarded.add(id(back))    # (the compiler's jump back, as the one it replaces)
        replacements[id(first)] = [back]
        doomed += ops[loop.bottom + 1:loop.last + 1]
        if any(o.index > loop.last for o in outer):
            # An enclosing ``while True`` starts with this loop: its jumps back
            # would land on this loop's head too; a head of its own, as 3.14's
            # ``while 1:`` NOP keeps (see normalize.nested_loop_tops).
            head = Op("LOOP_TOP", line=_enclosing_line(top, outer))
            replacements[id(top)] = [head, top]
            shared.append((head, top, {id(o) for o in outer}))
    dead = _unreached_copies(ops, copies, doomed + [ops[loop.bottom] for loop in loops])
    _forget(func, [ops[loop.bottom] for loop in loops] + doomed + dead)
    replace_ops(func, replacements)
    for head, top, outer in shared:
        # (replace_ops aimed whatever reached the head of this loop at the
        # enclosing loop's: only the enclosing loop's jumps go there)
        for o in func.ops:
            if o.target is head and id(o) not in outer:
                o.target = top
    remove_ops(func, doomed)
    if dead:
        # (nothing aims at them: no marker in their place, which remove_ops
        # leaves where ops at the very end go)
        gone = set(map(id, dead))
        func.ops = [o for o in func.ops if id(o) not in gone]


def _enclosing_line(top: Op, outer: List[Op]) -> Optional[int]:
    """The line of an enclosing ``while True:`` whose jumps back (``outer``)
    reach ``top``: its closing jump's (the last in layout), which the compiler
    gives the loop's line, where that comes before the inner loop's; else
    ``top``'s own."""
    last = max(outer, key=lambda o: o.index)
    if last.line is not None and top.line is not None and last.line < top.line:
        return last.line
    return top.line


def _jumps_to_top(loop: RotatedLoop, sources: List[Op], spans: "_HandlerSpans"):
    """(the loop's ``continue`` jumps, the jumps to its top test from outside
    it) among ``sources``, the jumps to its top test: a ``continue`` jumps
    from the body or from the code of a handler of a try in the body (laid
    out after the loop, 3.11+); an enclosing loop's jumps from before or after."""
    continues, outer = [], []
    for o in sources:
        k = o.index
        if loop.body <= k < loop.bottom or (k > loop.last and spans.in_handler_code(k, loop)):
            continues.append(o)
        elif k < loop.top or k > loop.last:
            outer.append(o)
    return continues, outer


class _HandlerSpans:
    """Which handler code belongs to a try in a loop's body (found on demand)."""

    def __init__(self, ops: List[Op]):
        self.ops = ops
        self._spans: Optional[Dict[int, Tuple[int, int]]] = None

    def in_handler_code(self, k: int, loop: RotatedLoop) -> bool:
        """The op at ``k``, past the loop, is in the code of a handler whose
        try lies in the loop's body (or in such code itself)."""
        entry = self._entry_before(k, loop.last)
        while entry is not None:
            span = self.spans().get(entry)
            if span is None:
                return False
            lo, hi = span
            if loop.body <= lo and hi < loop.bottom:
                return True
            entry = self._entry_before(lo, loop.last) if lo > loop.last else None
        return False

    def _entry_before(self, k: int, stop: int) -> Optional[int]:
        """The index of the last handler entry (``PUSH_EXC_INFO``) in ``(stop, k]``."""
        ops = self.ops
        while k > stop and ops[k].name != "PUSH_EXC_INFO":
            k -= 1
        return k if k > stop else None

    def spans(self) -> Dict[int, Tuple[int, int]]:
        """A handler entry's index -> the first and last index its handler covers."""
        if self._spans is None:
            self._spans = {}
            for o in self.ops:
                if o.handler is not None:
                    t = o.handler.target.index
                    lo, hi = self._spans.get(t, (o.index, o.index))
                    self._spans[t] = (min(lo, o.index), max(hi, o.index))
        return self._spans


def _exits_to_copies(ops: List[Op], loop: RotatedLoop) -> List[int]:
    """Aim the top test's jumps to copies of the code after the loop at that
    code (as the bottom test's fall into it); the indices of the copies the
    two tests went to."""
    exit_ = ops[loop.last + 1]
    copies = []
    for o in ops[loop.top:loop.body] + ops[loop.bottom:loop.last + 1]:
        t = o.target
        if t is not None and t is not exit_ and t.index > exit_.index \
                and _copied_block(ops, exit_.index, t.index):
            copies.append(t.index)
            if o.index < loop.body:
                o.target = exit_
    return copies


def _unreached_copies(ops: List[Op], copies: List[int], gone: List[Op]) -> List[Op]:
    """The ops of the blocks at ``copies`` that nothing reaches any more (but
    the ``gone`` ops): no jump, no handler, no op before that falls in."""
    if not copies:
        return []
    gone_ids = {id(o) for o in gone}
    reached = set()
    for o in ops:
        if id(o) in gone_ids:
            continue
        if o.target is not None:
            reached.add(id(o.target))
        if o.handler is not None:
            reached.add(id(o.handler.target))
    dead = []
    for start in sorted(set(copies)):
        end = start
        while ops[end].name not in _BLOCK_ENDS:
            end += 1
        block = ops[start:end + 1]
        if ops[start - 1].name in _BLOCK_ENDS and not any(id(o) in reached for o in block):
            dead += block
    return dead


def _forget(func: Function, gone: List[Op]) -> None:
    """Drop what the function records of the ops in ``gone`` by id (a later
    op may reuse an id)."""
    ids = {id(o) for o in gone}
    func.jump_statements.difference_update(ids)
    for k in ids.intersection(func.line_nop_jumps):
        del func.line_nop_jumps[k]
    if func.unguarded is not None:
        func.unguarded.difference_update(ids)
