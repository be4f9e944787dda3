"""The control-flow graph of one normalised code object.

:func:`build_cfg` cuts the normalised ops (:mod:`depyf.bytecode.normalize`)
into basic blocks joined by typed edges, once per code object; the analyses
the structurer asks about are worked out from it when first asked for, and
kept:

* blocks and edges: ``fall`` (into the next block), ``jump``, ``true`` /
  ``false`` (a two-way branch) and ``exception`` (to the handler that covers
  the block, with its stack depth and ``lasti``);
* reachability, with and without exception edges;
* dominators and post-dominators (:attr:`Cfg.idom`, :attr:`Cfg.ipdom`);
* the loop forest (:attr:`Cfg.loops`): header, body, latches, exits, nesting;
* the handler tree (:attr:`Cfg.handlers`): what each handler protects, where it
  starts, its clean-up and its code, and which handler covers it in turn;
* the finally bodies and with-statement exits the compiler copied onto each
  way out (:attr:`Cfg.duplicates`), found once.

Every version 3.8-3.13 comes out of normalising in one shape (3.8-3.10 block
set-ups as 3.11-style handlers on each op), so nothing here asks which Python
made the code. A block holds ops of one handler only: a change of handler
starts a block, so "what protects this block" has one answer; where a copy
starts and where control leaves it start blocks too, so a copy is whole blocks.
Block set-ups normalising had to leave in place (3.8 code it could not
rewrite) give exception edges without a handler, and no handler region.

Example::

    >>> def f(x):
    ...     while x:
    ...         x -= 1
    ...     return x
    >>> cfg = build_cfg(f)
    >>> len(cfg.loops), sorted({e.kind for e in cfg.loops[0].exits})
    (1, ['false'])
    >>> cfg.dominates(cfg.entry, cfg.loops[0].header)
    True

To look at one: ``python -m depyf.decompiler.cfg FILE.pyc[:QUALNAME]`` (or a
``.py`` file, compiled by the running Python).
"""
from __future__ import annotations

import bisect
import sys
import types
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Set, Tuple

from ..bytecode.code import CodeRecord
from ..bytecode.ir import Function, Handler, Op

#: the kinds of edge
FALL = "fall"
JUMP = "jump"
TRUE = "true"
FALSE = "false"
EXCEPTION = "exception"

#: ops after which control never goes on to the next op
TERMINATORS = frozenset({"JUMP", "RETURN_VALUE", "RAISE_VARARGS", "RERAISE"})

#: two-way branches: (kind of the jump edge, kind of the fall-through edge).
#: ``true``/``false`` say how the op's test came out: the truth of the value,
#: for the None tests whether it ``is None``; a FOR_ITER's test is "an item
#: came": the jump past the loop is its ``false`` edge.
BRANCHES: Dict[str, Tuple[str, str]] = {
    "POP_JUMP_IF_TRUE": (TRUE, FALSE),
    "POP_JUMP_IF_FALSE": (FALSE, TRUE),
    "JUMP_IF_TRUE_OR_POP": (TRUE, FALSE),
    "JUMP_IF_FALSE_OR_POP": (FALSE, TRUE),
    "POP_JUMP_IF_NONE": (TRUE, FALSE),
    "POP_JUMP_IF_NOT_NONE": (FALSE, TRUE),
    "FOR_ITER": (FALSE, TRUE),
    # (left by a 3.9/3.10 clause the block-stack pass could not rewrite)
    "JUMP_IF_NOT_EXC_MATCH": (FALSE, TRUE),
}

#: block set-ups normalising left in place (code it could not rewrite): their
#: target is where an exception goes, with no depth known
SETUPS = frozenset({"SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH", "SETUP_CLEANUP"})


class _lazy:
    """A property worked out on first use and then kept in the instance
    (``functools.cached_property``, without the lock it takes up to 3.11)."""

    def __init__(self, func):
        self.func = func
        self.name = func.__name__
        self.__doc__ = func.__doc__

    def __get__(self, obj, cls=None):
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.func(obj)
        return value


class Edge:
    """One edge: ``source`` -> ``target`` of ``kind``. An exception edge carries
    the ``handler`` (None for a left-over block set-up) and its ``depth`` and
    ``lasti``; other edges carry the ``op`` that makes them (the source's last)."""
    __slots__ = ("source", "target", "kind", "op", "handler")

    def __init__(self, source: "Block", target: "Block", kind: str, op: Optional[Op] = None,
                 handler: Optional[Handler] = None):
        self.source = source
        self.target = target
        self.kind = kind
        self.op = op
        self.handler = handler

    @property
    def depth(self) -> Optional[int]:
        return self.handler.depth if self.handler is not None else None

    @property
    def lasti(self) -> bool:
        return self.handler is not None and self.handler.lasti

    def __repr__(self) -> str:
        return "<Edge B%d->B%d %s>" % (self.source.index, self.target.index, self.kind)


class Block:
    """A basic block: ``ops`` (``start``..``end`` of the code's ops, ``end``
    exclusive), all under one ``handler``; control enters at the first op only
    and leaves after the last. ``index`` is its place in :attr:`Cfg.blocks`."""
    __slots__ = ("index", "ops", "start", "end", "handler", "successors", "predecessors")

    def __init__(self, index: int, ops: List[Op], start: int, end: int):
        self.index = index
        self.ops = ops
        self.start = start
        self.end = end
        self.handler: Optional[Handler] = ops[0].handler
        self.successors: List[Edge] = []
        self.predecessors: List[Edge] = []

    @property
    def first(self) -> Op:
        return self.ops[0]

    @property
    def last(self) -> Op:
        return self.ops[-1]

    def edge(self, kind: str) -> Optional[Edge]:
        """The first successor edge of ``kind``, or None."""
        for e in self.successors:
            if e.kind == kind:
                return e
        return None

    def normal_successors(self) -> List["Block"]:
        """Where control goes from here, exceptions aside."""
        return [e.target for e in self.successors if e.kind != EXCEPTION]

    def __repr__(self) -> str:
        return "<B%d ops %d-%d>" % (self.index, self.start, self.end - 1)


class Loop:
    """A natural loop: the ``header`` every way in passes, the ``body`` (header
    included, in layout order), the ``latches`` (blocks with an edge back to the
    header), the ``exits`` (edges from the body to outside it, exceptions
    aside), the ``exception_exits`` (exception edges to handlers outside the
    body: a try around the loop, or one inside it whose handler code leaves the
    loop, by ``break`` for instance), and the loops around it (``parent``) and
    inside it (``children``)."""

    def __init__(self, header: Block, body: List[Block], latches: List[Block],
                 exits: List[Edge], exception_exits: List[Edge]):
        self.header = header
        self.body = body
        self.latches = latches
        self.exits = exits
        self.exception_exits = exception_exits
        self.parent: Optional[Loop] = None
        self.children: List[Loop] = []
        self._members = frozenset(body)

    def __contains__(self, block: Block) -> bool:
        return block in self._members

    @property
    def exit_blocks(self) -> List[Block]:
        """Where the exits lead, in layout order, each once."""
        return sorted({e.target for e in self.exits}, key=_index)

    @property
    def depth(self) -> int:
        """1 for an outermost loop."""
        d, loop = 0, self
        while loop is not None:
            d, loop = d + 1, loop.parent
        return d

    def __repr__(self) -> str:
        return "<Loop at B%d, %d blocks>" % (self.header.index, len(self.body))


