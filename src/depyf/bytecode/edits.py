"""Editing a function's list of ops with every jump and handler kept valid.

What every pass that drops, replaces or rewrites ops calls: when an Op goes,
whatever aimed at it (a jump ``target``, a handler's target) aims at what
takes its place, or the next op kept. The normalising passes of
:mod:`.normalize`, :mod:`.blockstack` and :mod:`.finally38` and the
fallback's own clean-ups all edit through these.

Example::

    >>> from depyf.bytecode.ir import Function, Op
    >>> ret = Op("RETURN_VALUE")
    >>> f = Function(None, [Op("NOP"), Op("JUMP", target=ret), ret])
    >>> remove_ops(f, [ret])
    >>> [op.name for op in f.ops], f.ops[1].target is f.ops[2]
    (['NOP', 'JUMP', 'END'], True)
"""
from __future__ import annotations

from typing import Callable, Dict, Iterable, List

from .ir import Function, Handler, Op
from .versions import VersionTable


def remove_ops(func: Function, doomed: Iterable[Op]) -> None:
    """Delete ops; jumps and handlers aimed at one move to the next survivor."""
    # (Ops and Handlers hash by identity: sets and dicts of them, not of their ids.)
    doomed = set(doomed)
    if not doomed:
        return
    survivors = []
    successor: Dict[Op, Op] = {}
    pending = []            # doomed ops since the last survivor
    aimed = []              # survivors whose jump or handler reaches a doomed op
    # (one scan for the three lists, not a second one to retarget: this runs
    # after most passes)
    for op in func.ops:
        if op in doomed:
            pending.append(op)
            continue
        if pending:
            _settle(pending, op, successor)
        survivors.append(op)
        if (op.target is not None and op.target in doomed) or (
                op.handler is not None and op.handler.target in doomed):
            aimed.append(op)
    _end_marker(survivors, pending, successor)
    func.ops = survivors
    if aimed:
        _retarget(aimed, successor)


def replace_op(func: Function, op: Op, new: List[Op]) -> None:
    """Put ``new`` in place of ``op``; what targeted ``op`` targets ``new[0]``."""
    replace_ops(func, {id(op): new})


def replace_ops(func: Function, replacements: Dict[int, List[Op]]) -> None:
    """``replace_op`` for many ops in one pass over the function (``replacements``
    maps ``id(op)`` to its new ops): a pass that replaced ops one by one would
    take time quadratic in the function's length."""
    if not replacements:
        return
    out = []
    first_of: Dict[Op, Op] = {}         # (keyed by op: Ops hash by identity)
    for op in func.ops:
        new = replacements.get(id(op))
        if new is None:
            out.append(op)
            continue
        for n in new:
            _inherit(n, op)
        first_of[op] = new[0]
        out.extend(new)
    for other in out:
        if other.target is not None and other.target in first_of:
            other.target = first_of[other.target]
        h = other.handler
        if h is not None and h.target in first_of:
            h.target = first_of[h.target]
    func.ops = out


def rewrite_each(func: Function, table: VersionTable, rewrites) -> None:
    """Run one-op passes over ``func`` in one scan. ``rewrites``: ``(names, rewrite)``
    pairs in pass order; ``rewrite(op, table)`` sees only ops named in ``names`` and
    changes ``op`` in place (returning None) or returns the ops to put in its
    place (``[]``: none). As each looks at its op alone, this is the same as running
    the passes one after another, without a scan and a list rebuild each. Jumps
    and handlers aimed at a replaced op move to its first replacement, those aimed
    at a dropped op to the next op kept.

    >>> from depyf.bytecode.normalize import OP_PASSES, drop_noise, rename
    >>> f = Function(None, [Op("NOP"), Op("ROT_TWO"), Op("RETURN_VALUE")])
    >>> rewrite_each(f, None, [(OP_PASSES["drop_noise"], drop_noise),
    ...                        (OP_PASSES["rename"], rename)])
    >>> [(op.name, op.arg) for op in f.ops]
    [('SWAP', 2), ('RETURN_VALUE', None)]
    """
    _rewrite_all(func, table, _by_name(rewrites))


def one_scan(rewrites) -> Callable[[Function, VersionTable], None]:
    """``rewrite_each`` with its ``rewrites`` fixed, as a pass: which rewrites see
    which op names is worked out once, not on every call.

    >>> from depyf.bytecode.normalize import OP_PASSES, drop_noise
    >>> f = Function(None, [Op("NOP"), Op("RETURN_VALUE")])
    >>> one_scan([(OP_PASSES["drop_noise"], drop_noise)])(f, None)
    >>> [op.name for op in f.ops]
    ['RETURN_VALUE']
    """
    by_name = _by_name(rewrites)

    def run(func: Function, table: VersionTable) -> None:
        _rewrite_all(func, table, by_name)
    return run


def _by_name(rewrites) -> Dict[str, tuple]:
    """op name -> the ``(k, rewrite)`` of the ``rewrites`` that see it, in order."""
    by_name: Dict[str, list] = {}
    for k, (names, rewrite) in enumerate(rewrites):
        for name in names:
            by_name.setdefault(name, []).append((k, rewrite))
    return {name: tuple(steps) for name, steps in by_name.items()}


