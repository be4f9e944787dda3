"""Turning a normalised op list into structured statements.

:class:`Walker` reads ops in layout order. Straight-line ops go to the
:class:`~depyf.decompiler.expressions.StackMachine`; at a control-flow op it
recognises the construct from jump targets (a loop header is the header of a
natural loop of the control-flow graph; an ``if`` is a chain of conditional
jumps to one label) and recurses into the sub-ranges. Anything it cannot
place raises :class:`~depyf.decompiler.failure.DecompileFailure`, and the
caller falls back to the unstructured form for that code object.
"""
from __future__ import annotations

import ast
import bisect
from contextlib import contextmanager
from typing import List, Optional

from .conditionals import CONDITIONAL
from ..expressions import StackMachine
from ..failure import DecompileFailure
from ...bytecode.ir import NO_FALLTHROUGH, Op
from ...bytecode.versions import SUPPORTED, get_table
from ..cfg import build_cfg, reachable_ops
from .except_star import unbinds_before_jump
from .exceptions import Regions, copied_at, finally_end, flow_from, try_statement
from .frames import FrameStack, GuardFrame, LoopFrame
from . import chains, ifs, loops
from .match import match_statement
from .withs import WITH_STARTS, with_exit_at, with_statement
from ..values import Iterator, WithExit

_BLOCK_SETUP = frozenset({"SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH", "SETUP_EXCEPT"})
_MAX_HANDLER_DEPTH = 20
#: what may sit between an except clause's POP_EXCEPT and its closing jump (not
#: POP_TOP: a with statement's suppressed exception goes on that way, and the
#: with statement reads that path itself)
_CLAUSE_EPILOGUE = frozenset({"LOAD_CONST", "STORE_FAST", "STORE_NAME", "STORE_GLOBAL",
                              "STORE_DEREF", "DELETE_FAST", "DELETE_NAME", "DELETE_GLOBAL",
                              "DELETE_DEREF"})
_TERMINAL = (ast.Break, ast.Continue, ast.Return, ast.Raise)
_TERMINAL_KINDS = frozenset(_TERMINAL)
#: ops that can start a match statement once its subject is on the stack
_MATCH_START = frozenset({"MATCH_SEQUENCE", "MATCH_MAPPING", "MATCH_CLASS"})
#: op names the rest of Walker.step looks at (a LOAD_CONST too, in an except clause)
_STEP_SPECIAL = frozenset({"END", "RERAISE", "JUMP_IF_TRUE_OR_POP", "JUMP_IF_FALSE_OR_POP",
                           "JUMP", "FOR_ITER", "COPY", "POP_TOP"}) | frozenset(CONDITIONAL) \
    | _MATCH_START


#: the ops _tests_ahead looks for: conditional jumps and the pattern tests
#: (every MATCH_ op of any version's table)
_TESTS = frozenset(CONDITIONAL) | frozenset(
    name for version in SUPPORTED for name in get_table(version).opcode_by_name
    if name.startswith("MATCH_"))

_NOT_PLAIN = _STEP_SPECIAL | WITH_STARTS
#: op names the set-up of Walker looks for
_LOOKED_AT = _NOT_PLAIN | _BLOCK_SETUP | {"RETURN_VALUE"}
_SCANNED = _LOOKED_AT | NO_FALLTHROUGH


_NOT_WITH = object()


def _target_of(handler):
    return handler.target if handler is not None else None