class HandlerRegion:
    """One exception handler: its ``entry`` block, the ``protected`` blocks it
    covers directly (their ``handler`` is this one), its ``handler`` (depth,
    lasti), its ``kind`` and, in the tree, its ``parent``: the handler that
    covers its own entry (where an exception raised while handling goes; for
    a try statement's handler, its clean-up, whose parent is the enclosing
    statement's handler).

    ``kind`` is read off the entry's ops: ``except``, ``except*``,
    ``finally``, ``with``, ``cleanup`` (``COPY 3; POP_EXCEPT; RERAISE 1``),
    ``unbind`` (``except E as name``: ``name = None; del name; RERAISE``) or
    ``other``.
    """

    def __init__(self, cfg: "Cfg", entry: Block, handler: Handler, kind: str):
        self.cfg = cfg
        self.entry = entry
        self.handler = handler
        self.kind = kind
        self.protected: List[Block] = []
        self.parent: Optional[HandlerRegion] = None
        self.children: List[HandlerRegion] = []

    @property
    def depth(self) -> int:
        return self.handler.depth

    @property
    def lasti(self) -> bool:
        return self.handler.lasti

    @property
    def cleanup(self) -> Optional["HandlerRegion"]:
        """The clean-up handler (``COPY 3; POP_EXCEPT; RERAISE 1``) that covers a
        try or with statement's handler code, if any."""
        p = self.parent
        return p if p is not None and p.kind == "cleanup" and self.kind in _TRY_KINDS else None

    def covers(self, block: Block) -> bool:
        """Whether an exception raised in ``block`` reaches this handler, first
        or through the handlers nested in its protection."""
        return self in self.cfg.handler_chain(block)

    def _owns(self, block: Block) -> bool:
        """``block``'s exceptions meet this handler's clean-up before the handler
        itself: it is this handler's code (or code nested in it)."""
        cleanup = self.cleanup
        for region in self.cfg.handler_chain(block):
            if region is cleanup:
                return True
            if region is self:
                return False
        return False

    @_lazy
    def code(self) -> List[Block]:
        """The handler's own code, in layout order: with a clean-up, the blocks
        the clean-up covers (nested statements' code included; not what runs
        once the handler is left, after POP_EXCEPT); without one, the blocks
        reached from the entry that the entry dominates."""
        cfg = self.cfg
        if self.cleanup is not None:
            return [b for b in cfg.blocks if b.handler is not None and self._owns(b)]
        dominates = cfg.dominates
        seen = {self.entry}
        work = [self.entry]
        while work:
            b = work.pop()
            for s in b.normal_successors():
                if s not in seen and dominates(self.entry, s):
                    seen.add(s)
                    work.append(s)
        return sorted(seen, key=_index)

    def __repr__(self) -> str:
        return "<%s handler at B%d, depth %d%s>" % (self.kind, self.entry.index, self.depth,
                                                    " lasti" if self.lasti else "")


class Copy:
    """One copy the compiler made: its ``blocks`` and ``ops`` (layout order)
    and the blocks control goes on to after it (``exits``). ``original`` maps
    each op of the copy to the op it copies (finally bodies; empty for a
    with-statement exit, which has no original to copy)."""

    def __init__(self, duplicate: "Duplicate", ops: List[Op], original: Dict[Op, Op]):
        self.duplicate = duplicate
        self.ops = ops
        self.original = original
        self.blocks: List[Block] = []
        self.exits: List[Block] = []

    def original_block(self, block: Block) -> Optional[Block]:
        """The block of the original that ``block`` (of this copy) copies."""
        op = self.original.get(block.first)
        return self.duplicate.cfg.block_of(op) if op is not None else None

    def __repr__(self) -> str:
        return "<copy of %s: %s>" % (self.duplicate.kind,
                                     " ".join("B%d" % b.index for b in self.blocks))


class Duplicate:
    """Code the compiler wrote more than once. ``kind`` ``finally``: the finally
    body of ``region``'s try statement, whose ``original`` is the handler's
    (exceptional) copy and whose ``copies`` run on the normal ways out of the
    try body; ``with-exit``: the ``__exit__(None, None, None)`` call of the with
    statement whose handler is ``region``, written on each way out of its body
    (``original`` empty)."""

    def __init__(self, cfg: Optional["Cfg"], kind: str, handler_entry: Op,
                 original_ops: List[Op]):
        self.cfg = cfg
        self.kind = kind
        #: the first op of the handler of the statement the copies belong to
        self.handler_entry = handler_entry
        #: the original's ops (finally bodies), layout order
        self.original_ops = original_ops
        self.original: List[Block] = []
        self.copies: List[Copy] = []

    @property
    def region(self) -> "HandlerRegion":
        return self.cfg.region_at(self.cfg.block_of(self.handler_entry))

    def __repr__(self) -> str:
        return "<%s duplicated %d times>" % (self.kind, len(self.copies))