def _rewrite_all(func: Function, table: VersionTable, by_name: Dict[str, tuple]) -> None:
    ops = func.ops
    # Most ops are left as they are, or changed in place: find the others first,
    # then rebuild the list around them (if any) a stretch at a time.
    edits = []
    i = -1
    for op in ops:
        # (a count and a test of the name, no enumerate tuple and no call, for
        # the most ops, which no rewrite sees)
        i += 1
        if op.name not in by_name:
            continue
        steps = by_name[op.name]
        if len(steps) == 1:
            # (_rewritten's usual case, inlined: one rewrite sees the op)
            k, rewrite = steps[0]
            name = op.name
            new = rewrite(op, table)
            if new is None:
                if op.name == name or op.name not in by_name:
                    continue        # (unchanged, or renamed to a name no rewrite sees)
                new = _rewritten(op, table, by_name, k + 1)
                if new is None:
                    continue
            else:
                new = _replaced(op, new, table, by_name, k)
        else:
            new = _rewritten(op, table, by_name, 0)
            if new is None:
                continue
        edits.append((i, op, new))
    if not edits:
        return
    out = []
    moved: Dict[Op, Op] = {}        # a replaced or dropped op -> what stands in its place
    pending = []                    # dropped ops, waiting for the next op kept
    kept = 0                        # ops[kept:] are not in ``out`` yet
    for i, op, new in edits:
        if kept < i:
            if pending:
                _settle(pending, ops[kept], moved)
            out.extend(ops[kept:i])
        kept = i + 1
        if not new:
            pending.append(op)
            continue
        if new[0] is not op:
            moved[op] = new[0]
        if pending:
            _settle(pending, new[0], moved)
        out.extend(new)
    if kept < len(ops):
        if pending:
            _settle(pending, ops[kept], moved)
        out.extend(ops[kept:])
    _finish(func, out, pending, moved)


def _rewritten(op: Op, table: VersionTable, by_name, start: int):
    """The ops that the rewrites numbered ``start`` on put in ``op``'s place, or
    None for ``op`` itself; each later rewrite runs on each replacement, as
    passes would."""
    name = op.name
    for k, rewrite in by_name.get(name, ()):
        if k < start:
            continue
        new = rewrite(op, table)
        if new is None:
            if op.name != name:         # renamed: the later rewrites of its new name
                return _rewritten(op, table, by_name, k + 1)
            continue
        return _replaced(op, new, table, by_name, k)
    return None


def _replaced(op: Op, new: List[Op], table: VersionTable, by_name, k: int) -> List[Op]:
    """``new``, which rewrite ``k`` put in ``op``'s place, after the later rewrites."""
    out = None          # (made only when a later rewrite changes one: ``new`` as it is)
    for j, n in enumerate(new):
        if n is not op:
            _inherit(n, op)
        steps = by_name.get(n.name)
        more = _rewritten(n, table, by_name, k + 1) \
            if steps is not None and steps[-1][0] > k else None
        if more is not None:
            if out is None:
                out = new[:j]
            out.extend(more)
        elif out is not None:
            out.append(n)
    return new if out is None else out


def _settle(dropped: List[Op], kept: Op, moved: Dict[Op, Op]) -> None:
    """The ops in ``dropped`` give their place to ``kept``; ``dropped`` empties."""
    for gone in dropped:
        moved[gone] = kept
    dropped.clear()


def _finish(func: Function, ops: List[Op], dropped: List[Op], moved: Dict[Op, Op]) -> None:
    """``ops`` become ``func.ops``, ``dropped`` (ops dropped at the very end) give
    their place to a terminal marker, and what aimed at a key of ``moved`` aims
    at its value."""
    _end_marker(ops, dropped, moved)
    func.ops = ops
    if moved:
        _retarget(ops, moved)


def _end_marker(ops: List[Op], dropped: List[Op], moved: Dict[Op, Op]) -> None:
    """Ops dropped at the very end: a terminal NOP-like marker takes their place,
    so that what aimed at them stays valid."""
    if dropped:
        end = Op("END", line=dropped[-1].line, offset=dropped[-1].offset)
        for gone in dropped:
            moved[gone] = end
        ops.append(end)


def _retarget(ops: List[Op], moved: Dict[Op, Op]) -> None:
    """Aim jumps and handlers that reach a key of ``moved`` at its value."""
    handlers = {}
    for op in ops:
        if op.target is not None and op.target in moved:
            op.target = moved[op.target]
        h = op.handler
        if h is not None and h.target in moved:
            if h not in handlers:
                handlers[h] = Handler(moved[h.target], h.depth, h.lasti)
            op.handler = handlers[h]


def _inherit(new: Op, old: Op) -> None:
    """An op put in ``old``'s place takes its line, offset and handler unless set."""
    if new.line is None:
        new.line = old.line
    if new.offset < 0:
        new.offset = old.offset
    if new.handler is None:
        new.handler = old.handler


def _is_target(func: Function, op: Op) -> bool:
    return any(o.target is op or (o.handler is not None and o.handler.target is op)
               for o in func.ops)

