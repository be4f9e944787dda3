"""Jumps into the middle of code nothing else reaches (generated code only).

Dynamo's resume function for a graph break inside a ``with`` block starts
with a prologue that enters the block again, then jumps past the start of
the original code into its middle, where the break was. The original code
before that point stays in the function, unreached, and the jump lands
inside it::

    ctx(); BEFORE_WITH; POP_TOP; ...; JUMP L       (the prologue, under the handler W)
    <the prologue's own way out, unreached>; W: <handler>
    <the original code up to the break, unreached>
    L: <the rest of the with body>; <exit call>; ...

No compiler writes that (3.10 and later drop code nothing reaches), and no
statement structure has it: the body of the ``with`` is in two pieces. The
code from ``L`` runs only after the jump, so it may as well follow it: the
run from ``L`` to its first op that does not fall through moves to just
after the jump, which goes (the run a conditional jump or a loop's exit
enters moves after the first op that does not fall through from there, as
a compiler lays out the code after a loop or an ``if``)::

    ctx(); BEFORE_WITH; POP_TOP; ...; <the rest of the with body>; <exit call>; ...

Moving a run changes nothing that runs: jumps and handlers are references to
ops, the run ends in an op that does not fall through, and the op that fell
into ``L`` is unreached. Only a run entered by that one jump, after an op
that would fall into it but is itself unreached, moves; anything else (the
join after an ``if``'s branches, code only a handler reaches) stays.

Example::

    >>> from depyf.bytecode.ir import Function, Op
    >>> ret = Op("RETURN_VALUE")
    >>> load = Op("LOAD_FAST", "y")
    >>> f = Function(None, [Op("JUMP", target=load), Op("LOAD_CONST", 1), load, ret])
    >>> jumps_into_dead_code(f, None)
    >>> [op.name for op in f.ops]
    ['LOAD_FAST', 'RETURN_VALUE', 'LOAD_CONST']
"""
from __future__ import annotations

from typing import Dict, List, Optional, Set

from .edits import remove_ops
from .ir import NO_FALLTHROUGH, Function, Op


def jumps_into_dead_code(func: Function, table) -> None:
    """Bring each run that only a jump reaches, entered after unreached code
    that would fall into it, to just after the jump (see the module)."""
    moved_any = False
    # (each move takes one entry of a run away: at most one a jump)
    for _ in range(len(func.ops)):
        move = _next_move(func.ops)
        if move is None:
            break
        moved_any = True
        jump, after, run = move
        moved = set(run)
        kept = [op for op in func.ops if op not in moved]
        at = kept.index(after)
        func.ops = kept[:at + 1] + run + kept[at + 1:]
        if after is jump:
            remove_ops(func, [jump])    # (it jumps to the next op now)
    if moved_any:
        func.reindex()


def _next_move(ops: List[Op]) -> Optional[tuple]:
    """(the jump, the op to put the run after, the run it enters) of the first
    run to move, or None. A jump goes on to the run, which follows it; the
    other way of a conditional jump or a FOR_ITER goes on first, so its run
    follows the first op after it that does not fall through (the loop's jump
    back, the end of an ``if``'s body)."""
    index = {op: i for i, op in enumerate(ops)}
    candidates = []
    for i, op in enumerate(ops):
        if op.target is None:
            continue
        t = index.get(op.target)
        if t is None or t <= i + 1 or ops[t - 1].name in NO_FALLTHROUGH:
            continue
        candidates.append((op, t))
    if not candidates:      # (compiled code: the op before a join is reached)
        return None
    # (the ways into each op, asked only of the candidates: most code has none)
    entries: Dict[Op, List[Op]] = {}
    for op in ops:
        if op.target is not None:
            entries.setdefault(op.target, []).append(op)
        if op.handler is not None:
            entries.setdefault(op.handler.target, []).append(op)
    candidates = [(op, t) for op, t in candidates if entries[op.target] == [op]]
    if not candidates:
        return None
    reached = _reached(ops, index)
    for jump, t in candidates:
        i = index[jump]
        if (t - 1) in reached or i not in reached:
            continue
        end = t
        while end < len(ops) and ops[end].name not in NO_FALLTHROUGH:
            end += 1
        after = i
        while after < t and ops[after].name not in NO_FALLTHROUGH:
            after += 1
        if end == len(ops) or after >= t - 1:
            continue        # (a run falling off the end; no slot before it)
        return jump, ops[after], ops[t:end + 1]
    return None


def _reached(ops: List[Op], index: Dict[Op, int]) -> Set[int]:
    """Indices of the ops that the first op leads to: by falling through,
    jumping or raising into a handler."""
    reached: Set[int] = set()
    todo = [0] if ops else []
    n = len(ops)
    while todo:
        i = todo.pop()
        while i < n and i not in reached:
            reached.add(i)
            op = ops[i]
            if op.target is not None:
                todo.append(index[op.target])
            if op.handler is not None:
                todo.append(index[op.handler.target])
            if op.name in NO_FALLTHROUGH:
                break
            i += 1
    return reached