class Cfg:
    """The control-flow graph of one code object; see :func:`build_cfg`."""

    def __init__(self, ops: List[Op], blocks: List[Block], code=None,
                 duplicates: Optional[List[Duplicate]] = None,
                 starts: Optional[List[int]] = None):
        self.ops = ops
        self.blocks = blocks
        #: the CodeRecord, when known
        self.code = code
        self._starts = starts if starts is not None else [b.start for b in blocks]
        self.duplicates: List[Duplicate] = duplicates or []
        for d in self.duplicates:
            d.cfg = self

    @property
    def entry(self) -> Optional[Block]:
        return self.blocks[0] if self.blocks else None

    def block_of(self, op: Op) -> Block:
        """The block holding ``op`` (an op of this code).

        >>> cfg = build_cfg(lambda x: x or 1)
        >>> cfg.block_of(cfg.ops[0]) is cfg.entry, cfg.op_indices([cfg.entry])
        (True, {0, 1})
        """
        i = op.index
        if not (0 <= i < len(self.ops) and self.ops[i] is op):
            raise ValueError("%r is not an op of this code" % (op,))
        return self.blocks[bisect.bisect_right(self._starts, i) - 1]

    def edges(self) -> Iterator[Edge]:
        for b in self.blocks:
            yield from b.successors

    # -- reachability ---------------------------------------------------------

    @_lazy
    def reachable(self) -> frozenset:
        """Blocks control reaches from the entry, through handlers too."""
        blocks = self.blocks
        return frozenset([blocks[i] for i in self._rpo])

    @_lazy
    def reachable_normal(self) -> frozenset:
        """Blocks control reaches from the entry when nothing raises."""
        entry = self.entry
        if len(self.blocks) <= 1:
            return frozenset(self.blocks)
        seen = {entry}
        work = [entry]
        while work:
            for e in work.pop().successors:
                t = e.target
                if e.kind != EXCEPTION and t not in seen:
                    seen.add(t)
                    work.append(t)
        return frozenset(seen)

    def entered_blocks(self) -> List[Block]:
        """The entry and the blocks control enters other than by falling into
        them (a jump, a branch, a handler's way in), reachable or not: where
        code that keeps a stack state per way in (the fallback) starts one.

        >>> cfg = build_cfg(lambda x: 1 if x else 2)
        >>> entered = cfg.entered_blocks()
        >>> entered[0] is cfg.entry, cfg.entry.edge("false").target in entered
        (True, True)
        >>> cfg.entry.edge("true").target in entered      # (the way on: falling in)
        False
        """
        # (a branch's way on to the next block is a falling in, whatever its kind)
        return [b for b in self.blocks if b.index == 0 or any(
            e.kind == EXCEPTION or (e.op is not None and e.op.target is b.first)
            for e in b.predecessors)]

    @staticmethod
    def op_indices(blocks: Iterable[Block]) -> Set[int]:
        """The indices of the ops of ``blocks`` (``cfg.op_indices(cfg.reachable)``)."""
        out: Set[int] = set()
        for b in blocks:
            out.update(range(b.start, b.end))
        return out

    @_lazy
    def exits(self) -> List[Block]:
        """Reached blocks control leaves the code from (return, raise, the end),
        exceptions aside: no normal successor."""
        reach = self.reachable
        return [b for b in self.blocks if b in reach
                and not any(e.kind != EXCEPTION for e in b.successors)]

    @_lazy
    def _rpo(self) -> List[int]:
        """The reached blocks' indices in reverse postorder over every edge."""
        blocks = self.blocks
        if len(blocks) <= 1:
            return [0] if blocks else []
        # (the depth-first walk of _postorder, on the blocks' own edges: no
        # lists of numbers to build first)
        seen = [False] * len(blocks)
        seen[0] = True
        order: List[int] = []
        stack = [(blocks[0], iter(blocks[0].successors))]
        while stack:
            b, edges = stack[-1]
            for e in edges:
                t = e.target
                if not seen[t.index]:
                    seen[t.index] = True
                    stack.append((t, iter(t.successors)))
                    break
            else:
                stack.pop()
                order.append(b.index)
        order.reverse()
        return order

    # -- dominators -----------------------------------------------------------

    @_lazy
    def _dom(self) -> Tuple[List[int], List[int]]:
        """(idom, rpo number) per block index, -1 where not reached."""
        blocks = self.blocks
        n = len(blocks)
        rpo = self._rpo
        if n <= 1:
            return [0] * n, [0] * n
        preds: List[List[int]] = [[] for _ in range(n)]
        for v in rpo:
            for e in blocks[v].successors:
                preds[e.target.index].append(v)
        return _immediate_dominators(preds, rpo, n)

    @_lazy
    def idom(self) -> Dict[Block, Optional[Block]]:
        """Reached block -> its immediate dominator (None for the entry), over
        every edge: a handler's entry is dominated by what all its protected
        blocks have in common."""
        blocks = self.blocks
        idom = self._dom[0]
        return {blocks[i]: (blocks[d] if d != i else None)
                for i, d in enumerate(idom) if d >= 0}

    @_lazy
    def _pdom(self) -> Tuple[List[int], List[int]]:
        """(ipdom, number) per block index over the reversed normal edges, with
        the virtual exit as node ``len(blocks)``; -1 where not reached."""
        blocks = self.blocks
        n = len(blocks)
        if n == 1:
            return [1, 1], [1, 0]       # (straight-line code: the exit follows it)
        reached = [False] * n
        for i in self._rpo:
            reached[i] = True
        # successors in the reversed graph = predecessors; the exit's are the exits
        back: List[List[int]] = [[] for _ in range(n + 1)]
        fore: List[List[int]] = [[] for _ in range(n + 1)]
        for b in blocks:
            i = b.index
            if not reached[i]:
                continue
            normal = False
            for e in b.successors:
                if e.kind != EXCEPTION:
                    normal = True
                    back[e.target.index].append(i)
                    fore[i].append(e.target.index)
            if not normal:
                back[n].append(i)
                fore[i].append(n)
        order = _postorder(back, [n])
        if len(order) <= len(self._rpo):
            # Blocks that reach no exit (an endless loop): tied to the exit,
            # the last in layout first (a loop's latch, usually).
            seen = set(order)
            for i in range(n - 1, -1, -1):
                if reached[i] and i not in seen:
                    back[n].append(i)
                    fore[i].append(n)
                    seen |= _reached(back, [i], seen)
            order = _postorder(back, [n])
        order.reverse()
        return _immediate_dominators(fore, order, n + 1)

    @_lazy
    def ipdom(self) -> Dict[Block, Optional[Block]]:
        """Reached block -> its immediate post-dominator, exceptions aside
        (None: the code's exit, past every return and raise). A block no exit
        can be reached from (an endless loop) is tied to the exit itself, the
        last such block in layout first."""
        blocks = self.blocks
        n = len(blocks)
        ipdom = self._pdom[0]
        return {blocks[i]: (blocks[d] if d < n else None)
                for i, d in enumerate(ipdom[:n]) if d >= 0}

    def blocks_between(self, lo: int, hi: int) -> List[Block]:
        """The blocks that start at an op index in ``[lo, hi)``, in layout order."""
        starts = self._starts
        return self.blocks[bisect.bisect_left(starts, lo):bisect.bisect_left(starts, hi)]

    def region_ipdom(self, region: Iterable[Block], runs_on) -> Dict[Block, Optional[Block]]:
        """Immediate post-dominators inside a region of the graph, toward its
        way on: block -> its immediate post-dominator, None for the region's
        virtual exit.

        ``region`` is a set of blocks (a statement's code, say); every edge
        between two of them counts, exception edges included (a try inside
        the region). ``runs_on(block)`` says whether control leaves the region
        from ``block`` the way falling off the region's end does: those blocks
        have the virtual exit as a successor. Every other way out (a return, a
        raise, a ``break``, an edge to a handler outside) is dropped, so a block
        from which control never runs on (a branch that returns) has no entry.
        That is what makes the post-dominator of an if's test its join: the
        branches that leave do not rejoin, so they do not hold the join back.

        ``if c: (if d: return 1) else: pass``, then the join (op 8)::

        >>> join, orelse, inner = Op("LOAD_CONST"), Op("NOP"), Op("JUMP")
        >>> ops = [Op("LOAD_FAST", "c"), Op("POP_JUMP_IF_FALSE", target=orelse),
        ...        Op("LOAD_FAST", "d"), Op("POP_JUMP_IF_FALSE", target=inner),
        ...        Op("LOAD_CONST", 1), Op("RETURN_VALUE"), inner, orelse,
        ...        join, Op("RETURN_VALUE")]
        >>> inner.target = join
        >>> cfg = build_cfg(ops)
        >>> region = cfg.blocks_between(2, 8)
        >>> test_d, ret, then_end, else_ = region
        >>> ipdom = cfg.region_ipdom(region, lambda b: cfg.block_of(join) in b.normal_successors())
        >>> ipdom[test_d] is then_end, ipdom[then_end], ipdom[else_], ret in ipdom
        (True, None, None, False)
        """
        nodes = list(region)
        place = {b: i for i, b in enumerate(nodes)}
        m = len(nodes)
        fore: List[List[int]] = [[] for _ in range(m + 1)]
        back: List[List[int]] = [[] for _ in range(m + 1)]
        for i, b in enumerate(nodes):
            for e in b.successors:
                j = place.get(e.target)
                if j is not None:
                    fore[i].append(j)
                    back[j].append(i)
            if runs_on(b):
                fore[i].append(m)
                back[m].append(i)
        order = _postorder(back, [m])
        order.reverse()
        ipdom = _immediate_dominators(fore, order, m + 1)[0]
        return {nodes[i]: (nodes[d] if d < m else None)
                for i, d in enumerate(ipdom[:m]) if d >= 0}

    def dominators(self, block: Block) -> List[Block]:
        """``block``, its immediate dominator, its dominator... up to the entry."""
        return _chain(self.idom, block)

    def postdominators(self, block: Block) -> List[Block]:
        """``block``, its immediate post-dominator... up to the last before the exit."""
        return _chain(self.ipdom, block)

    def dominates(self, a: Block, b: Block) -> bool:
        """Every path from the entry to ``b`` passes ``a`` (a block dominates itself)."""
        return _above(self._dom, a.index, b.index)

    def postdominates(self, a: Block, b: Block) -> bool:
        """Every path from ``b`` to the exit passes ``a``, exceptions aside."""
        return _above(self._pdom, a.index, b.index)

    # -- loops ----------------------------------------------------------------

    @property
    def loops(self) -> List[Loop]:
        """The loop forest, outer loops before the loops inside them, then by
        where their headers are. A loop is a header and the blocks that reach an
        edge back to it without passing it; a cycle entered other than through
        one block (irreducible) is no loop here."""
        return self._forest[0]

    def loop_of(self, block: Block) -> Optional[Loop]:
        """The innermost loop whose body holds ``block``, or None."""
        return self._forest[1].get(block)

    @_lazy
    def _forest(self) -> Tuple[List[Loop], Dict[Block, Loop]]:
        """(the loops, block -> its innermost loop)."""
        blocks = self.blocks
        dom = self._dom
        num = dom[1]
        latches: Dict[Block, List[Block]] = {}
        for v in self._rpo:
            b = blocks[v]
            for e in b.successors:
                # (a back edge goes against the reverse postorder: the cheap test first)
                t = e.target.index
                if num[t] <= num[v] and _above(dom, t, v):
                    found = latches.setdefault(e.target, [])
                    if b not in found:
                        found.append(b)
        if not latches:
            return [], {}
        loops = []
        for header, tails in latches.items():
            body = {header}
            work = [t for t in tails if t is not header]
            body.update(work)
            while work:
                for e in work.pop().predecessors:
                    p = e.source
                    if p not in body and num[p.index] >= 0:     # (reached)
                        body.add(p)
                        work.append(p)
            members = sorted(body, key=_index)
            leaving = [e for b in members for e in b.successors if e.target not in body]
            loops.append(Loop(header, members, sorted(tails, key=_index),
                              [e for e in leaving if e.kind != EXCEPTION],
                              [e for e in leaving if e.kind == EXCEPTION]))
        # Two natural loops are nested or apart; the larger holds the smaller.
        innermost: Dict[Block, Loop] = {}
        for loop in sorted(loops, key=lambda lp: -len(lp.body)):
            parent = innermost.get(loop.header)
            if parent is not None:
                loop.parent = parent
                parent.children.append(loop)
            for b in loop.body:
                innermost[b] = loop
        for loop in loops:
            loop.children.sort(key=lambda lp: lp.header.index)
        return sorted(loops, key=lambda lp: (lp.depth, lp.header.index)), innermost

    # -- handlers -------------------------------------------------------------

    @property
    def handlers(self) -> List[HandlerRegion]:
        """Every handler, by where its entry is; each knows its place in the tree."""
        return self._handler_tree[0]

    def region_at(self, entry: Block) -> Optional[HandlerRegion]:
        """The handler whose entry is ``entry``, or None."""
        return self._handler_tree[1].get(entry)

    @_lazy
    def _handler_tree(self) -> Tuple[List[HandlerRegion], Dict[Block, HandlerRegion]]:
        """(the handlers, entry block -> its handler)."""
        regions: Dict[Op, HandlerRegion] = {}
        ops = self.ops
        for b in self.blocks:
            h = b.handler
            if h is None:
                continue
            region = regions.get(h.target)
            if region is None:
                entry = self.block_of(h.target)
                region = regions[h.target] = HandlerRegion(
                    self, entry, h, handler_kind(ops, h.target.index))
            region.protected.append(b)
        for region in regions.values():
            outer = region.entry.handler
            if outer is None:
                continue
            parent = regions.get(outer.target)
            # (a chain that comes back to itself is no tree: malformed code)
            p = parent
            while p is not None and p is not region:
                p = p.parent
            if parent is not None and p is None:
                region.parent = parent
                parent.children.append(region)
        found = sorted(regions.values(), key=lambda r: r.entry.index)
        return found, {r.entry: r for r in found}

    def handler_of(self, block: Block) -> Optional[HandlerRegion]:
        """The handler that covers ``block`` directly, or None."""
        h = block.handler
        return self.region_at(self.block_of(h.target)) if h is not None else None

    def handler_chain(self, block: Block) -> List[HandlerRegion]:
        """The handlers an exception raised in ``block`` meets, innermost first:
        the one covering it, the one covering that one's entry, and so on.

        >>> def f():
        ...     try:
        ...         g()
        ...     except E:
        ...         h()
        >>> cfg = build_cfg(f)
        >>> [region.kind for region in cfg.handler_chain(cfg.entry)]
        ['except', 'cleanup']
        """
        h = block.handler
        if h is None:
            return []
        chains = self._chains
        out = chains.get(h)
        if out is None:
            out = chains[h] = []
            region = self.handler_of(block)
            while region is not None:
                out.append(region)
                region = region.parent
        return list(out)

    @_lazy
    def _chains(self) -> Dict[Handler, List[HandlerRegion]]:
        return {}

    # -- duplicates -----------------------------------------------------------

    def copy_at(self, block: Block) -> Optional[Copy]:
        """The innermost copy of a finally body or with-statement exit that
        ``block`` is part of, or None.

        >>> def f(m):
        ...     with m:
        ...         g()
        >>> cfg = build_cfg(f)
        >>> [copy] = cfg.duplicates[0].copies
        >>> [b for b in cfg.blocks if cfg.copy_at(b)] == copy.blocks
        True
        """
        found = self._copies_of.get(block)
        return found[-1] if found else None

    def copies_at(self, block: Block) -> List[Copy]:
        """The copies ``block`` is part of, outermost first: a finally body's
        copy holds the copies of what the body holds (a with's exit, a nested
        finally body)."""
        return list(self._copies_of.get(block, ()))

    @_lazy
    def _copies_of(self) -> Dict[Block, List[Copy]]:
        out: Dict[Block, List[Copy]] = {}
        every = [c for d in self.duplicates for c in d.copies]
        for c in sorted(every, key=lambda c: -len(c.ops)):
            for b in c.blocks:
                out.setdefault(b, []).append(c)
        return out

    def unlink(self) -> None:
        """Break the graph's reference cycles (blocks and their edges, the loop
        and handler trees, the duplicates and the graph), so that reference
        counting frees it when its owner lets go of it, without the garbage
        collector: for an owner done with the graph, which answers nothing
        afterwards.

        >>> def f(xs):
        ...     for x in xs:
        ...         print(x)
        >>> cfg = build_cfg(f)
        >>> len(cfg.loops), cfg.unlink(), cfg.blocks
        (1, None, [])
        """
        for b in self.blocks:
            b.successors = b.predecessors = []
        worked_out = self.__dict__
        forest = worked_out.get("_forest")
        for loop in forest[0] if forest else ():
            loop.parent, loop.children = None, []
        tree = worked_out.get("_handler_tree")
        for region in tree[0] if tree else ():
            region.parent, region.children, region.cfg = None, [], None
        for d in self.duplicates:
            d.cfg = None
            for c in d.copies:
                c.duplicate = None
        worked_out.clear()
        self.ops, self.blocks, self.code, self._starts, self.duplicates = [], [], None, [], []

    def __repr__(self) -> str:
        return "<Cfg %s: %d blocks>" % (_code_name(self.code), len(self.blocks))


