"""The context a construct gives the code walked inside it: one explicit stack
of typed frames.

A construct that walks a sub-range pushes a frame saying what that range is
inside of (a loop, a handler's region or code, an except clause, a try body
whose ways out run finally copies, a with body, an if branch whose end
rejoins elsewhere) and pops it when the walk returns; a question about the
context ("is this jump a ``break``?", "does this op start a copy of the
finally body?") reads the stack, innermost frame first. Nothing else about
the context is kept anywhere, so a construct's state cannot leak into a
sibling, and each construct can be walked on its own with the frames it
expects pushed by hand::

    >>> frames = FrameStack()
    >>> with frames.push(LoopFrame(header=2, exit=9)):
    ...     frames.loop.exit, frames.loop_jump(9), frames.loop_jump(4)
    (9, True, False)
    >>> frames.loop is None
    True
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple


@dataclass(eq=False)
class LoopFrame:
    """A loop whose body is being walked."""
    header: int          # where `continue` goes
    exit: int            # where `break` goes
    iterator: bool = False                 # a for loop keeps its iterator on the stack
    break_target: Optional[int] = None     # past the else clause, when there is one
    body_end: Optional[int] = None         # where the body's ops end (exclusive)
    moved_exit: Optional[tuple] = None     # (lo, hi) of the code after the loop, found in a break
    cold_tail: Optional[int] = None        # body code a with statement's swallowed exception
                                           # reaches, laid out past the loop's exit
    graph: Optional[object] = None         # the natural loop of the control-flow graph
                                           # (cfg.Loop) headed here, where there is one

    stops_plain_runs = False

    @property
    def continues(self):
        """Where a jump starts the next iteration."""
        return {self.header}

    def leaves_to(self, target: int) -> bool:
        """A jump to ``target`` starts the next iteration or leaves the loop."""
        return target in self.continues or target in (self.exit, self.break_target)


@dataclass(eq=False)
class GuardFrame:
    """A range covered by ``handlers`` (a try body, or a handler's code under its
    clean-up): their ops start no new try. ``code``: the range is handler code
    (an except clause, a finally body), walked although normal flow skips it."""
    handlers: Tuple = ()
    code: bool = False

    @property
    def stops_plain_runs(self) -> bool:
        return self.code


@dataclass(eq=False)
class ClauseFrame:
    """An except clause's body: ``exit`` is where the jump that leaves the clause
    goes (None: it has none), ``loop_depth`` how many loops were open where the
    clause starts, ``end`` where its code ends."""
    exit: Optional[int]
    loop_depth: int
    end: int

    stops_plain_runs = False


@dataclass(eq=False)
class StarClauseFrame:
    """An ``except*`` clause's body: the ``name`` it binds (its unbinding ends a
    branch), or None."""
    name: Optional[str]

    stops_plain_runs = True


@dataclass(eq=False)
class CopyFrame:
    """A body whose every way out runs a copy of ``copy`` (op names): the finally
    body of a try (:class:`FinallyFrame`) or a with statement's exit call
    (:class:`WithFrame`)."""
    copy: List

    stops_plain_runs = True


@dataclass(eq=False)
class FinallyFrame(CopyFrame):
    """A try body with a finally clause."""


@dataclass(eq=False)
class WithFrame(CopyFrame):
    """A with statement's body."""


@dataclass(eq=False)
class FinallyBodyFrame:
    """A finally body: a RERAISE under ``cleanup`` ends it."""
    cleanup: object

    stops_plain_runs = False


@dataclass(eq=False)
class BranchFrame:
    """A branch ending at ``end`` whose way on is ``join`` (an if's branch over
    its else, a match case), not the code laid out after it."""
    end: int
    join: int

    stops_plain_runs = False


#: the kinds a view is kept for (a subclass counts as its base)
_VIEWS = (LoopFrame, GuardFrame, ClauseFrame, StarClauseFrame, CopyFrame, FinallyBodyFrame,
          BranchFrame)
_VIEW_OF = {kind: kind for kind in _VIEWS}
_VIEW_OF.update({FinallyFrame: CopyFrame, WithFrame: CopyFrame})


class _Pushed:
    """``with stack.push(frame):`` (a class rather than a generator: pushed for
    every loop, branch and guarded range)."""
    __slots__ = ("stack", "frame")

    def __init__(self, stack: "FrameStack", frame):
        self.stack = stack
        self.frame = frame

    def __enter__(self):
        self.stack._add(self.frame)
        return self.frame

    def __exit__(self, *exc):
        self.stack._remove(self.frame)
        return False


