"""Reading a test from the ops: the segments of a condition, each an
operand and the conditional jump that tests it, up to where the chain ends.

A segment is the code of one operand followed by its jump (see
:class:`~.conditionals.Segment`); :func:`read_chain` walks segments on while
the next ops look like one more (:func:`chain_continues`), and
:func:`read_condition` reads a whole test: its chain, parsed into one
expression by :func:`~.conditionals.longest_chain`, and where the test's
true and false ways go. The constructs that start with a test (``if``,
``while``, ``assert``, ``match`` guards, conditional expressions) read it
here. Each function takes the walker (``w``) whose ops it reads.

Example (what the ops of ``if a and not b:`` give)::

    LOAD_FAST a; POP_JUMP_IF_FALSE E      Segment(a, jumps to E when false)
    LOAD_FAST b; POP_JUMP_IF_TRUE E       Segment(b, jumps to E when true)
                                          -> test `a and not b`, false way E
"""
from __future__ import annotations

import ast

from .conditionals import (CONDITIONAL, VALUE_BOOLOPS, Segment, deciding, longest_chain, negate,
                           operand)
from ..expressions import StackMachine
from ..failure import DecompileFailure
from .signatures import exit_block, walrus_store
from ..values import ChainLink
from .withs import WITH_STARTS

#: ops that end a condition operand's code without being part of it
_NOT_OPERAND = frozenset({"RETURN_VALUE", "RAISE_VARARGS"}) | WITH_STARTS
#: prefixes of the op names that end a condition operand, and the answer per name
_SEGMENT_ENDS = ("STORE", "DELETE", "RETURN", "RAISE", "POP_TOP", "IMPORT", "YIELD")
_ENDS_SEGMENT = {}


def read_chain(w, m: StackMachine, i: int, hi: int, prior=()):
    """Segments of a condition starting at ``i`` (after the ``prior`` ones):
    (segments, index after the last jump)."""
    segments = []
    start = i
    sub = StackMachine(w.ctx, m.stack)
    while True:
        seg_start = start
        j = start
        op = w.ops[j] if j < hi else None
        if op is not None and op.name == "JUMP" and (segments or prior) \
                and j < op.target.index <= hi and not w.is_loop_jump(op) \
                and chain_continues(w, list(prior) + segments, j, hi):
            # The end of a conditional expression's body (`if (a if t else b):`).
            segments.append(Segment(None, j, op, None))
            start = j + 1
            continue
        while j < hi:
            op = w.ops[j]
            if op.name in CONDITIONAL:
                if len(sub.stack) <= len(m.stack) + 1 or sub.stmts:
                    break
                # A conditional expression inside the operand, values waiting
                # under its test (`a or b[0 if c else 1]`).
                try:
                    j = w.value_ifexp(sub, j, hi)
                except DecompileFailure:
                    return segments, start
                continue
            if op.name in VALUE_BOOLOPS and len(sub.stack) > len(m.stack):
                # An and/or inside the operand (`a[:n or None] and b`).
                try:
                    j = w.value_boolop(sub, j, hi)
                except DecompileFailure:
                    return segments, start
                continue
            if op.target is not None or op.name in _NOT_OPERAND \
                    or (j != seg_start and j in w.back_targets):
                break
            try:
                sub.step(op)
            except DecompileFailure:
                # No operand: a statement's code (a with statement's exit
                # call, under the values the condition would leave).
                return segments, start
            if sub.stmts:
                break
            j += 1
        if j >= hi or w.ops[j].name not in CONDITIONAL or sub.stmts \
                or len(sub.stack) != len(m.stack) + 1:
            return segments, start
        segments.append(segment(operand(sub), seg_start, w.ops[j]))
        start = j + 1
        if segments and not chain_continues(w, list(prior) + segments, start, hi):
            return segments, start


def segment(value, start, jump) -> Segment:
    """A condition operand ending in ``jump`` (``POP_JUMP_IF_NONE`` tests ``is None``)."""
    sense = CONDITIONAL[jump.name]
    link = type(value) is ChainLink     # (a leaf class)
    if link and sense is not None:
        raise DecompileFailure("ChainLink used as a value")
    if sense is None and link:
        # `a is b is None`: the chain's last link became the jump.
        value = value.compare
        value.ops.append(ast.Is())
        value.comparators.append(ast.Constant(value=None))
        return Segment(value, start, jump, jump.name == "POP_JUMP_IF_NONE")
    if sense is None:
        is_none = jump.name == "POP_JUMP_IF_NONE"
        value = ast.Compare(left=value, ops=[ast.Is() if is_none else ast.IsNot()],
                            comparators=[ast.Constant(value=None)])
        value.none_jump = True
        sense = True
    return Segment(value, start, jump, sense)