# -- building -------------------------------------------------------------------------

def build_cfg(obj) -> Cfg:
    """The control-flow graph of ``obj``: a normalised
    :class:`~depyf.bytecode.ir.Function`, a list of its ops, or anything
    :func:`~depyf.bytecode.normalize.normalize` takes (a code object, a
    function, a CodeRecord). The ops' ``index`` must be their place in the
    list, as normalize leaves it; a bare list's ops are numbered here.

    >>> cfg = build_cfg(lambda x: 1 if x else 2)
    >>> cfg.entry.last.name, sorted(e.kind for e in cfg.entry.successors)
    ('POP_JUMP_IF_FALSE', ['false', 'true'])
    """
    if isinstance(obj, Function):
        ops, code = obj.ops, obj.code
    elif isinstance(obj, list):
        ops, code = obj, None
    else:
        from ..bytecode.normalize import normalize
        func = normalize(obj)
        ops, code = func.ops, func.code
    n = len(ops)
    if not n:
        return Cfg(ops, [], code)
    if code is None or ops[0].index != 0 or ops[-1].index != n - 1:
        # (normalize numbers a Function's ops; a bare list gets its numbers here)
        for i, op in enumerate(ops):
            op.index = i
    leaders, straight, targets = _leaders(ops)
    if straight:
        # Straight-line code (about half of all code objects): one block, no edge.
        return Cfg(ops, [Block(0, ops, 0, n)], code, None, [0])
    duplicates = _find_duplicates(ops, targets) if targets else []
    for d in duplicates:
        # (a copy is whole blocks: where it starts and where it is left)
        if d.original_ops:
            leaders.add(d.original_ops[0].index)
        for c in d.copies:
            leaders.add(c.ops[0].index)
            leaders.update([x.index for x in _exits(ops, c.ops)])
    starts = sorted(leaders)
    ends = starts[1:]
    ends.append(n)
    blocks = [Block(k, ops[s:e], s, e) for k, (s, e) in enumerate(zip(starts, ends))]
    _connect(blocks, dict(zip(starts, blocks)))
    cfg = Cfg(ops, blocks, code, duplicates, starts)
    for d in duplicates:
        d.original = _blocks_of(cfg, d.original_ops)
        for c in d.copies:
            c.blocks = _blocks_of(cfg, c.ops)
            c.exits = _blocks_of(cfg, _exits(ops, c.ops))
    return cfg