class FrameStack:
    """The frames of the constructs being walked, outermost first.

    ``frames`` is the stack itself; per kind a view of it is kept (the loops,
    innermost last, are asked about at most jumps). ``resume`` is not context
    but what a construct learnt of the layout for the rest of the walk: where
    the walk goes on from the start of handler code laid out inside handler
    code being walked."""

    def __init__(self):
        self.frames: List[object] = []
        self._views: Dict[type, List] = {kind: [] for kind in _VIEWS}
        self.loops: List[LoopFrame] = self._views[LoopFrame]
        self._guards: List[GuardFrame] = self._views[GuardFrame]
        self._copies: List[CopyFrame] = self._views[CopyFrame]
        #: frames that rule out handing runs of plain ops to the stack machine
        self.loud = 0
        #: guard frames over handler code
        self.handler_code = 0
        self.resume: Dict[int, int] = {}

    def push(self, frame) -> _Pushed:
        return _Pushed(self, frame)

    def _add(self, frame) -> None:
        self.frames.append(frame)
        self._views[_VIEW_OF[type(frame)]].append(frame)
        self.loud += frame.stops_plain_runs
        if type(frame) is GuardFrame:
            self.handler_code += frame.code

    def _remove(self, frame) -> None:
        popped = self.frames.pop()
        assert popped is frame, "frames popped out of order"
        self._views[_VIEW_OF[type(frame)]].pop()
        self.loud -= frame.stops_plain_runs
        if type(frame) is GuardFrame:
            self.handler_code -= frame.code

    def innermost(self, kind):
        """The innermost frame of ``kind`` (a view's kind), or None."""
        view = self._views[kind]
        return view[-1] if view else None

    # -- questions ----------------------------------------------------------------------

    @property
    def loop(self) -> Optional[LoopFrame]:
        return self.loops[-1] if self.loops else None

    def loop_jump(self, target: int) -> bool:
        """A jump to ``target`` continues or leaves one of the loops being walked."""
        return any(loop.leaves_to(target) for loop in self.loops)

    def current_header(self, i: int) -> bool:
        """``i`` starts the next iteration of a loop being walked."""
        return any(i in loop.continues for loop in self.loops)

    @property
    def in_handler_code(self) -> bool:
        return self.handler_code > 0

    def is_active(self, h) -> bool:
        """``h`` (or a handler with its target and depth) covers a range being walked."""
        for g in self._guards:      # (loops, not any(): asked for every guarded op)
            for a in g.handlers:
                if a.same_place(h):
                    return True
        return False

    @property
    def copies(self) -> List[CopyFrame]:
        """The finally and with bodies being walked, outermost first."""
        return self._copies

    @property
    def innermost_copy(self):
        """The op names the innermost of them copies onto its ways out, or None."""
        return self._copies[-1].copy if self._copies else None

    @property
    def finally_cleanup(self):
        """The clean-up handler of the innermost finally body being walked, or None."""
        frame = self.innermost(FinallyBodyFrame)
        return frame.cleanup if frame is not None else None

    @property
    def clause(self) -> Optional[ClauseFrame]:
        return self.innermost(ClauseFrame)

    @property
    def star_clause(self) -> Optional[StarClauseFrame]:
        return self.innermost(StarClauseFrame)

    def end_leads_to(self, end: int) -> Optional[int]:
        """Where falling off the end (at ``end``) of a construct being walked goes
        (the innermost one ending there): a loop body's end to the loop's
        header, an if branch's to its join, an except clause's to its way out;
        None where none ends there.

        >>> frames = FrameStack()
        >>> with frames.push(LoopFrame(header=2, exit=9, body_end=8)):
        ...     with frames.push(BranchFrame(end=6, join=8)):
        ...         frames.end_leads_to(6), frames.end_leads_to(8), frames.end_leads_to(7)
        (8, 2, None)
        """
        for frame in reversed(self.frames):
            kind = type(frame)
            if kind is LoopFrame and frame.body_end == end:
                return frame.header
            if kind is BranchFrame and frame.end == end:
                return frame.join
            if kind is ClauseFrame and frame.end == end and frame.exit is not None:
                return frame.exit
        return None

    def join_at(self, end: int) -> Optional[int]:
        """Where a branch ending at ``end`` goes on (the innermost one), or None."""
        for frame in reversed(self._views[BranchFrame]):
            if frame.end == end:
                return frame.join
        return None

    def final_join(self, end: int, stop: Optional[int] = None) -> int:
        """Where a branch ending at ``end`` leads in the end: its join, that
        join's own join, and so on (up to ``stop``, if it comes); ``end`` itself
        where no branch ends there. A branch may end where it joins (a match
        statement's last case runs on to the statement's end): the chase stops
        where it has been.

        >>> frames = FrameStack()
        >>> with frames.push(BranchFrame(end=6, join=8)), frames.push(BranchFrame(end=8, join=8)):
        ...     frames.final_join(6), frames.final_join(7)
        (8, 7)
        """
        seen = {end}
        while end != stop and (on := self.join_at(end)) is not None and on not in seen:
            seen.add(on)
            end = on
        return end

    @property
    def plain_runs(self) -> bool:
        """No frame asks for each op to be looked at."""
        return not self.loud and not self.resume


__all__ = ["BranchFrame", "ClauseFrame", "CopyFrame", "FinallyBodyFrame", "FinallyFrame",
           "FrameStack", "GuardFrame", "LoopFrame", "StarClauseFrame", "WithFrame"]