def chain_continues(w, segments, nxt: int, hi: int) -> bool:
    # Another segment belongs to this chain only while some earlier jump
    # still lands inside the chain (on a later segment's start).
    if nxt >= hi or nxt in w.back_targets:
        return False
    jump = segments[-1].jump
    if id(jump) in w.func.jump_statements:
        return False        # (it ends an `if c: continue` of its own)
    if id(jump) in w.func.branch_ends_back and (w.ops[nxt].line or 0) > jump.line:
        # A test whose way to the end of a loop body 3.12+ folded into a jump
        # back to the head, on the test's line: a test on a later line is a
        # statement of the if's body, whose ways out may go to the same place
        # (`if not a: (if b: continue)`); read as one chain they would be
        # `if a or b: continue`, which compiles apart.
        return False
    last = segments[-1].target
    for s in segments:
        t = s.target
        if nxt < t and t != last:
            return True         # a jump still pending
    return _looks_like_segment(w, nxt, hi)


def _looks_like_segment(w, j: int, hi: int) -> bool:
    """Pure loads and operators up to a conditional jump (a condition operand);
    read_chain checks the stack effect for real."""
    start = j
    ends = _ENDS_SEGMENT
    while j < hi:
        op = w.ops[j]
        if op.name in CONDITIONAL:
            return j > start
        try:
            end = ends[op.name]     # (a subscript, not .get(): no call)
        except KeyError:    # (a name's answer, once: a tuple of prefixes per op cost more)
            end = ends[op.name] = op.name.startswith(_SEGMENT_ENDS)
        if (op.target is not None and not (op.name in VALUE_BOOLOPS
                                           and start < j < op.target.index < hi)) \
                or (end and not walrus_store(w.ops, j)):
            return False
        j += 1
    return False


def read_condition(w, m: StackMachine, i: int, hi: int):
    """The condition whose first jump is at ``i``: (test, where the true branch
    starts, where the false branch starts, line)."""
    # The first segment's expression is already on the machine's stack.
    jump = w.ops[i]
    segments = [segment(operand(m), i, jump)]
    if chain_continues(w, segments, i + 1, hi):
        more, after = read_chain(w, m, i + 1, hi, segments)
        segments += more
    else:
        after = i + 1
    k, test, after = _chain(w, segments, after, hi)
    if k < len(segments) and any(s.alias is not None for s in segments[:k]):
        # Copies merged for the longer chain, which is not one: only the
        # shorter chain's own copies count.
        for s in segments:
            s.alias = None
        k, test, after = _chain(w, segments[:k], segments[k].start, hi)
    segments = segments[:k]
    last = deciding(segments)
    target = last.target
    line = m.start_line if m.start_line is not None else jump.line
    m.start_line = None
    # jump-when-false means the fall-through is the true branch
    test = test if not last.sense else negate(test)
    return test, after, target, line


def _chain(w, segments, after, hi):
    """:func:`longest_chain` of ``segments``, jumps to copies of one exit block
    counted as going to the same place."""
    _merge_copied_targets(w, segments, hi)
    copies = {s.target for s in segments if w.is_return_none_copy(s.target)}
    if len(copies) > 1:
        for s in segments:
            if s.target in copies:
                s.alias = min(copies)
    return longest_chain(segments, after)


def _tail_key(w, t: int):
    """The ops of a short block (six ops at most) ending in return/raise, with
    their lines (a copy keeps them: two raises alike on two lines are two
    statements), or None. The closing ``return None`` at its end goes by its
    ops alone: each copy of it takes the line of the jump there, as an
    except clause's POP_EXCEPT on its way out takes the line of the code
    before it."""
    block = exit_block(w.ops, t, 6)
    if block is None:
        return None
    lines = [None if o.name == "POP_EXCEPT" else o.line for o in w.ops[t:t + len(block)]]
    if block[-2:] == [("LOAD_CONST", None), ("RETURN_VALUE", w.ops[t + len(block) - 1].arg)]:
        lines[-2:] = [None, None]
    return block, tuple(lines)


def _merge_copied_targets(w, segments, hi: int) -> None:
    """Jumps to copies of one exit block go to the same place: the last jump's
    copy, unless that lies past the block ending at ``hi`` (an except clause's
    body, which ends at its first way out: 3.10 and 3.11 lay a jump's copy of
    that way out after it, 3.12 before); then the copy the block runs on
    into, at ``hi``, else the first."""
    last = segments[-1]
    if len(segments) == 1 and last.target <= hi:
        return      # (most conditions: one jump, inside the block)
    key = _tail_key(w, last.target)
    if key is None:
        return
    group = [seg for seg in segments if seg.target == last.target or _tail_key(w, seg.target) == key]
    place = last.target
    if place > hi:
        place = hi if hi < w.n and _tail_key(w, hi) == key else min(seg.target for seg in group)
    for seg in group:
        if seg.target != place:
            seg.alias = place