def _leaders(ops: List[Op]) -> Tuple[Set[int], bool, Dict[Op, Handler]]:
    """(where blocks start, whether the code is one straight block, handler
    entry op -> a handler going there)."""
    n = len(ops)
    # (comprehensions over the ops rather than one loop with every test: most
    # ops pass each test at once, and a comprehension's step is the cheapest)
    jumps = [op for op in ops if op.target is not None]
    leaders = {op.index + 1 for op in jumps}
    leaders.update([op.target.index for op in jumps])
    stops = TERMINATORS
    leaders.update([op.index + 1 for op in ops if op.name in stops])
    leaders.add(0)
    handlers = [op.handler for op in ops]
    targets: Dict[Op, Handler] = {}
    if any(handlers):
        # A block holds ops of one handler: a change of handler starts one.
        for i in [i for i in range(1, n) if handlers[i] is not handlers[i - 1]]:
            h, before = handlers[i], handlers[i - 1]
            if h is None or before is None or not h.same_as(before):
                leaders.add(i)
        present = set(handlers)
        present.discard(None)
        for h in present:
            targets.setdefault(h.target, h)
        leaders.update([t.index for t in targets])
    leaders.discard(n)
    return leaders, len(leaders) == 1 and not jumps and not targets, targets


def _connect(blocks: List[Block], head: Dict[int, Block]) -> None:
    """The edges between ``blocks`` (``head``: first op index -> block)."""
    # (names the loop reads for every block, as locals)
    edge, branches, setups, stops = Edge, BRANCHES, SETUPS, TERMINATORS
    fall, jump, exception = FALL, JUMP, EXCEPTION
    for b, nxt in zip(blocks, blocks[1:] + [None]):
        last = b.ops[-1]
        succ = b.successors
        t = last.target
        name = last.name
        if t is not None:
            target = head[t.index]
            if name == "JUMP":
                e = edge(b, target, jump, last)
                succ.append(e)
                target.predecessors.append(e)
            else:
                kinds = branches.get(name)
                if kinds is not None:
                    e = edge(b, target, kinds[0], last)
                    succ.append(e)
                    target.predecessors.append(e)
                    if nxt is not None:
                        e = edge(b, nxt, kinds[1], last)
                        succ.append(e)
                        nxt.predecessors.append(e)
                else:
                    e = edge(b, target, exception if name in setups else jump, last)
                    succ.append(e)
                    target.predecessors.append(e)
                    if nxt is not None and name not in stops:
                        e = edge(b, nxt, fall, last)
                        succ.append(e)
                        nxt.predecessors.append(e)
        elif nxt is not None and name not in stops:
            e = edge(b, nxt, fall, last)
            succ.append(e)
            nxt.predecessors.append(e)
        h = b.handler
        if h is not None:
            target = head[h.target.index]
            e = edge(b, target, exception, None, h)
            succ.append(e)
            target.predecessors.append(e)


def reachable_ops(ops: Sequence[Op], breaks: Optional[Sequence[int]] = None,
                  changes: Optional[Sequence[int]] = None) -> Set[int]:
    """The indices of the ops control reaches from the first, through handlers
    too: ``cfg.op_indices(cfg.reachable)`` of ``build_cfg(ops)`` without
    building the graph (the structurer needs the graph itself for few code
    objects; its blocks and edges are cycles, which only the garbage collector
    frees). ``breaks``: the indices of the ops that jump or do not fall
    through; ``changes``: the indices of the ops whose handler is not the one
    before's (the first op's, if it has one); each ascending, where the caller
    has them, else found here. A left-over block set-up's target is reached,
    as its exception edge is.

    >>> sorted(reachable_ops(build_cfg(lambda x: 1 if x else 2).ops))
    [0, 1, 2, 3, 4, 5]
    """
    n = len(ops)
    if breaks is None:
        breaks = [op.index for op in ops if op.target is not None or op.name in TERMINATORS]
    if changes is None:
        changes, before = [], None
        for op in ops:
            if op.handler is not before:
                before = op.handler
                changes.append(op.index)
    if not changes and len(breaks) <= 1 and (not breaks or ops[breaks[0]].target is None):
        # straight-line code: everything up to its first way out (about half of all code)
        return set(range(breaks[0] + 1 if breaks else n))
    # A straight stretch of ops at a time: most ops neither jump nor end the
    # flow, and a stretch goes into the set in one piece, with the handlers
    # of the runs of ops it overlaps.
    seen: Set[int] = set()
    work = [0] if n else []
    stops = TERMINATORS
    last, runs = len(breaks), len(changes)
    while work:
        i = work.pop()
        k = bisect.bisect_left(breaks, i)
        while i < n and i not in seen:
            end = breaks[k] if k < last else n - 1
            seen.update(range(i, end + 1))
            if runs:
                h = ops[i].handler
                if h is not None:
                    work.append(h.target.index)
                j = bisect.bisect_right(changes, i)
                while j < runs and changes[j] <= end:
                    h = ops[changes[j]].handler
                    if h is not None:
                        work.append(h.target.index)
                    j += 1
            op = ops[end]
            if op.target is not None:
                work.append(op.target.index)
            if op.name in stops:
                break
            i = end + 1
            k += 1      # (the next stretch ends at the next break)
    return seen


def _blocks_of(cfg: Cfg, ops: Iterable[Op]) -> List[Block]:
    return sorted({cfg.block_of(op) for op in ops}, key=_index)


def _index(block: Block) -> int:
    return block.index


# -- graph algorithms (on block numbers) -------------------------------------------------

def _postorder(succ: Sequence[Sequence[int]], roots: Sequence[int]) -> List[int]:
    """Nodes reached from ``roots`` in depth-first postorder (iteratively: no
    recursion limit on a long function)."""
    seen = set(roots)
    order: List[int] = []
    for root in roots:
        stack = [(root, iter(succ[root]))]
        while stack:
            node, it = stack[-1]
            for s in it:
                if s not in seen:
                    seen.add(s)
                    stack.append((s, iter(succ[s])))
                    break
            else:
                stack.pop()
                order.append(node)
    return order