class Walker:
    def __init__(self, func, ctx):
        self.func = func
        self.ops = func.ops
        self.ctx = ctx
        self.n = len(self.ops)
        #: the constructs being walked (see :mod:`.frames`)
        self.frames = FrameStack()
        self.regions = Regions(self.ops)
        self._jumps = None
        self._test_indices = None
        # One look at every op for what the set-up below depends on.
        returns = []
        backward = False    # (some jump goes back: the code may loop)
        setups = []
        #: where straight-line code ends: a jump or an op that does not fall through
        self._breaks = breaks = []
        special = []        # ops step() looks at (see self.plain)
        any_handler = any_try = False
        #: a with statement is in the code (only then can a WithExit be on a stack)
        self.has_with = False
        scanned = _SCANNED
        for k, op in enumerate(self.ops):
            # (three attribute tests for most ops, each read again only when set)
            if op.target is not None:
                breaks.append(k)
                if op.target.index <= k:
                    backward = True
            if op.name in scanned:          # (one test for most ops)
                name = op.name
                if op.target is None and name in NO_FALLTHROUGH:
                    breaks.append(k)
                if name in _NOT_PLAIN:
                    special.append(k)
                if name == "RETURN_VALUE":
                    returns.append(k)
                elif name in WITH_STARTS:
                    self.has_with = True
                elif name in _BLOCK_SETUP:
                    setups.append(k)
            if op.handler is not None:
                special.append(k)
                any_handler = True
                if op.handler.target.name == "PUSH_EXC_INFO":
                    any_try = True
        #: the control-flow graph, built when first asked for (see cfg): code
        #: that loops needs its loop forest, most other code no more of it than
        #: what reachable_ops finds (without the handlers' runs where none is)
        self._cfg = None
        self.reachable = self.cfg.op_indices(self.cfg.reachable) if backward \
            else reachable_ops(self.ops, breaks, None if any_handler else ())
        if not any_handler:
            # No exception handling: every reached op is normal code.
            self.normal = self.reachable
        else:
            # Only except clauses (not clean-up handlers) hold code to leave out.
            self.normal = self._outside_handlers() if any_try \
                else self.cfg.op_indices(self.cfg.reachable_normal)
        #: header index -> the graph's natural loop there, and -> the jumps back
        #: that close it in layout
        self.loop_forest = loops.forest(self.cfg) if backward else {}
        self.back_targets = loops.back_targets(self)
        self._check_handlers(setups)
        #: ops none of step()'s tests can catch while no statement form is being
        #: walked (see run): reached normal code, no handler, no loop header, no
        #: control flow or construct start, no with statement in the code
        if self.has_with:
            self.plain = set()
        else:
            normal = self.normal if self.normal is self.reachable \
                else self.normal & self.reachable
            self.plain = normal.difference(special, self.back_targets)
        ctx.implicit_returns = set()
        #: some return is one the compiler copied into an expression's branches
        self.copied_returns = False
        for k in returns:       # (a loop: most code has a return or two, no more)
            if self._implicit_return(k):
                ctx.implicit_returns.add(k)
            if self.ops[k].arg == "copied":
                self.copied_returns = True

    @property
    def cfg(self):
        """The control-flow graph of the code object, built on first use, once."""
        cfg = self._cfg
        if cfg is None:
            cfg = self._cfg = build_cfg(self.func)
        return cfg

    def _let_go_of_graph(self) -> None:
        """The walk is over: unlink the graph (its blocks, edges and trees are
        cycles the garbage collector would have to find, for about a third of
        what building it took) and forget it; a later question builds it again."""
        if self._cfg is not None:
            self._cfg.unlink()
            self._cfg = None

    def _check_handlers(self, setups):
        """Block-stack exception handling (up to 3.10; ``setups``: where its set-up
        ops are) is not structured yet."""
        if setups and any(i in self.reachable for i in setups):
            raise DecompileFailure("exception handling before 3.11 is not structured yet")

    def _is_cleanup_handler(self, k: int) -> bool:
        """``SWAP 2; POP_TOP; SWAP n; STORE_FAST x...; RERAISE``: an inlined comprehension
        putting back the locals it hid."""
        names = []
        while k < self.n and self.ops[k].name != "RERAISE":
            names.append(self.ops[k].name)
            k += 1
        return (len(names) >= 4 and names[:3] == ["SWAP", "POP_TOP", "SWAP"]
                and all(n == "STORE_FAST" for n in names[3:]))

    def _outside_handlers(self):
        """Ops that run with no exception being handled: reached from the entry,
        and from the jump that ends an except clause (``POP_EXCEPT; [name = None;
        del name]; JUMP after``): the code after a try whose body always returns
        is reached from its except clauses only. (What falls through after
        POP_EXCEPT, e.g. a ``return`` in the clause, stays handler code.) A with
        statement's handler that swallowed the exception (``POP_EXCEPT; POP_TOP...``)
        goes on to the code after the statement, by a jump or falling into it:
        that code is normal too, even where the body always leaves (not where it
        is an enclosing statement's way out, e.g. a with's exit call)."""
        # (depth, popped) -> the indices reached in that state: a set per state
        # rather than a tuple per op
        seen = {}
        ops, n = self.ops, self.n
        work = [(0, 0, None)] if ops else []
        while work:
            i, depth, within = work.pop()
            # within: for a with statement's handler code, the handler covering
            # the statement itself (_NOT_WITH for other code)
            popped = 0          # POP_EXCEPTs just passed (3.13 leaves two at once)
            states = seen.setdefault((depth, 0), set())
            last = None         # a run of ops shares its handler: pushed once
            while i < n:
                if i in states:
                    break
                op = ops[i]
                if popped and within is not _NOT_WITH and op.name != "POP_TOP" \
                        and op.name != "JUMP" and _target_of(op.handler) is within:
                    depth -= popped     # (falling into the code after the statement)
                    popped = 0
                    within = _NOT_WITH
                    states = seen.setdefault((depth, 0), set())
                    if i in states:
                        break
                states.add(i)
                if op.target is not None:
                    if op.name != "JUMP":
                        work.append((op.target.index, depth, within))
                    elif popped and within is not _NOT_WITH \
                            and _target_of(op.target.handler) is not within:
                        work.append((op.target.index, depth, within))
                    else:
                        work.append((op.target.index, depth - popped, _NOT_WITH))
                h = op.handler
                if h is not last:
                    last = h
                    if h is not None and h.target.name == "PUSH_EXC_INFO" \
                            and depth < _MAX_HANDLER_DEPTH:
                        # (clean-up handlers only re-raise: never followed; a
                        # handler that loops back into its try without
                        # POP_EXCEPT would nest without end)
                        work.append((h.target.index, depth + 1, self._with_outer(h)))
                if op.name in NO_FALLTHROUGH:
                    break
                if op.name == "POP_EXCEPT" and depth > popped:
                    popped += 1
                    states = seen.setdefault((depth, popped), set())
                elif popped and op.name not in _CLAUSE_EPILOGUE \
                        and not (within is not _NOT_WITH and op.name == "POP_TOP"):
                    popped = 0
                    states = seen[depth, 0]
                i += 1
        return set().union(*[found for (depth, _), found in seen.items() if depth == 0])

    def _with_outer(self, h):
        """For a with statement's handler ``h``: the target of the handler that
        covers the statement (None: none); else _NOT_WITH."""
        k = h.target.index
        if k + 1 >= self.n or self.ops[k + 1].name != "WITH_EXCEPT_START":
            return _NOT_WITH
        cleanup = self.ops[k].handler
        if cleanup is None:
            return None
        return _target_of(self.ops[cleanup.target.index].handler)

    # -- what the constructs learn of the code --------------------------------------------------

    def count_as_normal(self, k: int) -> None:
        """The ops plain flow reaches from ``k`` are normal code, not a handler's:
        a construct found that only its handlers or breaks lead there."""
        self.normal = self.normal | flow_from(self, k, self.n)

    @contextmanager
    def normal_inside(self, i: int, hi: int):
        """While a statement at ``i`` in handler code is walked, the flow from it
        (up to ``hi``) counts as normal: what is normal is relative to it. Yields
        what counted as normal before, which comes back after."""
        saved = self.normal
        if i not in saved:
            self.normal = saved | flow_from(self, i, hi)
        try:
            yield saved
        finally:
            self.normal = saved

    @contextmanager
    def expressions_as(self, kind: str):
        """Values inside are built as in code of ``kind`` (an inlined
        comprehension's appends, from nested loops too, build its result)."""
        outer = self.ctx
        self.ctx = outer.with_kind(kind)
        try:
            yield
        finally:
            self.ctx = outer

    @property
    def straight_line(self) -> bool:
        """Whether only the last op ends the code's one straight run (no jump,
        no early exit): nothing in it can be left out of a construct."""
        return len(self._breaks) <= 1

    def dead_return_tail(self) -> bool:
        """Up to 3.9 the compiler's closing ``return None`` survives, unreached, when a
        jump (since removed) led to the end: the last statement was not a return.
        (Handler code the passes laid out after it, only exceptions reach.)"""
        k = self.n - 1
        while k >= 0 and k in self.reachable and k not in self.normal:
            k -= 1
        return k >= 1 and self.ops[k].name == "RETURN_VALUE" and \
            self.ops[k - 1].name == "LOAD_CONST" and self.ops[k - 1].arg is None and \
            (k - 1) not in self.reachable and k not in self.reachable

    # -- entry ---------------------------------------------------------------------------

    def body(self) -> List[ast.stmt]:
        m = StackMachine(self.ctx)
        try:
            self.run(m, 0, self.n)
        finally:
            self._let_go_of_graph()
        _check_stack_kept(m, None, "values left on the stack at the end")
        return m.stmts

    def block(self, lo: int, hi: int, stack=None) -> List[ast.stmt]:
        m = StackMachine(self.ctx, stack)
        self.run(m, lo, hi)
        _check_stack_kept(m, stack, "block leaves values on the stack")
        return m.stmts

    # -- the main loop -------------------------------------------------------------------

    def run(self, m: StackMachine, lo: int, hi: int) -> int:
        """Walk ``[lo, hi)``; returns where the walk ended (past ``hi`` when the last
        statement's code runs on, e.g. over an inline handler)."""
        i = lo
        ops, plain, frames = self.ops, self.plain, self.frames
        while i < hi:
            if i in plain and frames.plain_runs:
                # Most ops: straight to the stack machine (step() would find the
                # same), a run of them at a time (the stack machine leaves the
                # walk's state as it is).
                i = m.steps(ops, i, hi, plain)
                continue
            nxt = self.step(m, i, hi)
            if nxt <= i:
                raise DecompileFailure("no progress at offset %d" % self.ops[i].offset)
            i = nxt
        if m.multi:
            m.flush_multi()
        # Code after return/raise/break/continue in one block is never reached;
        # it is a copy the compiler made of a shared tail.
        for k, stmt in enumerate(m.stmts):
            if type(stmt) in _TERMINAL_KINDS:       # (no subclasses: one lookup a statement)
                del m.stmts[k + 1:]
                break
        return i

    def step(self, m: StackMachine, i: int, hi: int) -> int:
        op = self.ops[i]
        frames = self.frames
        if i not in self.reachable or (i not in self.normal and not frames.handler_code):
            # Handler code is walked only as part of its try statement.
            return i + 1
        if i in frames.resume:
            return frames.resume[i]
        if self.has_with and m.stack \
                and isinstance(m.stack[-1 if op.name != "SWAP" else -2], WithExit):
            end = with_exit_at(self, m, i)
            if end is not None:
                return end
        if frames.copies:
            copy = self.finally_copy_at(i)
            if copy:
                way_on = self.past_copies(i)
                end = self.copied_while_break(way_on)
                if end is not None:
                    m.emit(ast.Break(), op)
                    return end
                if way_on < self.n and ((self.ops[way_on].name == "JUMP"
                                         and not self.is_loop_jump(self.ops[way_on]))
                                        or self._moved_exit(way_on - 1) is not None):
                    # A way out through the finally copy goes on where no
                    # statement leads (a loop's break whose loop left no trace:
                    # `while True:` whose body always leaves): no source form.
                    raise DecompileFailure("a finally copy leads nowhere a statement goes")
                return i + copy
        if op.name in WITH_STARTS:
            return with_statement(self, m, i, hi)
        h = op.handler
        is_header = i in self.back_targets and not self._header_walked(i)
        if h is not None and not self.handled(h) and not (is_header and self._loop_holds_try(i, h)):
            return try_statement(self, m, i, hi, h)
        if is_header:
            return loops.loop(self, m, i, hi)
        name = op.name
        if name not in _STEP_SPECIAL and (name != "LOAD_CONST" or not (
                frames.handler_code or frames.star_clause)):
            # most ops: none of the checks below applies (steps, not step: one
            # call fewer)
            return m.steps(self.ops, i, i + 1, ())
        if name == "END" or (name == "RERAISE" and finally_end(self, op)):
            loop = frames.loop
            if name == "RERAISE" and loop is not None and loop.exit != i \
                    and finally_end(self, self.ops[loop.exit]):
                # a copy of the end a loop in the finally body leads to: `break`
                m.emit(ast.Break(), op)
            return i + 1
        if frames.handler_code and self._unbinds_after_pop_except(i):
            # `except E as e:` left by return/break/continue in a branch: the
            # compiler's `e = None; del e`, not the clause's own statements.
            return i + 3
        star = frames.star_clause
        if star is not None and unbinds_before_jump(self.ops, i, star.name):
            # 3.13 copies `except* E as e:`'s closing `e = None; del e` into branches.
            return i + 3
        if name in CONDITIONAL:
            return self.conditional(m, i, hi)
        if name in ("JUMP_IF_TRUE_OR_POP", "JUMP_IF_FALSE_OR_POP"):
            return self.value_boolop(m, i, hi)
        if name == "JUMP":
            return self.jump(m, i, hi)
        if name == "FOR_ITER":
            # A for loop whose body never comes back (it always returns or breaks).
            return loops.for_loop(self, m, i, i, hi)
        if (name in _MATCH_START or (name == "COPY" and op.arg == 1)) and self._tests_ahead(i, hi):
            end = match_statement(self, m, i, hi)
            if end is not None:
                return end
        if name == "POP_TOP" and m.stack and isinstance(m.stack[-1], Iterator) \
                and self.ops[i - 1].name != "SWAP":
            # (after a SWAP a return value sits under the iterator: no break)
            end = self._copied_break(i)
            if end is not None:
                m.pop()
                m.emit(ast.Break(), op)
                return end
        return m.steps(self.ops, i, i + 1, ())

    def _tests_ahead(self, i: int, hi: int) -> bool:
        """Whether ``[i, hi)`` holds a pattern test (a MATCH_* op or a conditional
        jump): a copied value with none after it is no match statement (Dynamo's
        code copies values often; reading each as a match would cost a tenth of
        its decompile time)."""
        tests = self._test_indices
        if tests is None:
            tests = self._test_indices = [op.index for op in self.ops if op.name in _TESTS]
        k = bisect.bisect_left(tests, i)
        return k < len(tests) and tests[k] < hi

    # -- exception regions ------------------------------------------------------------------

    def _unbinds_after_pop_except(self, i: int) -> bool:
        """``POP_EXCEPT; LOAD_CONST None; STORE x; DELETE x`` at ``i - 1``."""
        ops = self.ops
        return i >= 1 and i + 2 < self.n and ops[i - 1].name == "POP_EXCEPT" \
            and ops[i].name == "LOAD_CONST" and ops[i].arg is None \
            and ops[i + 1].name.startswith("STORE") and ops[i + 2].name.startswith("DELETE") \
            and ops[i + 1].arg == ops[i + 2].arg and ops[i + 1].name[5:] == ops[i + 2].name[6:]

    def _header_walked(self, i: int) -> bool:
        """``i`` starts the next iteration of a loop being walked, and no other
        loop starts there inside it (see :meth:`loop_inside_try`)."""
        return self.frames.current_header(i) and self.loop_inside_try(i) is None

    def loop_inside_try(self, i: int) -> Optional[int]:
        """The latch of a loop at ``i`` inside the try body being walked, when a
        loop started outside the try starts at ``i`` too (``while True: try:
        while c:`` up to 3.9, whose try set-up the outer loop jumped to is
        dropped), else None. A jump back to ``i`` covered by the try is the inner
        loop's: a ``continue`` leaves the try's range before it jumps."""
        frames = self.frames
        guard = frames.innermost(GuardFrame)
        if guard is None or guard.code:
            return None
        h = guard.handlers[0]
        covered = [k for k in self.back_targets[i] if self.regions.covered(self.ops[k], h)]
        if not covered:
            return None
        stack = frames.frames
        for f in reversed(stack):
            if f is guard:
                break
            if isinstance(f, LoopFrame) and i in f.continues:
                return None     # (that loop is the inner one, being walked)
        return max(covered)

    def _loop_holds_try(self, i: int, h) -> bool:
        """A loop and a try start at ``i`` (``while True: try:``): the jump back
        lies outside the try."""
        latch = self.ops[max(self.back_targets[i])]
        return not self.regions.covered(latch, h)

    def handled(self, h) -> bool:
        """``h`` starts no new try: a clean-up handler, or one whose range is being walked."""
        # Only PUSH_EXC_INFO starts a try's handler; the rest are the compiler's
        # clean-ups (`except ... as name`, inlined comprehensions, generators).
        return h.target.name != "PUSH_EXC_INFO" or self.frames.is_active(h)

    def finally_copy_at(self, i: int) -> int:
        """Length of a finally-body copy (or with-exit call) starting at ``i``, else 0."""
        for frame in reversed(self.frames.copies):
            seq = frame.copy
            if seq and copied_at(self.ops, i, seq):
                guard = getattr(seq, "handler", None)
                if guard is not None and self.regions.covered(self.ops[i], guard):
                    continue    # code the finally protects: the same statements, no copy
                return len(seq)
        return 0

    def past_copies(self, i: int) -> int:
        """Past what a way out of the statements being walked runs from ``i`` on,
        innermost first: the copies of the enclosing finally bodies (and with-exit
        calls), and, between them, the ends of enclosing except clauses
        (``POP_EXCEPT; [name = None; del name]``)."""
        for _ in range(2 * len(self.frames.copies) + 1):
            copy = self.finally_copy_at(i)
            if copy:
                i += copy
            elif self.frames.handler_code and i < self.n and self.ops[i].name == "POP_EXCEPT":
                i += 4 if self._unbinds_after_pop_except(i + 1) else 1
            else:
                break
        return i

    def copied_while_break(self, k: int):
        """Where a ``break`` of the innermost while loop ends, when it leaves
        through finally copies and then a copy of the code after the loop that
        returns starts at ``k`` (3.10+ copies that code into the break): a
        ``return`` there would have loaded its value before the copies. None
        otherwise (a constant loads after them either way)."""
        loop = self.frames.loop
        if loop is None or loop.iterator or k + 1 >= self.n \
                or (self.ops[k].name == "LOAD_CONST" and self.ops[k + 1].name == "RETURN_VALUE"):
            return None
        return self._copy_at(k, loop.break_target if loop.break_target is not None else loop.exit)

    def run_guarded(self, m, lo, hi, handler, handler_code=False):
        """Walk ``[lo, hi)`` as the region of ``handler`` (its ops are no new try);
        ``handler_code`` when the range is a handler's own code."""
        cleanup = self.regions.cleanup_of(handler) if handler is not None else None
        guard = GuardFrame((handler,) if cleanup is None else (handler, cleanup), handler_code)
        with self.frames.push(guard):
            return self.run(m, lo, hi)

    def guarded_block(self, lo, hi, stack, handler, handler_code=False):
        m = StackMachine(self.ctx, stack)
        self.run_guarded(m, lo, hi, handler, handler_code)
        _check_stack_kept(m, stack, "guarded block leaves values on the stack")
        return m.stmts

    def _copied_break(self, i: int):
        """``POP_TOP`` (the for loop's iterator) then a copy of the code after the
        loop that ends in a return: 3.12+ copies that code into a ``break``. (A
        ``return`` in the loop would drop the iterator after computing its value.)"""
        loop = next((lp for lp in reversed(self.frames.loops) if lp.iterator), None)
        if loop is None:
            return None
        exit_ = loop.break_target if loop.break_target is not None else loop.exit
        if i + 1 == exit_ and loop is self.frames.loop:
            # The jump of a `break` to the code right after it is dropped: the
            # iterator's POP_TOP runs on into the loop's exit.
            return exit_
        moved = self._moved_exit(i)
        if moved is not None and loop.moved_exit in (None, moved) and loop.break_target is None \
                and self._copy_at(i + 1, exit_) is None:
            loop.moved_exit = moved
            return moved[1]
        return self._copy_at(i + 1, exit_)

    def _moved_exit(self, i: int):
        """``POP_TOP; <an expression but a constant>; RETURN_VALUE`` in a for loop: a
        return would drop the iterator after computing its value, so this is a
        ``break`` followed by the code after the loop."""
        k = i + 1
        while k < self.n and self.ops[k].target is None \
                and self.ops[k].name not in ("RETURN_VALUE", "RAISE_VARARGS", "POP_TOP"):
            k += 1
        if k >= self.n or self.ops[k].name != "RETURN_VALUE" or k == i + 1 \
                or (k == i + 2 and self.ops[i + 1].name == "LOAD_CONST"):
            return None
        return i + 1, k + 1

    def _copy_at(self, lo: int, exit_: int):
        """Where a copy of the code at ``exit_`` (up to its return) starting at
        ``lo`` ends, if it is one. (A return labelled a statement's own,
        ``normalize.explicit_returns``, is no copy: those compilers copy none.)"""
        i = lo - 1
        k = 0
        while True:
            a = self.ops[i + 1 + k] if i + 1 + k < self.n else None
            b = self.ops[exit_ + k] if exit_ + k < self.n else None
            if a is None or b is None or a is b or a.name != b.name or a.target is not None \
                    or (a.arg != b.arg and a.name != "RETURN_VALUE") \
                    or (a.name == "RETURN_VALUE" and a.arg == "explicit"):
                return None
            k += 1
            if a.name in ("RETURN_VALUE", "RAISE_VARARGS"):
                return i + 1 + k

    # -- jumps that leave a block ---------------------------------------------------------

    def jump(self, m: StackMachine, i: int, hi: int) -> int:
        kind = loops.jump_kind(self, i)
        if kind is not None:
            m.emit(kind(), self.ops[i])
            return i + 1
        target = self.ops[i].target.index
        if target >= hi:
            # The end of an if-branch jumping over its else; the caller handles it.
            return i + 1
        if i < target and not any(k in self.reachable for k in range(i + 1, target)):
            # Over code nothing reaches (a resume function's prologue jumps past
            # the start of the original code into its middle): as if it fell through.
            return target
        raise DecompileFailure("unstructured jump at offset %d" % self.ops[i].offset)

    def clause_exit_at(self, k: int):
        """``POP_EXCEPT; [name = None; del name;] JUMP T`` at ``k`` (the way out of
        an except clause): (T, index of the JUMP), else None."""
        ops = self.ops
        if ops[k].name != "POP_EXCEPT":
            return None
        j = k + 1
        if j < self.n and self._unbinds_after_pop_except(j):
            j += 3
        if j < self.n and ops[j].name == "JUMP":
            return ops[j].target.index, j
        return None

    def jump_leaves_clause(self, i: int):
        """The JUMP at ``i`` leaves the except clause being walked (to where the
        clause's end leads) from a loop begun inside it; the clause's end, or None."""
        clause = self.frames.clause
        if clause is None:
            return None
        exit_, depth, end = clause.exit, clause.loop_depth, clause.end
        if exit_ is None or len(self.frames.loops) < depth or self.ops[i].target.index != exit_:
            return None
        for k in (i - 1, i - 4):
            if k >= 0 and self.clause_exit_at(k) == (exit_, i):
                return end
        return None

    # -- conditions --------------------------------------------------------------------------

    def conditional(self, m: StackMachine, i: int, hi: int) -> int:
        test, after, target, line = chains.read_condition(self, m, i, hi)
        made = len(m.stmts)
        end = ifs.if_statement(self, m, test, after, target, hi, line)
        # The if's jumps are its own, for the line map (line_map.py): what runs
        # before them runs before either branch.
        stmt = next((s for s in m.stmts[made:] if type(s) is ast.If), None)
        if stmt is not None and getattr(stmt, "_at", None) is None:
            stmt._at = tuple(op.offset for op in self.ops[i:after] if op.name in CONDITIONAL)
        return end

    def value_before_tail(self, stack, lo, end, tail, depth, stuck=None):
        """The value region ``[lo, end)`` computes before its copy of ``tail`` (the
        stack then ``depth`` deep), conditional expressions inside included.
        None when there is none; a statement or a jump outside a conditional
        stopped it if it then appended its position to ``stuck``."""
        sub = StackMachine(self.ctx, stack)
        j = lo
        t = len(tail)
        while j < end - t:
            op = self.ops[j]
            if op.name in CONDITIONAL:
                cond, after, target, _ = chains.read_condition(self, sub, j, end)
                if not (after < target < end):
                    return None
                a = self.value_before_tail(sub.stack, after, target, tail, depth)
                b = a is not None and self.value_before_tail(sub.stack, target, end, tail, depth)
                if a is None or b is None or b is False:
                    return None
                return ast.IfExp(test=cond, body=a, orelse=b)
            if op.target is None and op.name not in ("RETURN_VALUE", "RAISE_VARARGS"):
                sub.step(op)
                if not sub.stmts:
                    j += 1
                    continue
            if stuck is not None:
                stuck.append(j)
            return None
        if [(o.name, o.arg) for o in self.ops[end - t:end]] != tail or len(sub.stack) != depth:
            return None
        return sub.value(sub.stack[-1])

    def with_handler_code(self, lo, hi):
        """The ops of ``[lo, hi)`` and of the handler code of the try statements
        there that lies outside it (3.12+ lays handlers out after the code): what
        control reaches from their handlers short of normal code."""
        out = self.ops[lo:hi]
        work = sorted({o.handler.target.index for o in out if o.handler is not None
                       and not lo <= o.handler.target.index < hi})
        seen = set()
        while work:
            k = work.pop()
            if k in seen or k >= self.n or k in self.normal or lo <= k < hi:
                continue
            seen.add(k)
            op = self.ops[k]
            out.append(op)
            if op.target is not None:
                work.append(op.target.index)
            if op.handler is not None:
                work.append(op.handler.target.index)
            if op.name not in NO_FALLTHROUGH:
                work.append(k + 1)
        return out

    def is_return_none_copy(self, k: int) -> bool:
        return k + 1 < self.n and self.ops[k].name == "LOAD_CONST" and self.ops[k].arg is None \
            and (k + 1) in self.ctx.implicit_returns

    def _implicit_return(self, k: int) -> bool:
        """``LOAD_CONST None; RETURN_VALUE`` on the line of a statement that leads to
        it (the compiler's own return, or a copy of it), not a line of its own."""
        op = self.ops[k]
        if op.name != "RETURN_VALUE" or op.arg in ("copied", "explicit") or k < 1 \
                or self.ops[k - 1].name != "LOAD_CONST" \
                or self.ops[k - 1].arg is not None:
            return False
        if k >= 6 and self.ops[k - 2].name == "POP_TOP" and self.ops[k - 3].name == "CALL" \
                and self.ops[k - 3].arg == (2, (), 2) \
                and all(o.name == "LOAD_CONST" and o.arg is None for o in self.ops[k - 6:k - 3]) \
                and not (k + 2 < self.n and self.ops[k + 1].name == "PUSH_EXC_INFO"
                         and self.ops[k + 2].name == "WITH_EXCEPT_START") \
                and not self._jumps_to().get(id(self.ops[k - 1])):
            # After a with's exit call, not the one where the body falls off
            # (before the handler, or where the handler's way out lands): a
            # `return None` in the body (3.11+ give it the with's line).
            return False
        if op.line is None:
            return True
        start = self._clause_way_out_start(k - 1)
        before = self.ops[start - 1] if start >= 1 else None
        if before is not None and before.name not in NO_FALLTHROUGH and before.line == op.line:
            return True     # (before the jumps are looked at: most returns end here)
        if any(p.line == op.line for p in self._jumps_to().get(id(self.ops[start]), ())):
            return True
        # The closing one at the very end (after a loop, say): any line but its own.
        # (Not the line of its copies alone: 3.10+ copy an explicit closing
        # `return None` onto the ways there, on its line.)
        ops = self.ops
        return k == self.n - 1 and any(
            o.line == op.line and o.name != "RETURN_VALUE"
            and not (o.name == "LOAD_CONST" and o.arg is None and ops[j + 1].name == "RETURN_VALUE")
            for j, o in enumerate(ops[:k - 1]))

    def _clause_way_out_start(self, k: int) -> int:
        """Where an except clause's way out that ends at ``k`` starts (``k``
        where there is none): POP_EXCEPT, the name's unbinding and the drops
        of loop iterators take the line of the return after them, so the
        statement before them tells whose return it is."""
        ops = self.ops
        j = k
        while j >= 1 and ops[j - 1].name == "POP_TOP":
            j -= 1
        if j >= 4 and self._unbinds_after_pop_except(j - 3):
            return j - 4
        if j >= 1 and ops[j - 1].name == "POP_EXCEPT":
            return j - 1
        return k

    def _jumps_to(self):
        """``id(op)`` -> the ops that jump to it (built once: asked per return)."""
        if self._jumps is None:
            self._jumps = {}
            for o in self.ops:
                if o.target is not None:
                    self._jumps.setdefault(id(o.target), []).append(o)
        return self._jumps

    def flows_to_next_iteration(self, loop, hi: int) -> bool:
        """Falling off the end of the block ``[.., hi)`` starts the loop's next iteration."""
        hi = self.frames.final_join(hi, loop.body_end)     # (an if's branch: on past the else)
        if loop.body_end == hi:
            return True
        nxt = self.ops[hi] if hi < self.n else None
        return nxt is not None and nxt.name == "JUMP" \
            and nxt.target.index in loop.continues

    def is_loop_jump(self, op) -> bool:
        """The jump ``op`` continues or leaves a loop being walked."""
        return self.frames.loop_jump(op.target.index)

    def value_boolop(self, m: StackMachine, i: int, hi: int) -> int:
        op = self.ops[i]
        end = op.target.index
        if end <= i or end > hi:
            raise DecompileFailure("and/or jumps out of its block")
        left = m.pop_value()
        sub = StackMachine(self.ctx, m.stack)
        self.run(sub, i + 1, end)
        if sub.stmts or len(sub.stack) != len(m.stack) + 1:
            raise DecompileFailure("and/or operand is not an expression")
        right = sub.value(sub.stack[-1])
        kind = ast.Or if op.name == "JUMP_IF_TRUE_OR_POP" else ast.And
        values = [left]
        if isinstance(right, ast.BoolOp) and isinstance(right.op, kind):
            values += right.values
        else:
            values.append(right)
        node = ast.BoolOp(op=kind(), values=values)
        if op.line is not None:
            # (its jumps have the line where it starts: in the line-faithful
            # layout the bracket of a first operand in parentheses goes there)
            node.lineno = op.line
        m.push(node)
        return end

    def value_ifexp(self, m: StackMachine, i: int, hi: int) -> int:
        """``a if c else b`` as a value inside an expression read op by op (a
        test's operand: `x or y[0 if c else 1]`), its test's jump at ``i`` with
        the test on ``m``'s stack: the expression pushed on ``m``, and where
        its branches join. The true branch ends in a jump over the false one.

        (Raises :class:`DecompileFailure` for any other shape.)"""
        test, after, target, _ = chains.read_condition(self, m, i, hi)
        over = self.ops[target - 1] if after < target <= hi else None
        if over is None or over.name != "JUMP" or over.target is None \
                or not target < over.target.index <= hi or self.is_loop_jump(over):
            raise DecompileFailure("no conditional expression at offset %d" % self.ops[i].offset)
        join = over.target.index
        values = []
        for lo, end in ((after, target - 1), (target, join)):
            branch = StackMachine(self.ctx, m.stack)
            self.run(branch, lo, end)
            if branch.stmts or len(branch.stack) != len(m.stack) + 1 \
                    or any(a is not b for a, b in zip(branch.stack, m.stack)):
                raise DecompileFailure("conditional expression branch is not an expression")
            values.append(branch.value(branch.stack[-1]))
        m.push(ast.IfExp(test=test, body=values[0], orelse=values[1]))
        return join


def _check_stack_kept(m, stack, reason):
    """A block that runs on must leave the stack it was given as it found it: a
    value it consumed and replaced (``x; if c: x * 3``) has no statement form."""
    # After break/return/raise nothing falls through, so the stack is moot
    # (a for loop's iterator is already popped there).
    if m.stmts and isinstance(m.stmts[-1], _TERMINAL):
        return
    stack = stack or []
    if len(m.stack) != len(stack):
        raise DecompileFailure(reason)
    if any(a is not b for a, b in zip(m.stack, stack)):
        raise DecompileFailure("a branch changes a value left on the stack")
