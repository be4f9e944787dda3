"""Where an if statement's branches join, read from the control-flow graph.

The join of ``if c: A else: B`` is the first block every way on from the test
passes: the immediate post-dominator of the test. Over the whole code object
that is not the join a statement needs: a branch that returns (raises, breaks,
continues) never comes back, so the code after the if does not post-dominate
the test. So the post-dominators are taken inside the *region* the if lies
in, the block ``[then_start, hi)`` being walked (with the handler code of the
try statements inside it where that is laid out elsewhere), toward its way
on: leaving the region the way falling off its end does (to ``hi``, where an
enclosing branch joins, past code the walk skips, into 3.10+'s copies of the
closing ``return None``) goes to a virtual exit; every other way out is
dropped, so a branch that leaves holds nothing back (see
:meth:`~depyf.decompiler.cfg.Cfg.region_ipdom`). A ``continue`` is such a way
out, although falling off a loop's body goes to the same place: ``if c:
continue`` then B and ``if c: pass`` ``else: B`` ending a body compile alike.

The join is the nearest block on both branches' post-dominator chains: in
the block, the else ends there (at ``else_start``: there is no else); the
virtual exit, the else runs to the block's end. Where only the true branch
runs on, the first block on its chain past the else's start is the join (the
else leaves). Where the true branch never runs on there is no answer (None):
``if c: return`` then B, and ``if c: return`` ``else: B``, compile alike, and
only the layout (a jump left behind, unreached, up to 3.9) tells them apart;
:mod:`.ifs` keeps those rules. Where nothing runs on past ``hi`` (the block is
the rest of the function, which ends in returns), the ways out of the region
stand for the way on, but those of the true branch's own code, which never
rejoin.

Example::

    if c:                   c; POP_JUMP_IF_FALSE E
        if d:               d; POP_JUMP_IF_FALSE J2
            f()             f(); JUMP J
        else:
            return 1    J2: LOAD_CONST 1; RETURN_VALUE
    else:               E:  g()
        g()             J:  ... (hi)

The return leaves, so the chain from ``d`` runs to the exit through ``f()``,
as the one from ``E`` does: the else runs to the block's end, although the
true branch's last op is a return, not a jump over the else.
"""
from __future__ import annotations

from typing import Optional

from ..cfg import EXCEPTION


def if_join(w, then_start: int, else_start: int, hi: int) -> Optional[int]:
    """Where the branches starting at ``then_start`` and ``else_start`` join
    within the block ending at ``hi`` (``hi`` itself: only by running on past
    it), read from the graph; None where neither branch runs on, or where a
    branch does not start a block (the graph has no answer)."""
    if else_start >= hi:
        return hi
    cfg = w.cfg
    then_block = cfg.block_of(w.ops[then_start])
    else_block = cfg.block_of(w.ops[else_start])
    if then_block.start != then_start or else_block.start != else_start:
        return None
    region = if_region(w, then_start, hi)
    ways = ways_on(w, hi)
    # (where the block ends the function, nothing runs on past it: see
    # _join_without_way_on)
    closing = any(k < w.n and w.is_return_none_copy(k) for k in ways)
    implicit = w.ctx.implicit_returns

    def runs_on(b) -> bool:
        if closing and b.last.name == "RETURN_VALUE" and b.end - 1 in implicit:
            # (3.10+ copies the closing `return None` onto each way there)
            return True
        # (a jump forward out of the block that is no loop's goes where
        # falling off its end does: to the join of a construct around it,
        # which may lie past code the walk of the block skips)
        return any(e.kind != EXCEPTION and e.target not in region and (
            e.target.start in ways or e.target.start >= hi and not w.frames.loop_jump(e.target.start))
            for e in b.successors)

    if hi >= w.n and not closing:
        # (nothing to run on to: the code ends in returns)
        return _join_without_way_on(w, region, then_block, else_block, hi)
    if not _reaches(then_block, region, runs_on):
        # (most such ifs, `if c: return`, `raise`, `continue`, need no more)
        if _reaches(else_block, region, runs_on):
            return None
        return _join_without_way_on(w, region, then_block, else_block, hi)
    ipdom = cfg.region_ipdom(region, runs_on)
    a = _chain(ipdom, then_block)
    b = _chain(ipdom, else_block)
    if a is None and b is None:
        return _join_without_way_on(w, region, then_block, else_block, hi)
    if a is None:
        return None
    if b is not None:
        join = _common(a, b)
    else:
        join = next((x for x in a if x is None or x.start >= else_start), None)
    if join is None:
        return hi
    return join.start if join.start <= hi else None