def _reached(succ: Sequence[Sequence[int]], roots: Sequence[int], known=()) -> Set[int]:
    """Nodes reached from ``roots`` that are not in ``known`` (the roots included)."""
    seen = set(roots)
    work = list(roots)
    while work:
        for s in succ[work.pop()]:
            if s not in seen and s not in known:
                seen.add(s)
                work.append(s)
    return seen


def _immediate_dominators(preds: Sequence[Sequence[int]], rpo: Sequence[int],
                          n: int) -> Tuple[List[int], List[int]]:
    """Immediate dominators by Cooper, Harvey and Kennedy's iteration ("A Simple,
    Fast Dominance Algorithm"), from each node's predecessors and the nodes in
    reverse postorder (the root first): (node -> its idom, the root -> itself;
    node -> its place in ``rpo``), -1 for nodes not reached."""
    num = [-1] * n
    for k, v in enumerate(rpo):
        num[v] = k
    idom = [-1] * n
    if not rpo:
        return idom, num
    root = rpo[0]
    idom[root] = root
    rest = rpo[1:]
    changed = True
    while changed:
        changed = False
        for v in rest:
            new = -1
            for p in preds[v]:
                if idom[p] < 0:
                    continue
                if new < 0:
                    new = p
                    continue
                a, b = p, new
                while a != b:
                    while num[a] > num[b]:
                        a = idom[a]
                    while num[b] > num[a]:
                        b = idom[b]
                new = a
            if idom[v] != new:
                idom[v] = new
                changed = True
    return idom, num


def _above(dom: Tuple[List[int], List[int]], a: int, b: int) -> bool:
    """Whether ``a`` is ``b`` or above it in the tree ``dom`` (see _immediate_dominators)."""
    idom, num = dom
    if num[a] < 0 or num[b] < 0:
        return False
    na = num[a]
    while num[b] > na:
        b = idom[b]
    return b == a


def _chain(tree: Dict[Block, Optional[Block]], block: Block) -> List[Block]:
    out = []
    b: Optional[Block] = block
    while b is not None and b in tree:
        out.append(b)
        b = tree[b]
    return out


# -- handlers' kinds -------------------------------------------------------------------

def handler_kind(ops: Sequence[Op], i: int) -> str:
    """What the handler whose code starts at ``ops[i]`` is (see :class:`HandlerRegion`).

    >>> handler_kind([Op("COPY", 3), Op("POP_EXCEPT"), Op("RERAISE", 1)], 0)
    'cleanup'
    """
    n = len(ops)
    first = ops[i]
    name = first.name
    if name == "COPY" and first.arg == 3 and i + 2 < n and ops[i + 1].name == "POP_EXCEPT" \
            and ops[i + 2].name == "RERAISE":
        return "cleanup"
    if name == "LOAD_CONST" and first.arg is None and i + 3 < n \
            and ops[i + 1].name.startswith("STORE") and ops[i + 2].name.startswith("DELETE") \
            and ops[i + 3].name == "RERAISE":
        return "unbind"
    if name != "PUSH_EXC_INFO":
        return "other"
    if i + 1 < n and ops[i + 1].name == "POP_TOP":
        return "except"         # a bare `except:`
    j = i + 1
    while j < n:
        op = ops[j]
        kind = _CLAUSE_TESTS.get(op.name)
        if kind is not None:
            return kind
        if op.target is not None or op.name in TERMINATORS:
            break
        j += 1
    return "finally"


#: the handlers of try and with statements: the compiler gives each a clean-up
_TRY_KINDS = frozenset({"except", "except*", "finally", "with"})

_CLAUSE_TESTS = {"CHECK_EXC_MATCH": "except", "CHECK_EG_MATCH": "except*",
                 "WITH_EXCEPT_START": "with"}


# -- duplicates --------------------------------------------------------------------------

def _find_duplicates(ops: List[Op], targets: Dict[Op, Handler]) -> List[Duplicate]:
    """The finally bodies and with exits copied onto the normal ways out of the
    regions that ``targets`` (handler entry op -> handler) start."""
    kinds = {}
    for t in targets:
        if t.name == "PUSH_EXC_INFO":
            kind = handler_kind(ops, t.index)
            if kind == "finally" or kind == "with":
                kinds[t] = kind
    if not kinds:
        return []       # (most handlers: except clauses and their clean-ups)
    chains: Dict[Handler, frozenset] = {}
    ways = _ways_out(ops, frozenset(kinds), chains)
    found = []
    for t in sorted(kinds, key=_op_index):
        if kinds[t] == "finally":
            d = _finally_copies(ops, t, ways[t], chains)
        else:
            d = _with_exit_copies(ops, t, ways[t])
        if d is not None and d.copies:
            found.append(d)
    return found


def _chain_of(ops: List[Op], h: Optional[Handler], chains: Dict[Handler, frozenset]) -> frozenset:
    """The handler entry ops an exception under ``h`` meets: h's, then those of
    the handlers covering each entry in turn."""
    if h is None:
        return frozenset()
    known = chains.get(h)
    if known is not None:
        return known
    seen = []
    x: Optional[Handler] = h
    while x is not None and x.target not in seen:
        seen.append(x.target)
        x = ops[x.target.index].handler
    out = chains[h] = frozenset(seen)
    return out


def _ways_out(ops: List[Op], regions: frozenset, chains) -> Dict[Op, List[Op]]:
    """For each region (by its handler's entry op): the ops outside it that
    control goes to from inside it, exceptions aside, in layout order."""
    n = len(ops)
    out: Dict[Op, Dict[int, Op]] = {t: {} for t in regions}
    last = None
    mine = frozenset()
    for op in ops:
        h = op.handler
        if h is None:
            continue
        if h is not last:       # (a run of ops shares its handler)
            last = h
            mine = _chain_of(ops, h, chains) & regions
        if not mine:
            continue
        if op.target is not None and op.name not in SETUPS:
            x = op.target
            for t in mine.difference(_chain_of(ops, x.handler, chains)):
                out[t][x.index] = x
        if op.name not in TERMINATORS and op.index + 1 < n:
            x = ops[op.index + 1]
            if x.handler is not h:
                for t in mine.difference(_chain_of(ops, x.handler, chains)):
                    out[t][x.index] = x
    return {t: [found[k] for k in sorted(found)] for t, found in out.items()}


def _finally_copies(ops: List[Op], t: Op, ways: List[Op], chains) -> Optional[Duplicate]:
    n = len(ops)
    if t.index + 1 >= n:
        return None
    cleanup = t.handler
    inner = cleanup.target if cleanup is not None else None
    start = ops[t.index + 1]
    if _is_body_end(start, inner):
        return None         # an empty finally body (`finally: pass`) leaves no copy to find
    d = Duplicate(None, "finally", t, [])
    original: Set[Op] = set()
    taken: Set[Op] = set()
    for way in ways:
        got = _match_copy(ops, start, way, t, inner, chains)
        if got is None:
            continue
        mapping, copied, body = got
        if not taken.isdisjoint(copied):
            continue        # (inside a copy found already: no copy of its own)
        taken.update(copied)
        d.copies.append(Copy(d, sorted(copied, key=_op_index),
                             {c: o for o, c in mapping.items()}))
        original.update(body)
    d.original_ops = sorted(original, key=_op_index)
    return d


def _op_index(op: Op) -> int:
    return op.index


