"""Rebuilding boolean conditions from chains of conditional jumps.

CPython compiles a condition in a jump context (``if``, ``while``, ``assert``)
into segments, each an expression followed by a conditional jump. For
``if a and not b: X`` it emits::

    a; POP_JUMP_IF_FALSE else
    b; POP_JUMP_IF_TRUE  else
    X ...
    else:

:func:`parse_chain` inverts the compiler's ``jump_if(expr, label, cond)``
recursion: given the segments, the label the whole chain jumps to and the
truth value that makes it jump, it returns the expression (here
``a and not b`` with "jump when false").
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import List, Optional

from ..failure import DecompileFailure
from ..values import ChainLink

#: the conditional jumps, and the truth value each jumps on (None: the ``is
#: None`` tests, whose sense the jump's name gives)
CONDITIONAL = {"POP_JUMP_IF_FALSE": False, "POP_JUMP_IF_TRUE": True,
               "POP_JUMP_IF_NONE": None, "POP_JUMP_IF_NOT_NONE": None}
#: the jumps of an and/or whose value is kept (not a condition's)
VALUE_BOOLOPS = frozenset({"JUMP_IF_TRUE_OR_POP", "JUMP_IF_FALSE_OR_POP"})


def operand(m):
    """The condition operand on top of ``m``'s stack (a chained comparison's open
    last link stays open: the jump may be its ``is None``)."""
    top = m.pop()
    return top if type(top) is ChainLink else m.value(top)     # (a leaf class)


@dataclass
class Segment:
    expr: ast.expr
    #: index of the segment's first op, and the jump op that ends it
    start: int
    jump: object
    #: the segment jumps when its value is this
    sense: bool
    #: where the jump counts as going, when it lands on one of several equal
    #: copies of a block (3.10+ copies the closing ``return None``)
    alias: Optional[int] = None


    @property
    def target(self) -> int:
        return self.alias if self.alias is not None else self.jump.target.index

    @property
    def unconditional(self) -> bool:
        """The JUMP that ends the body of a conditional expression in a condition."""
        return self.expr is None


def parse_chain(segments: List[Segment], fallthrough: int, target: int, cond: bool) -> ast.expr:
    """The expression E such that the chain jumps to ``target`` when E is ``cond``
    and falls through to ``fallthrough`` otherwise. (When reading it so puts a
    ``not`` on a comparison the compiler would fold, ``not E'`` with ``E'`` read
    for the other sense is taken if it has fewer: ``not (a is not None and b)``
    compiles to ``a is not None`` jumping, ``a is None or not b`` does not.)"""
    expr = _parse(segments, 0, len(segments), fallthrough, target, cond)
    if len(segments) > 1 and _cost(expr)[0] > 0:
        try:
            alt = ast.UnaryOp(op=ast.Not(), operand=_parse(segments, 0, len(segments),
                                                          fallthrough, target, not cond))
        except DecompileFailure:
            return expr
        if _cost(alt) < _cost(expr):
            return alt
    return expr


def longest_chain(segments: List[Segment], after: int, accept=None):
    """The longest prefix of ``segments`` that forms one condition: ``(k, expr, after_k)``
    where the chain of the first ``k`` segments jumps to ``segments[k-1].target`` when
    ``expr`` equals that segment's sense and falls through to ``after_k`` otherwise.

    Segments are read greedily; the first of an inner statement's condition
    (``while a: if b and c: ...``) looks like more of the chain until its jumps
    are seen to land elsewhere. ``accept(last_segment)`` may rule out a prefix.
    """
    for k in range(len(segments), 0, -1):
        fallthrough = _label(segments, k, after)
        last = deciding(segments[:k])
        if last is None or (accept is not None and not accept(last)):
            continue
        if last is not segments[k - 1] and segments[k - 1].jump.target.index != fallthrough:
            continue
        try:
            return k, parse_chain(segments[:k], fallthrough, last.target, last.sense), fallthrough
        except DecompileFailure:
            if k == 1:
                raise
    raise DecompileFailure("empty condition chain")


def deciding(segments: List[Segment]) -> Optional[Segment]:
    """The segment whose jump says where the chain goes when it jumps: the
    last one, or the one before the jump that ends the chain when it ends
    with a conditional expression whose else is a constant (see
    :func:`_parse_constant_else`); None where there is none."""
    last = segments[-1] if segments else None
    if last is not None and last.unconditional:
        last = segments[-2] if len(segments) > 1 and not segments[-2].unconditional else None
    return last


def _label(segments, k, fallthrough):
    return segments[k].start if k < len(segments) else fallthrough


def _parse(segs, lo, hi, fallthrough, target, cond) -> ast.expr:
    if hi - lo == 1:
        seg = segs[lo]
        if seg.target != target or seg.unconditional:
            raise DecompileFailure("condition segment jumps elsewhere")
        return seg.expr if seg.sense == cond else negate(seg.expr)
    if segs[lo].unconditional:
        raise DecompileFailure("condition starts with a jump")
    # (a chain ending with a jump can only end with a conditional expression
    # whose else is a constant: tried once no and/or reads the operands)
    folded = segs[hi - 1].unconditional
    if not folded:
        ifexp = _parse_ifexp(segs, lo, hi, fallthrough, target, cond)
        if ifexp is not None:
            return ifexp
    end = _label(segs, hi, fallthrough)
    for m in range(lo + 1, hi):
        try:
            found = _split(segs, lo, m, hi, end, fallthrough, target, cond)
        except DecompileFailure:
            if not folded:
                raise
            continue        # (another split may leave the constant's else whole)
        if found is not None:
            return found
    if folded:
        ifexp = _parse_constant_else(segs, lo, hi, fallthrough, target, cond)
        if ifexp is not None:
            return ifexp
    raise DecompileFailure("condition chain has no boolean form")


def _split(segs, lo, m, hi, end, fallthrough, target, cond) -> Optional[ast.BoolOp]:
    """The and/or of ``segs[lo:m]`` and ``segs[m:hi]``, when their jumps make one, else None."""
    inner = {_label(segs, k, fallthrough) for k in range(lo + 1, m + 1)}
    jumps = {segs[k].target for k in range(lo, m)}
    # All operands jump to `target` when they equal `cond`: `and` (cond False) / `or`.
    if segs[m - 1].target == target and jumps <= inner | {target}:
        first = _parse(segs, lo, m, _label(segs, m, fallthrough), target, cond)
        rest = _parse(segs, m, hi, fallthrough, target, cond)
        return _boolop(ast.And if not cond else ast.Or, first, rest)
    # Operands fall out to the end when they equal `not cond`; the last one jumps.
    if end != target and segs[m - 1].target == end and jumps <= inner | {end}:
        first = _parse(segs, lo, m, _label(segs, m, fallthrough), end, not cond)
        rest = _parse(segs, m, hi, fallthrough, target, cond)
        return _boolop(ast.And if cond else ast.Or, first, rest)
    return None


def _parse_ifexp(segs, lo, hi, fallthrough, target, cond):
    """``t; POP_JUMP_IF_FALSE E; <b jumps>; JUMP END; E: <c jumps>; END:`` is the
    condition ``b if t else c`` (the compiler's jump_if of a conditional expression)."""
    end = _label(segs, hi, fallthrough)
    for k in range(lo + 2, hi - 1):
        jump = segs[k]
        if not jump.unconditional or jump.jump.target.index != end:
            continue
        found = _ifexp(segs, lo, k, fallthrough, target, cond, _label(segs, k + 1, fallthrough),
                       lambda: _parse(segs, k + 1, hi, fallthrough, target, cond))
        if found is not None:
            return _as_jump_value(found, cond)
    return None


def _parse_constant_else(segs, lo, hi, fallthrough, target, cond):
    """``t; POP_JUMP_IF_FALSE END; <b jumps>; JUMP END; END:`` is the condition
    ``b if t else C``, ``C`` a constant whose truth lets the chain fall through:
    the compiler folds a constant branch into a jump, here none (where its
    value falls through, the test's false jump lands where the body's does).
    Which constant it was is gone; ``True`` (``False``) compiles the same.

    Example: ``if a or (b if c else 1): X`` (jump to E when false)::

        a; POP_JUMP_IF_TRUE X           `a or ...`
        c; POP_JUMP_IF_FALSE X          the test, its else folded away
        b; POP_JUMP_IF_FALSE E          the body
        JUMP X                          the body's end
        X: ...                          -> `a or (b if c else True)`
    """
    end = _label(segs, hi, fallthrough)
    if segs[hi - 1].jump.target.index != end or end == target:
        return None
    return _ifexp(segs, lo, hi - 1, fallthrough, target, cond, end,
                  lambda: ast.Constant(value=not cond))


def _ifexp(segs, lo, k, fallthrough, target, cond, orelse_start, orelse) -> Optional[ast.IfExp]:
    """``body if test else orelse()``: the test ``segs[lo:j]`` jumps to
    ``orelse_start`` when false, the body ``segs[j:k]`` ends with the JUMP
    ``segs[k]``, for the first ``j`` that reads so."""
    jump = segs[k]
    end = jump.jump.target.index
    # Inside the body, landing on END is falling out of it (onto the JUMP).
    saved = [(s, s.alias) for s in segs[lo:k]]
    try:
        for s in segs[lo + 1:k]:
            if s.target == end:
                s.alias = jump.start
        for j in range(lo + 1, k):
            try:
                test = _parse(segs, lo, j, _label(segs, j, fallthrough), orelse_start, False)
                body = _parse(segs, j, k, jump.start, target, cond)
                other = orelse()
            except DecompileFailure:
                continue
            return ast.IfExp(test=test, body=body, orelse=other)
    finally:
        for s, alias in saved:
            s.alias = alias
    return None


def _as_jump_value(expr, cond):
    return expr


def _boolop(kind, first, rest) -> ast.BoolOp:
    values = []
    for part in (first, rest):
        if isinstance(part, ast.BoolOp) and isinstance(part.op, kind) and not getattr(part, "_paren", False):
            values.extend(part.values)
        else:
            values.append(part)
    return ast.BoolOp(op=kind(), values=values)


def negate(expr: ast.expr) -> ast.expr:
    """``not expr`` for a condition (a jump context), folding a double negation and
    pushing the ``not`` into an and/or where that leaves fewer (De Morgan's laws
    change nothing in the jumps).

    The compiler folds ``not (a is b)`` into ``a is not b`` (``in`` likewise),
    which compiles differently, so a ``not`` that would land on such a comparison
    is pushed away from it whenever the and/or allows.
    """
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        if _foldable(expr.operand):
            # (a `not` 3.14+ keeps apart, unfolded_not_jumps: negated again,
            # the test is that `not` once more, not the flipped comparison)
            expr.operand.written_not = True
        return expr.operand
    if _foldable(expr) and getattr(expr, "written_not", False):
        return ast.UnaryOp(op=ast.Not(), operand=expr)
    if _foldable(expr):
        # What the compiler makes of `not (a is b)` anyway: `a is not b`.
        flipped = ast.Compare(left=expr.left, ops=[FLIPPED_TESTS[type(expr.ops[0])]()],
                              comparators=expr.comparators)
        # (A test of a POP_JUMP_IF_NONE jump compiles back either way.)
        flipped.none_jump = getattr(expr, "none_jump", False)
        flipped.folded_not = not getattr(expr, "folded_not", False) and not flipped.none_jump
        return flipped
    plain = ast.UnaryOp(op=ast.Not(), operand=expr)
    if isinstance(expr, ast.BoolOp) and not getattr(expr, "_paren", False):
        other = ast.Or if isinstance(expr.op, ast.And) else ast.And
        pushed = ast.BoolOp(op=other(), values=[negate(v) for v in expr.values])
        if _cost(pushed) <= _cost(plain):
            return pushed
    return plain


_FOLDABLE = (ast.Is, ast.IsNot, ast.In, ast.NotIn)


#: each is/in comparison and the one that says its opposite
FLIPPED_TESTS = {ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In}


def folds_a_not(expr) -> bool:
    """The condition has a ``not`` the compiler would fold into a comparison."""
    return _cost(expr)[0] > 0


def _foldable(expr) -> bool:
    return isinstance(expr, ast.Compare) and len(expr.ops) == 1 \
        and isinstance(expr.ops[0], _FOLDABLE)


def _cost(expr):
    """(``not``s on a comparison the compiler would fold, ``not``s) in a condition."""
    if getattr(expr, "folded_not", False):
        return 1, 1
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        bad, nots = _cost(expr.operand)
        return bad, nots + 1
    if isinstance(expr, ast.BoolOp):
        costs = [_cost(v) for v in expr.values]
        return sum(c[0] for c in costs), sum(c[1] for c in costs)
    return 0, 0