def _join_without_way_on(w, region, then_block, else_block, hi):
    """The join where no branch runs on past ``hi`` (the block is the rest of
    the function): the ways out of the region are the exit, but those of the
    true branch's own code, which never rejoin: code only it reaches that
    lies before ``else_start`` (by the test's jump), past ``hi``, or is
    handler code (3.12+ lays an except clause out after the function's last
    return); and the compiler's RERAISEs of handler code (a clause whose type
    does not match, a clean-up), which the source does not write."""
    cfg, mid = w.cfg, else_block.start
    normal = w.normal
    code = normal if then_block.start in normal else cfg.op_indices(region)

    def out(b) -> bool:
        return (b.start in code or b.last.name != "RERAISE") and _leaves(b, region) and not (
            (b.start < mid or b.start >= hi or b.start not in normal)
            and cfg.dominates(then_block, b))

    if not _reaches(then_block, region, out):
        return None
    ipdom = cfg.region_ipdom(region, out)
    a, b = _chain(ipdom, then_block), _chain(ipdom, else_block)
    if a is None or b is None:
        return None
    join = _common(a, b)
    if join is None:
        # They meet only on the way out: the else leaves too, and the code
        # after the if is where the true branch goes on past the else. (Not
        # where that and the else are both copies of the closing `return
        # None`, 3.10+'s one for each way there: the if has no else.)
        join = next((x for x in a if x is not None and x.start >= mid), None)
        if join is not None and w.is_return_none_copy(mid) \
                and w.is_return_none_copy(join.start):
            return None
    return join.start if join is not None and mid <= join.start <= hi else None


def _reaches(block, region, goal) -> bool:
    """Some block ``goal`` holds is reached from ``block`` inside ``region``
    (a walk that stops at the first: cheaper than the post-dominators, which
    a branch that only leaves would not need)."""
    seen = {block}
    work = [block]
    while work:
        b = work.pop()
        if goal(b):
            return True
        for e in b.successors:
            t = e.target
            if t not in seen and t in region:
                seen.add(t)
                work.append(t)
    return False


def _leaves(block, region) -> bool:
    """Control leaves ``region`` from ``block`` (exceptions aside)."""
    normal = False
    for e in block.successors:
        if e.kind != EXCEPTION:
            if e.target not in region:
                return True
            normal = True
    return not normal


def _common(a, b):
    """The first block of chain ``a`` that is on chain ``b`` (None: the exit)."""
    seen = set(b)
    return next(x for x in a if x in seen)


def if_region(w, lo: int, hi: int) -> set:
    """The blocks of ``[lo, hi)``, and the handler code of the try statements
    there that lies elsewhere (3.12+ lays except clauses out after the code):
    what an exception inside the region can reach short of normal code and of
    the handler around the region (the test's, before ``lo``)."""
    cfg = w.cfg
    region = set(cfg.blocks_between(lo, hi))
    # The handlers around the test, and those around them: code of the region
    # that leaves one of them (a with's exit on the way to a continue) is
    # still covered by the next.
    outer = set()
    around = w.ops[lo - 1].handler
    while around is not None and len(outer) < 64:
        block = cfg.block_of(around.target)
        if block in outer:
            break
        outer.add(block)
        around = w.regions.parent(around)
    work = [e.target for b in region for e in b.successors
            if e.kind == EXCEPTION and e.target not in region and e.target not in outer]
    normal = w.normal
    while work:
        b = work.pop()
        if b in region or b in outer or b.start in normal:
            continue
        region.add(b)
        work.extend(e.target for e in b.successors)
    return region


def ways_on(w, hi: int) -> set:
    """The op indices control reaches by falling off the block ending at
    ``hi``, before it does anything: ``hi``, where the enclosing branches
    join, the targets of jumps there; not a loop's next iteration (a
    ``continue`` goes there too, and is a way out of the branch, see
    :func:`if_join`)."""
    out = set()
    k: Optional[int] = hi
    while k is not None and k not in out and not w.frames.loop_jump(k):
        out.add(k)
        on = w.frames.end_leads_to(k)
        if on is None and k < w.n and w.ops[k].name == "JUMP":
            on = w.ops[k].target.index
        k = on
    return out


def _chain(ipdom, block):
    """``block``'s post-dominators in the region, up to the exit (None), or
    None where control never runs on from it."""
    if block not in ipdom:
        return None
    out = [block]
    while out[-1] is not None:
        out.append(ipdom[out[-1]])
    return out