def _is_body_end(op: Op, inner: Optional[Op]) -> bool:
    """The ``RERAISE 0`` that ends a finally body (under the handler's clean-up)."""
    h = op.handler
    return op.name == "RERAISE" and op.arg == 0 and (
        (h is None and inner is None) or (h is not None and h.target is inner))


def _match_copy(ops: List[Op], start: Op, at: Op, t: Op, inner: Optional[Op], chains):
    """Walk the finally body from ``start`` (the handler's copy) and the code from
    ``at`` side by side; when the two run alike up to each of the body's ends,
    (original op -> copy op, the copy's ops, the original's ops); else None.

    The copies differ in the ways out: where the handler's copy re-raises, the
    normal one goes on; before a ``return``/``break`` in the body the handler's
    copy drops the caught exception (``POP_TOP...; POP_EXCEPT``), which the
    normal one never had; a jump out of the body may go anywhere in each; and
    either may jump where the other runs on (its layout put the next op elsewhere)."""
    n = len(ops)
    mapping: Dict[Op, Op] = {}
    copied: Set[Op] = set()         # the copy's ops (its own extra jumps too)
    original: Set[Op] = set()
    pairs = [(start, at)]
    budget = 4 * n + 16             # (each step takes an op; a jump cycle ends here)
    while pairs:
        o, c = pairs.pop()
        while True:
            budget -= 1
            if budget < 0:
                return None
            if _is_body_end(o, inner):
                original.add(o)
                break
            seen = mapping.get(o)
            if seen is not None:
                if seen is not c:
                    return None
                break
            chain = _chain_of(ops, c.handler, chains)
            if c in copied or t in chain or (inner is not None and inner in chain):
                return None         # (a copy lies outside the statement and its handler)
            if not _same(o, c):
                if o.name == "JUMP" and _in_body(ops, o.target, inner, chains):
                    original.add(o)
                    o = o.target
                elif c.name == "JUMP":
                    copied.add(c)
                    c = c.target
                else:
                    skip = _exception_drop(ops, o)
                    if skip is None:
                        return None
                    original.update(ops[o.index:skip.index])
                    o = skip
                continue
            mapping[o] = c
            copied.add(c)
            original.add(o)
            if o.target is not None:
                if c.target is None:
                    return None
                if _in_body(ops, o.target, inner, chains):
                    pairs.append((o.target, c.target))
            h = o.handler
            if h is not None and h.target is not inner and _in_body(ops, h.target, inner, chains):
                # a try statement inside the body: its handlers are copied too
                hc = c.handler
                if hc is None or hc.lasti != h.lasti:
                    return None
                pairs.append((h.target, hc.target))
            if o.name in TERMINATORS or o.index + 1 >= n or c.index + 1 >= n:
                break
            o, c = ops[o.index + 1], ops[c.index + 1]
    if not mapping:
        return None
    return mapping, copied, original


def _in_body(ops: List[Op], op: Op, inner: Optional[Op], chains) -> bool:
    """Whether ``op`` is the handler's own code (covered by its clean-up)."""
    return inner is not None and inner in _chain_of(ops, op.handler, chains)


def _exception_drop(ops: List[Op], o: Op) -> Optional[Op]:
    """After ``POP_TOP...; [SWAP 2;] POP_EXCEPT`` at ``o`` (the handler's copy
    leaving with the exception dropped): the op after it; else None."""
    i = o.index
    n = len(ops)
    while i < n and (ops[i].name == "POP_TOP" or (ops[i].name == "SWAP" and ops[i].arg == 2)):
        i += 1
    if i < n and ops[i].name == "POP_EXCEPT" and i + 1 < n:
        return ops[i + 1]
    return None


#: ops whose argument two copies need not share: a return's mark (explicit,
#: copied), a with statement's left-over set-up offset (3.8-3.10)
_ARG_FREE = frozenset({"RETURN_VALUE", "BEFORE_WITH", "BEFORE_ASYNC_WITH"})


def _same(a: Op, b: Op) -> bool:
    """The same op in two copies (lines and jump targets aside)."""
    if a.name != b.name:
        return False
    if a.target is not None or a.name in _ARG_FREE:
        return (b.target is None) == (a.target is None)
    x, y = a.arg, b.arg
    if x is y:
        return True
    if type(x) is not type(y):
        return False
    if isinstance(x, CodeRecord):
        # a def compiled into each copy: its own code object each time
        return (x.qualname, x.name, x.firstlineno) == (y.qualname, y.name, y.firstlineno)
    if isinstance(x, types.CodeType):
        return (x.co_name, x.co_firstlineno) == (y.co_name, y.co_firstlineno)
    try:
        return bool(x == y)
    except Exception:       # (a constant whose == is odd: not the same)
        return False


#: ``__exit__(None, None, None)``: the ops after an optional ``SWAP 2`` (a
#: return value kept above the exit function)
_EXIT_CALL = (("LOAD_CONST", None), ("LOAD_CONST", None), ("LOAD_CONST", None),
              ("CALL", (2, (), 2)))
#: ... then ``POP_TOP``, or an ``async with``'s await of the result first
_AWAIT = ("GET_AWAITABLE", "LOAD_CONST", "YIELD_FROM")


def _with_exit_copies(ops: List[Op], t: Op, ways: List[Op]) -> Optional[Duplicate]:
    d = Duplicate(None, "with-exit", t, [])
    for way in ways:
        end = exit_call_end(ops, way.index)
        if end is not None:
            d.copies.append(Copy(d, ops[way.index:end], {}))
    return d


def exit_call_end(ops: Sequence[Op], i: int) -> Optional[int]:
    """Where a with statement's normal ``__exit__`` call starting at ``ops[i]``
    ends (``[SWAP 2;] LOAD_CONST None x3; CALL 2; [await;] POP_TOP``), or None.

    >>> exit_call_end([Op("LOAD_CONST")] * 3 + [Op("CALL", (2, (), 2)), Op("POP_TOP")], 0)
    5
    """
    n = len(ops)
    if i < n and ops[i].name == "SWAP" and ops[i].arg == 2:
        i += 1
    if i + len(_EXIT_CALL) >= n:
        return None
    for (name, arg), op in zip(_EXIT_CALL, ops[i:i + 4]):
        if op.name != name or op.arg != arg or op.target is not None:
            return None
    i += 4
    if [op.name for op in ops[i:i + 3]] == list(_AWAIT):
        i += 3
    if i < n and ops[i].name == "POP_TOP":
        return i + 1
    return None


def _exits(ops: List[Op], copy: List[Op]) -> List[Op]:
    """The ops control goes to from ``copy`` that are not part of it."""
    mine = set(copy)
    n = len(ops)
    out = {}
    for op in copy:
        if op.target is not None and op.target not in mine:
            out[op.target.index] = op.target
        if op.name not in TERMINATORS and op.index + 1 < n and ops[op.index + 1] not in mine:
            out[op.index + 1] = ops[op.index + 1]
    return [out[k] for k in sorted(out)]


# -- printing ----------------------------------------------------------------------------

def format_cfg(cfg: Cfg, title: Optional[str] = None) -> str:
    """The graph as text: blocks with their ops and edges, dominators, loops,
    handlers and duplicates.

    >>> print(format_cfg(build_cfg(lambda: 1), "f").splitlines()[0])
    == f: 1 block
    """
    reach = cfg.reachable
    idom, ipdom = cfg.idom, cfg.ipdom
    name = title if title is not None else _code_name(cfg.code)
    nb = len(cfg.blocks)
    head = "== %s: %d block%s" % (name, nb, "" if nb == 1 else "s")
    extras = [(len(cfg.loops), "loop"), (len(cfg.handlers), "handler"),
              (len(cfg.duplicates), "duplicate")]
    head += "".join(", %d %s%s" % (k, word, "" if k == 1 else "s") for k, word in extras if k)
    lines = [head]
    for b in cfg.blocks:
        notes = []
        if b not in reach:
            notes.append("unreachable")
        elif b not in cfg.reachable_normal:
            notes.append("reached by exceptions only")
        for copy in cfg.copies_at(b):
            orig = copy.original_block(b)
            notes.append("copy of %s" % copy.duplicate.kind
                         + (" B%d" % orig.index if orig is not None else ""))
        lines.append("B%d  ops %d-%d%s" % (b.index, b.start, b.end - 1,
                                          "  (%s)" % "; ".join(notes) if notes else ""))
        for op in b.ops:
            lines.append("    %s" % _format_op(cfg, op))
        out = ", ".join(_format_edge(e) for e in b.successors) or "(exit)"
        lines.append("    -> %s" % out)
        if b in reach:
            lines.append("    idom %s  ipdom %s" % (_ref(idom.get(b)) if b is not cfg.entry else "-",
                                                  _ref(ipdom.get(b)) if ipdom.get(b) else "exit"))
    if cfg.loops:
        lines.append("loops:")
        for loop in cfg.loops:
            if loop.parent is None:
                _format_loop(loop, lines, 1)
    if cfg.handlers:
        lines.append("handlers:")
        for region in cfg.handlers:
            if region.parent is None:
                _format_region(region, lines, 1)
    if cfg.duplicates:
        lines.append("duplicates:")
        for d in cfg.duplicates:
            what = "finally body %s" % _refs(d.original) if d.kind == "finally" \
                else "with exit"
            lines.append("  %s (handler at %s):" % (what, _ref(d.region.entry)))
            for c in d.copies:
                lines.append("    copy %s -> %s" % (_refs(c.blocks), _refs(c.exits) or "-"))
    return "\n".join(lines)


def _format_loop(loop: Loop, lines: List[str], level: int) -> None:
    pad = "  " * level
    text = "%sloop at %s: body %s; latches %s; exits %s" % (
        pad, _ref(loop.header), _refs(loop.body), _refs(loop.latches),
        ", ".join("%s->%s %s" % (_ref(e.source), _ref(e.target), e.kind) for e in loop.exits)
        or "none")
    raised = sorted({e.target for e in loop.exception_exits}, key=_index)
    if raised:
        text += "; raises to %s" % _refs(raised)
    lines.append(text)
    for child in loop.children:
        _format_loop(child, lines, level + 1)


def _format_region(region: HandlerRegion, lines: List[str], level: int) -> None:
    pad = "  " * level
    text = "%s%s %s (depth %d%s): protects %s" % (
        pad, _ref(region.entry), region.kind, region.depth, ", lasti" if region.lasti else "",
        _refs(region.protected))
    if region.cleanup is not None:
        text += "; clean-up %s" % _ref(region.cleanup.entry)
    if region.kind != "cleanup":
        text += "; code %s" % _refs(region.code)
    lines.append(text)
    for child in region.children:
        _format_region(child, lines, level + 1)


def _format_op(cfg: Cfg, op: Op) -> str:
    line = "" if op.line is None else str(op.line)
    if op.target is not None:
        arg = "-> %s" % _ref(cfg.block_of(op.target))
    elif op.arg is None and op.name != "LOAD_CONST":
        arg = ""
    else:
        arg = repr(op.arg)
        if len(arg) > 40:
            arg = arg[:37] + "..."
    return ("%4d %5s %-22s %s" % (op.index, line, op.name, arg)).rstrip()


def _format_edge(e: Edge) -> str:
    text = "%s %s" % (_ref(e.target), e.kind)
    if e.kind == EXCEPTION and e.handler is not None:
        text += " (depth %d%s)" % (e.depth, ", lasti" if e.lasti else "")
    return text


def _ref(b: Optional[Block]) -> str:
    return "B%d" % b.index if b is not None else "-"


def _refs(blocks: Iterable[Block]) -> str:
    return " ".join(_ref(b) for b in blocks)


def _code_name(code) -> str:
    if code is None:
        return "<ops>"
    name = getattr(code, "qualname", "") or getattr(code, "name", "") or "?"
    return "%s (%s, line %s)" % (name, getattr(code, "filename", "?"),
                                 getattr(code, "firstlineno", "?"))


# -- the command line --------------------------------------------------------------------

def main(argv: Optional[List[str]] = None) -> int:
    """``python -m depyf.decompiler.cfg FILE.pyc[:QUALNAME]``: print the graphs of
    the file's code objects (those named QUALNAME only). A ``.py`` file is
    compiled by the running Python first. Exit status 2 for a file that cannot
    be read or a name that is not there.

    >>> main(["__pycache__/mod.cpython-38.pyc:Class.method"])   # doctest: +SKIP
    == Class.method (line 12, Python 3.8): 4 blocks, 1 loop
    ...
    """
    import argparse
    parser = argparse.ArgumentParser(
        prog="python -m depyf.decompiler.cfg",
        description="Print the control-flow graph (blocks, edges, dominators, loops, "
                    "handlers, duplicates) of the code objects in a .pyc or .py file.")
    parser.add_argument("target", help="FILE.pyc or FILE.py, optionally :QUALNAME "
                                       "(e.g. mod.pyc:Class.method)")
    args = parser.parse_args(argv)
    from ..bytecode.errors import BytecodeError
    path, qualname = _split_target(args.target)
    try:
        root = _load(path)
    except (OSError, SyntaxError, ValueError, BytecodeError) as e:
        # (ValueError: a .py that is not text; BytecodeError: a damaged or
        # unsupported .pyc)
        print("error: cannot read %s: %s" % (path, e), file=sys.stderr)
        return 2
    named = list(_named_codes(root))
    if qualname is not None:
        chosen = [(name, rec) for name, rec in named if qualname in (name, rec.qualname)]
        if not chosen:
            print("error: no code object named %r in %s; there are: %s" % (
                qualname, path, ", ".join(name for name, _ in named)), file=sys.stderr)
            return 2
    else:
        chosen = named
    texts = []
    for name, rec in chosen:
        texts.append(format_cfg(build_cfg(rec), "%s (line %d, Python %d.%d)"
                                % ((name, rec.firstlineno) + tuple(rec.version))))
    print("\n\n".join(texts))
    return 0


def _split_target(text: str) -> Tuple[str, Optional[str]]:
    import os
    if os.path.exists(text) or ":" not in text:
        return text, None
    path, _, qualname = text.rpartition(":")
    return path, qualname or None


def _load(path: str):
    """The module's CodeRecord from a .pyc, or from a .py the running Python compiles."""
    from ..bytecode import from_live, read_pyc
    if path.endswith(".py"):
        with open(path, encoding="utf-8") as f:
            source = f.read()
        return from_live(compile(source, path, "exec"))
    return read_pyc(path).code


def _named_codes(root) -> Iterator[Tuple[str, object]]:
    """(dotted name, record) for the module and every nested code object:
    ``<module>``, then ``f``, ``C.m``, ``f.<lambda>`` (the names of the code
    objects nested in one another; 3.11+ qualnames match too)."""
    stack = [(root, None)]
    while stack:
        rec, prefix = stack.pop()
        name = rec.name if prefix is None or prefix == "" else "%s.%s" % (prefix, rec.name)
        yield name, rec
        inner = "" if prefix is None else name
        stack.extend((c, inner) for c in reversed(list(rec.iter_code_consts())))


if __name__ == "__main__":
    raise SystemExit(main())
