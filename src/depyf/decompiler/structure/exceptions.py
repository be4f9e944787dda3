"""try/except/else/finally statements, from explicit handler regions (the
with statement, read from its handler too, is :mod:`.withs`).

Every Op carries the exception handler that covers it (3.11-style; see
``bytecode.ir.Handler``). A handler's own code is covered by a clean-up
handler (``COPY 3; POP_EXCEPT; RERAISE 1``) whose handler is the enclosing
one, so "op is inside the try body of H" is a walk up that chain
(:meth:`Regions.covered`).

Shapes recognised (3.11+ layout; handlers may sit inline or at the end)::

    try body (handler H) ; [else body] ; [JUMP end]
    H: PUSH_EXC_INFO
       [type; CHECK_EXC_MATCH; POP_JUMP_IF_FALSE next]   one clause each
       STORE name | POP_TOP
       clause body ; POP_EXCEPT ; [name = None; del name] ; JUMP end | copy of the tail
       ... RERAISE 0                                      no clause matched
    -- or, for finally --
    H: PUSH_EXC_INFO ; finally body ; RERAISE 0
       and a copy of the finally body on every normal way out of the try body
"""
from __future__ import annotations

import ast
from typing import List, Optional

from ...bytecode.ir import NO_FALLTHROUGH
from ..astcompat import TryStar
from ..cfg import EXCEPTION
from .clauses import (TERMINALS, clause_body_end, clause_type_end, copied_exit,
                      else_before_dead_tail, name_epilogue, terminal)
from .frames import BranchFrame, ClauseFrame, FinallyBodyFrame, FinallyFrame, GuardFrame
from .except_star import clauses as except_star_clauses, is_except_star
from ..expressions import StackMachine
from ..failure import DecompileFailure
from ..spill import spill_before_block
from .signatures import exit_block, names, tail_signature
from ..values import CaughtException, ExcInfo, Iterator, WithExit


class Regions:
    """Questions about handler coverage for one code object."""

    def __init__(self, ops):
        self.ops = ops

    def parent(self, handler):
        """The handler that covers ``handler``'s own code."""
        return self.ops[handler.target.index].handler

    def covered(self, op, handler) -> bool:
        h = op.handler
        ops = self.ops
        seen = 0
        while h is not None and seen < 64:
            if handler.same_place(h):
                return True
            h = ops[h.target.index].handler      # (self.parent(h), inlined)
            seen += 1
        return False

    def cleanup_of(self, handler):
        """The clean-up handler covering a handler's code (COPY 3; POP_EXCEPT; RERAISE 1)."""
        return self.ops[handler.target.index].handler


# -- try statements ------------------------------------------------------------------

def try_statement(w, m: StackMachine, i: int, hi: int, handler) -> int:
    ops = w.ops
    regions = w.regions
    handler = _outermost_pending(w, handler)
    start = ops[handler.target.index]
    if start.name != "PUSH_EXC_INFO":
        raise DecompileFailure("handler does not start with PUSH_EXC_INFO")
    hs = handler.target.index
    cleanup = regions.cleanup_of(handler)
    he = cleanup.target.index if cleanup is not None else w.n
    line = w.func.try_lines.get(id(ops[i]), ops[i].line)
    # Generated code may start a try with values waiting on the stack (Dynamo's
    # try/finally around the call that breaks its graph): those that must keep
    # their place are evaluated before it, as before an if's branches.
    m.stmts.extend(spill_before_block(m))
    # (a try statement inside handler code: what is normal flow, as opposed
    # to its own handlers' code, is relative to it)
    with w.normal_inside(i, hi) as saved:
        if is_except_star(ops, hs):
            k = _try_except(w, m, i, hi, handler, hs, he, line, except_star_clauses, TryStar)
        elif _is_finally(w, hs, he):
            k = _try_finally(w, m, i, hi, handler, hs, he, line)
        else:
            k = _try_except(w, m, i, hi, handler, hs, he, line)
    if i not in saved and k <= hs:
        # Inside handler code every op is walked: once the walk reaches this
        # statement's handlers (laid out after where it ends, e.g. a finally
        # body's closing RERAISE), it goes over them.
        # (when the statement ends at its handler (its body leaves), the handler
        # code reaches no code after it there)
        w.frames.resume[hs] = _handler_code_end(w, hs, k if k != hs else None)
    if i in saved and k < hi and k not in saved and k in w.reachable \
            and any(o.target is ops[k] for o in ops[hs:]):
        # Only the handlers reach the code after the statement (its body always
        # returns or raises): that code is normal flow all the same.
        w.count_as_normal(k)
    return k


def _handler_code_end(w, hs, join) -> int:
    """The end of the handler code that starts at ``hs``: the ops it reaches
    (its clauses and clean-ups, not the code they go on to at ``join``)."""
    seen = set()
    work = [hs]
    while work:
        k = work.pop()
        if k in seen or k == join or k >= w.n:
            continue
        seen.add(k)
        op = w.ops[k]
        if op.handler is not None and not w.frames.is_active(op.handler):
            work.append(op.handler.target.index)
        if op.target is not None and op.target.index > hs:
            work.append(op.target.index)
        if op.name not in NO_FALLTHROUGH:
            work.append(k + 1)
    end = hs
    while end in seen:
        end += 1
    return end


def _outermost_pending(w, handler):
    """The outermost try statement starting at the op ``handler`` covers: in
    ``try: ... except E: ... finally: ...`` the first op's handler is the except
    clauses', and the finally's covers their code (the chain of clean-ups up from
    ``handler`` reaches it); a try being walked already is no new statement."""
    found = handler
    h = handler
    for _ in range(64):
        cleanup = w.regions.cleanup_of(h)
        outer = w.regions.parent(cleanup) if cleanup is not None else None
        if outer is None or w.handled(outer):
            break
        found = h = outer
    return found


def flow_from(w, i, hi):
    """Ops in ``[i, hi]`` control reaches from ``i`` without exceptions (``hi``: the
    code after the statement's block), on the graph: a block that runs past
    ``hi`` counts up to it, and its way on is not followed."""
    cfg = w.cfg
    first = cfg.block_of(w.ops[i])
    seen = set(range(i, min(first.end, hi + 1)))
    work = [first] if first.end - 1 <= hi else []
    done = {first}
    while work:
        for e in work.pop().successors:
            b = e.target
            if e.kind == EXCEPTION or b in done or not i <= b.start <= hi:
                continue
            done.add(b)
            seen.update(range(b.start, min(b.end, hi + 1)))
            if b.end - 1 <= hi:
                work.append(b)
    return seen


def try_body_end(w, i, hi, handler, limit=None):
    """Last op of the try body: the last op in layout covered by ``handler``
    before its handler code (finally copies inside are skipped by the walker)."""
    stop = min(hi, limit if limit is not None else hi)
    in_normal, ops, covered = w.normal, w.ops, w.regions.covered
    normal = i in in_normal
    # (from the end: the last covered op is near it, and the scan stops there)
    for j in range(stop - 1, i - 1, -1):
        # Handler code of nested statements is covered too but lies elsewhere.
        if (j in in_normal) == normal and covered(ops[j], handler):
            return j + 1
    return i


def _is_finally(w, hs, he) -> bool:
    ops = w.ops
    j = hs + 1
    if ops[j].name in ("POP_TOP",) or ops[j].name.startswith("STORE"):
        return False            # bare except
    while j < he and ops[j].target is None and ops[j].name not in ("CHECK_EXC_MATCH", "RERAISE",
                                                                     "POP_TOP", "CHECK_EG_MATCH"):
        j += 1
    return not (j < he and ops[j].name in ("CHECK_EXC_MATCH", "CHECK_EG_MATCH"))


def _try_except(w, m, i, hi, handler, hs, he, line, parse=None, kind=ast.Try) -> int:
    """``parse``: the except-clause parser (default :func:`_clauses`); ``kind``:
    the statement's node class (``TryStar`` for ``except*``)."""
    ops = w.ops
    inline = hs > i and _normal_after_handler(w, hs, he)
    limit = hs if inline else hi
    body_end = try_body_end(w, i, hi, handler, limit)
    if inline:
        body_end = extend_inline_body(w, i, body_end, hs)
    elif hs > i:
        # (a jump to the end of the enclosing block, past a branch that returns,
        # leaves the body too: `if c: return x` ending a loop's body)
        body_end = extend_inline_body(w, i, body_end, min(hs, hi + 1))
    if w.func.else_after_handlers:
        body_end = _constant_return_end(w, m, body_end, min(hs, hi))
    body, body_end = _try_body(w, m, i, body_end, handler)
    clauses, exits, tails = (parse or _clauses)(w, m, hs, he, handler)
    end = _join(w, body_end, hs, he, hi, exits, [(t[0], t[2]) for t in tails], inline)
    if not inline and end is not None and hs < end and hs > i and w.frames.handler_code \
            and not w.func.cold_handlers:
        # (in handler code no op is normal: the clauses jumping on past the
        # handler to the enclosing clause's code lay it out inline)
        inline = True
    for signature, clause, k, clause_end in tails:
        if end is None or names(ops, end, end + len(signature)) != signature:
            if clause is None:
                raise DecompileFailure("except* way out is no copy of the code after it")
            # Not a copy of the code after the try: the clause's own closing
            # statements (e.g. `return False`, whose constant loads after POP_EXCEPT).
            clause.body = _drop_pass(clause.body) + _clause_tail(w, m, k, clause_end)
    ends_at_body = _ends_at_body(w, handler, clauses, body_end, hs, he, hi, end, inline)
    if not ends_at_body and end is None and body_end < min(hs, hi) and not inline \
            and w.frames.clause is None and _threaded_after(w, body_end, min(hs, hi)):
        # 3.14+ threads the jump back of an if ending the loop's body only
        # where the if follows the statement: it is no else.
        ends_at_body = True
    if (end is None or end >= hi) and not ends_at_body and w.frames.loop is not None \
            and w.flows_to_next_iteration(w.frames.loop, hi):
        # The try ends its loop's body: a clause falling off its end goes round.
        # (Not one that ends a branch with more of the body after the if.)
        for clause in clauses:
            if clause.body and getattr(clause.body[-1], "fall_off", False):
                clause.body = clause.body[:-1] or [ast.Pass()]
    orelse, k, end = _try_else(w, m, body_end, hs, he, hi, end, clauses, inline, ends_at_body)
    if kind is TryStar and k >= hi and [type(s) for s in orelse] == [ast.Continue]:
        # The loop body's closing jump back, not an `else: continue` (the except*
        # clauses' way out jumps back too, and nothing follows in the body).
        orelse = []
    after = _break_after_statement(w, body, clauses, orelse, hs, end, hi)
    node = kind(body=body or [ast.Pass()], handlers=clauses, orelse=orelse, finalbody=[])
    node.lineno = line
    m.stmts.append(node)
    if after is not None:
        m.emit(ast.Break(), after)
    return k


def _normal_after_handler(w, hs: int, he: int) -> bool:
    """Normal flow lies in the handler's code from ``hs`` on: its clauses run
    on into it there, laid out inline. Looked for up to the exit handler of
    the first with statement from ``he`` on: the code that follows the try is
    laid out there, and the way on after the with swallows an exception is
    normal flow of its own."""
    ops, normal = w.ops, w.normal
    for k in range(hs, w.n):
        if k >= he and ops[k].name == "PUSH_EXC_INFO" and k + 1 < w.n \
                and ops[k + 1].name == "WITH_EXCEPT_START":
            return False
        if k in normal:
            return True
    return False


def _ends_at_body(w, handler, clauses, body_end, hs, he, hi, end, inline) -> bool:
    """Every clause returns or raises (or goes round the loop), and the handler
    code is laid out last whatever the code after the body was: as the else
    or after the statement it gives the same code, and the walk goes on after
    the body. Whether it does is told by where the rest was compiled."""
    stop = min(hs, hi)
    if not (end is None and body_end < stop and not inline and w.func.cold_handlers
            and w.frames.clause is None and not _compiled_before_handlers(w, body_end, stop, hs)
            and all(ends_terminal(c.body) for c in clauses)):
        return False
    if any(_falls_off_to_closing_return(c.body) for c in clauses):
        # A clause that falls off onto the function's closing return (3.10+
        # copy it onto the clause's way out) would run the code after the
        # statement: that code is the else.
        return False
    if _threaded_past_statement(w, handler, body_end, stop):
        return True
    if _leaves_through_jump(w, body_end, stop) and not _compiled_after_handlers(w, body_end, stop, hs, he):
        return False
    return not any(getattr(c.body[-1], "fall_off", False) for c in clauses) \
        or _goes_round(w, body_end, stop) or _compiled_after_handlers(w, body_end, stop, hs, he)


def _falls_off_to_closing_return(body) -> bool:
    """``body`` ends in the compiler's closing ``return None`` (a copy of it
    marked implicit), after an if too.

    >>> stmt = ast.Return(value=None); stmt.implicit = True
    >>> _falls_off_to_closing_return([stmt])
    True
    """
    last = body[-1] if body else None
    if isinstance(last, ast.If):
        return _falls_off_to_closing_return(last.body) and _falls_off_to_closing_return(last.orelse)
    return isinstance(last, ast.Return) and getattr(last, "implicit", False)


def _threaded_after(w, lo, hi) -> bool:
    """Some conditional jump in ``[lo, hi)`` goes to a jump back that a pass
    put back (``Function.rebuilt_jumps_back``: the compiler had threaded it, or
    it stands for a rotated loop's bottom test)."""
    rebuilt = w.func.rebuilt_jumps_back
    return bool(rebuilt) and any(
        o.target is not None and id(o.target) in rebuilt and o.name != "JUMP"
        for o in w.ops[lo:hi])


def _try_else(w, m, body_end, hs, he, hi, end, clauses, inline, ends_at_body):
    """(the else clause, where the walk goes on, where the statement's ways out
    join) of a try statement whose body ends at ``body_end``."""
    ops = w.ops
    orelse: List[ast.stmt] = []
    k = body_end
    else_end = _else_by_dead_exits(w, hs, end, hi) if inline else None
    if else_end is None and inline and _else_by_fall_off(w, clauses, hs, end, hi):
        # The clauses go round the loop as falling off its body would, and
        # the code after the handlers runs to the body's end: that is the else.
        else_end = hi
        for clause in clauses:
            if getattr(clause.body[-1], "fall_off", False):
                clause.body = clause.body[:-1] or [ast.Pass()]
    if else_end is not None:
        # Up to 3.9 the else sits after the handlers, and the clauses' own
        # (unreached) ways out show where the statement ends.
        orelse = w.block(end, else_end, m.stack)
        end = else_end
    if else_end is not None:
        k = end
    elif ends_at_body:
        k = body_end
    elif end is None and body_end < min(hs, hi):
        # Every clause returns or raises; the normal path's code before the
        # inline handler (or the end of the enclosing block) is the else.
        stop = min(hs, hi)
        k = he_after_handlers(w, hs, he) if stop == hs else stop
        if stop == hi:
            stop = _clause_return_end(w, stop, hs)
            k = max(k, stop)
        if ops[stop - 1].name == "JUMP" and jump_continues(w, ops[stop - 1]) \
                and w.frames.loops[-1].body_end in (hi, k):
            stop -= 1       # the try ends its loop's body: that jump goes round
        orelse = w.block(body_end, stop, m.stack)
        if len(orelse) == 1 and getattr(orelse[0], "implicit", False):
            # the closing `return None` after the statement, which a loop
            # ending the body reaches before the handler code
            orelse = []
    elif end is None and body_end == hs < hi:
        # Every clause returns or raises and the body runs into the handler
        # code, which the enclosing block holds: the walk goes on after it.
        k = he_after_handlers(w, hs, he)
    elif end is not None and (leave := _leaves_enclosing_clause(w, body_end, hs, end)) is not None:
        # The statement ends an enclosing except clause: 3.13 copies that
        # clause's way out onto the normal path too, before the handler.
        if leave == hs:
            # Each branch of the else leaves through a copy of its own (or raises):
            # falling off it would go where the clauses go.
            with w.frames.push(BranchFrame(hs, end)):
                orelse = w.block(body_end, leave, m.stack)
        else:
            orelse = w.block(body_end, leave, m.stack) if leave > body_end else []
        # (at the handler, its clauses lead nowhere after it)
        k = _handler_code_end(w, hs, None) if leave == hs else leave
    elif end is not None and (moved := _moved_loop_exit(w, body_end, hs, he, end, inline)):
        # The code after the body was compiled after the clauses, and they go
        # on round the loop: it is the code after a `while True` loop that an
        # `else: break` falls into, laid out there (3.12+).
        w.frames.loop.moved_exit = moved
        orelse = [ast.Break(lineno=ops[moved[0]].line)]
        k = end
    elif end is not None and _jumps_to_copy_of(w, body_end, end):
        # The body's way out goes to a copy of where the clauses go: the way
        # out of the enclosing except clause, which ends in a return (3.11/3.12
        # copy it onto each way there). No else.
        k = end
    elif end is not None:
        orelse = _else_before_join(w, m, body_end, hs, hi, end, inline)
        k = end
    return orelse, k, end


def _jumps_to_copy_of(w, k, end) -> bool:
    """The op at ``k`` jumps to a copy of the block at ``end`` (elsewhere), which
    ends in a return or raise and has no jump of its own."""
    op = w.ops[k] if k < w.n else None
    return op is not None and op.name == "JUMP" and copied_exit(w, end, op.target.index)


def _clause_return_end(w, stop: int, limit: int) -> int:
    """Past the ``SWAP 2; POP_EXCEPT; RETURN_VALUE`` at ``stop`` (before ``limit``)
    of an else that returns out of an enclosing except clause (or through an
    enclosing with's exit call): those ops lie past the clause's (the with's)
    covered range, where its body was cut, as a try body's return's do; else
    ``stop``."""
    ops = w.ops
    q = stop
    while q < limit and (ops[q].name in ("SWAP", "POP_TOP", "POP_EXCEPT")
                         or (ops[q].name == "LOAD_CONST" and ops[q].arg is None)
                         or (ops[q].name == "CALL" and ops[q].arg == (2, (), 2))):
        q += 1
    if stop < q < limit and ops[q].name == "RETURN_VALUE" \
            and ops[q - 1].name in ("POP_EXCEPT", "POP_TOP"):
        return q + 1
    return stop


def _else_before_join(w, m, body_end, hs, hi, end, inline):
    """The else clause of a try whose ways out join at ``end``: the normal path
    from the body's end up to the join (or to the jump that leaves for it)."""
    ops = w.ops
    stop = min(end, hs) if inline else end
    jump = next((j for j in range(body_end, stop) if ops[j].name == "JUMP"
                 and ops[j].index in w.normal), None)
    if jump is not None and ops[jump].target.index > stop and not (
            ops[jump].target.index == end
            and any(j in w.reachable for j in range(jump + 1, stop))):
        # 3.9/3.10 jump over the handlers to an else placed after them (not
        # a branch of the else going to the join, with more of it after).
        target = ops[jump].target.index
        loop = w.frames.loop
        breaks = loop is not None and target in (loop.exit, loop.break_target) and (
            end < target and not (ops[end].name == "JUMP" and ops[end].target.index == target)
            or end == target and loop.iterator and ops[jump - 1].name == "POP_TOP")
        # (a jump past the join to its loop's way out is the else's `break`,
        # unless it was threaded through a `break` at the join; so is one to
        # the join itself after the for loop's iterator is dropped, when the
        # clauses go on round the loop: 3.11)
        orelse = w.block(body_end, jump + 1 if breaks else jump, m.stack)
        if target < end:
            # (up to where the enclosing block ends: an if branch the try
            # ends jumps past the other branch to the join)
            orelse += w.block(target, min(end, hi), m.stack)
    else:
        # (a join past the end of the enclosing block: the code before it
        # there is the block's, e.g. the else of the if whose branch the
        # statement ends)
        stop = min(stop, hi)
        if body_end <= hs < stop:
            # (no jump over the handlers: the else is the code before them)
            stop = hs
        if stop == hi:
            stop = _clause_return_end(w, stop, min(end, hs))
        if stop - 1 >= body_end and ops[stop - 1].name == "JUMP" and \
                (ops[stop - 1].target.index == end
                 or (end >= hi and jump_continues(w, ops[stop - 1]))):
            stop -= 1       # the body's way out (to the join, or on round its loop)
        orelse = w.block(body_end, stop, m.stack) if stop > body_end else []
    return orelse


def _break_after_statement(w, body, clauses, orelse, hs, end, hi):
    """The op of the ``break`` after the statement when every way out of it
    leaves the loop (the clauses' own breaks go), None otherwise; an ``else:
    break`` is appended to ``orelse`` when only the body's way out leaves."""
    after = _break_after(w, hs, end, hi) if not ends_terminal(body) else None
    if after is not None and not all(isinstance(c.body[-1], ast.Break) or ends_terminal(c.body)
                                     for c in clauses):
        # The body's way out leaves the loop, a clause's goes round: `else: break`.
        orelse.append(ast.Break(lineno=after.line))
        after = None
    elif after is not None:
        # Every way out of the statement leaves the loop: one `break` after it
        # (the clauses' own jumps there read as breaks too).
        for clause in clauses:
            if isinstance(clause.body[-1], ast.Break):
                clause.body = clause.body[:-1] or [ast.Pass()]
    return after


def _compiled_before_handlers(w, lo, hi, hs) -> bool:
    """Some handler of the normal code in ``[lo, hi)`` (a try or with statement
    in it) is laid out before the handler at ``hs``: the compiler wrote that code
    before this statement's clauses, so it is the statement's else. (Handler
    code moved last keeps the order it was written in.)"""
    ops, normal = w.ops, w.normal
    cleanups = w.func.yield_from_cleanups
    return any(k in normal and (
        (ops[k].handler is not None and ops[k].handler.target.index < hs)
        # (a yield from's handler block, laid out before the handler code)
        or (cleanups and id(ops[k]) in cleanups and cleanups[id(ops[k])].index < hs))
        for k in range(lo, hi))


def _moved_loop_exit(w, body_end, hs, he, end, inline):
    """``(lo, hi)`` of the code after a ``while True`` loop laid out between a
    try body and its handlers, when the clauses join at the loop's jump back
    (``end``), that code ends in a return or raise, and its own handlers lie
    after the statement's (it was compiled after the clauses); else None."""
    ops = w.ops
    stop = min(end, hs) if inline else end
    if not w.func.cold_handlers or w.frames.loop is None or not body_end < stop \
            or w.frames.loop.moved_exit is not None or ops[end].name != "JUMP" \
            or not jump_continues(w, ops[end]) or w.frames.loop.iterator:
        return None
    if ops[stop - 1].name not in ("RETURN_VALUE", "RAISE_VARARGS", "RERAISE") \
            or not all(k in w.normal for k in range(body_end, stop)) \
            or not _compiled_after_handlers(w, body_end, stop, hs, he):
        return None
    return body_end, stop


def _leaves_through_jump(w, lo, hi) -> bool:
    """A conditional jump in ``[lo, hi)`` goes to a JUMP round the innermost
    loop, not round it itself: 3.13 sends the ways out of a try's else to the
    statement's end, where the jump round the loop is, so that code is the else."""
    if w.frames.loop is None:
        return False
    continues = w.frames.loop.continues
    ops = w.ops
    for k in range(lo, hi):
        t = ops[k].target
        if t is not None and ops[k].name != "JUMP" and t.name == "JUMP" \
                and t.target.index in continues and t.index >= hi:
            return True
    return False


def _threaded_past_statement(w, handler, lo, hi) -> bool:
    """Handler code inside the try body (a with's exit, an inner try's clause)
    leaves it through a jump to ``[lo, hi)`` that ``handler`` does not cover,
    though it covers the op before: the jump went to the body's end and on
    through the statement's own jump over its handlers, which the compiler
    threaded (3.11+), so ``[lo, hi)`` is after the statement. (The same jump
    to an else, which the body falls into, stays covered.)

    ``try: with f: pass`` / ``except E: continue`` / ``g()``: the with's exit
    ends ``POP_EXCEPT; JUMP_BACKWARD_NO_INTERRUPT g()``, its jump uncovered."""
    ops, normal, covered = w.ops, w.normal, w.regions.covered
    for k in range(1, w.n):
        op = ops[k]
        if op.name == "JUMP" and k not in normal and lo <= op.target.index < hi \
                and covered(ops[k - 1], handler) and not covered(op, handler):
            return True
    return False


def _goes_round(w, lo, hi) -> bool:
    """A conditional jump in ``[lo, hi)`` goes straight on round the innermost
    loop: that code ends the loop's body, it is not the else of a try there
    (3.13 sends the ways out of an else to the statement's end first), so a
    clause's jump round the loop is its own ``continue``."""
    if not w.frames.loops:
        return False
    continues = w.frames.loops[-1].continues
    ops = w.ops
    return any(ops[k].target is not None and ops[k].name != "JUMP"
               and ops[k].target.index in continues for k in range(lo, hi))


def _compiled_after_handlers(w, lo, hi, hs, he) -> bool:
    """Some handler of the normal code in ``[lo, hi)`` that does not cover the try
    statement itself (one of a try or with statement in that code) is laid out
    after the handler code at ``hs`` (which ends at its clean-up ``he``): the
    compiler wrote that code after this statement's clauses."""
    ops = w.ops
    enclosing = ops[he].handler if he < w.n else None
    cleanups = w.func.yield_from_cleanups
    for k in range(lo, hi):
        h = ops[k].handler
        if h is not None and h.target.index > hs and k in w.normal and not (
                enclosing is not None and h.target is enclosing.target):
            return True
        # (a yield from's handler block, laid out after the handler code)
        before = cleanups.get(id(ops[k])) if cleanups else None
        if before is not None and before.index >= hs and k in w.normal:
            return True
    return False


def _break_after(w, hs, end, hi):
    """The try body's closing jump, when it goes to ``end`` (where the clauses
    go too) and that is the way out of the loop whose body the statement ends."""
    if end is None or end < hi or not w.frames.loops or hs < 1:
        return None
    loop = w.frames.loops[-1]
    jump = w.ops[hs - 1]
    if end not in (loop.exit, loop.break_target) or jump.name != "JUMP" \
            or jump.target.index != end:
        return None
    return jump


def _leaves_enclosing_clause(w, body_end, hs, end) -> Optional[int]:
    """Where the normal path ends when the statement ends an enclosing except
    clause, which its clauses leave through (at ``end``): at the copy of that
    clause's way out (``POP_EXCEPT; [name = None; del name;] JUMP after``) just
    before the handler, or at the handler when the path's last branch raises
    (then each branch that reaches the way out has a copy). None otherwise.
    (That way out may go on round the loop the clause's try ends the body of.)"""
    clause = w.frames.clause
    if clause is None:
        return None
    exit_, depth = clause.exit, clause.loop_depth
    through = w.clause_exit_at(end) if end < w.n else None
    if through is None or len(w.frames.loops) != depth or \
            (through[0] != exit_ and not w.is_loop_jump(w.ops[through[1]])):
        return None
    copy = next((q for q in (hs - 2, hs - 5)
                 if q >= body_end and w.clause_exit_at(q) == (through[0], hs - 1)), None)
    if copy is not None:
        return copy
    if body_end < hs and w.ops[hs - 1].name in ("RAISE_VARARGS", "RERAISE", "RETURN_VALUE") \
            and all(q in w.normal for q in range(body_end, hs)):
        return hs
    return None


def _else_by_dead_exits(w, hs, end, hi) -> Optional[int]:
    """Where an else placed at ``end`` after the handlers ends, when every clause
    leaves by return/break/continue and its unreached ``POP_EXCEPT; JUMP T`` (the
    clause's end) goes past the else, or to the next iteration of the loop whose
    body the statement ends; None otherwise."""
    ops = w.ops
    if end is None or not hs < end <= hi or ops[hs - 1].name != "JUMP" \
            or ops[hs - 1].target.index != end:
        return None
    # (`except E as e:` unbinds e between the two: clause_exit_at steps over that)
    exits = [(k, w.clause_exit_at(k)) for k in range(hs, end - 1) if ops[k].name == "POP_EXCEPT"]
    targets = {way[0] for k, way in exits
               if way is not None and k not in w.reachable and way[1] not in w.reachable}
    if len(targets) != 1:
        return None
    target = targets.pop()
    if end < target <= hi:
        return target
    if target < hs and any(target in loop.continues and loop.body_end == hi
                           for loop in w.frames.loops[-1:]):
        return hi
    return None


def _else_by_fall_off(w, clauses, hs, end, hi) -> bool:
    """The statement ends its loop's body with an else placed after the
    handlers at ``end``: the body jumps there over them, each clause leaves,
    some by a jump round the loop with no dead way out after it (which an
    explicit ``continue`` leaves where the compiler keeps dead code): its
    falling off."""
    ops = w.ops
    if not w.func.dead_ways_out:
        return False        # (then a continue leaves no sign it was written)
    if end is None or not hs < end < hi or ops[hs - 1].name != "JUMP" \
            or ops[hs - 1].target.index != end or not w.frames.loops \
            or not w.flows_to_next_iteration(w.frames.loops[-1], hi):
        return False
    if not all(ends_terminal(c.body) for c in clauses):
        return False
    return any(getattr(c.body[-1], "fall_off", False) for c in clauses)


def jump_continues(w, jump) -> bool:
    return any(jump.target.index in loop.continues for loop in w.frames.loops[-1:])


def extend_inline_body(w, i, body_end, hs) -> int:
    """Ops that cannot raise are left out of the exception table, so a body's
    ``if c: return x`` ends outside it; take in what the body's own forward
    jumps land before (up to the handler, or ``hs``: the end of the enclosing block)."""
    ops = w.ops
    changed = True
    while changed:
        changed = False
        for k in range(i, body_end):
            t = ops[k].target.index if ops[k].target is not None else -1
            if body_end < t < hs and ops[k].name != "JUMP" and not w.is_loop_jump(ops[k]):
                body_end = t
                changed = True
    return body_end


def _constant_return_end(w, m, k, stop) -> int:
    """Where the body ends when it ends in ``return c`` (``c`` a constant) and
    the else is laid out after the handlers (``Function.else_after_handlers``):
    the blocks are unwound before the constant loads, so ``[POP_TOP or
    __exit__ call...;] LOAD_CONST c; RETURN_VALUE`` at ``k`` lies past the
    covered ops (enclosing for loops drop their iterators, with statements
    call their exits), and nothing normal flow reaches follows it before
    ``stop``; ``k`` otherwise."""
    ops = w.ops
    exits = [v.exit_call for v in reversed(m.stack) if isinstance(v, WithExit)]
    j = k
    while j < stop:
        if ops[j].name == "POP_TOP":
            j += 1
        elif exits and names(ops, j, j + len(exits[0])) == exits[0]:
            j += len(exits.pop(0))
        else:
            break
    if j + 1 < stop and ops[j].name == "LOAD_CONST" and ops[j + 1].name == "RETURN_VALUE" \
            and all(q in w.normal for q in range(k, j + 2)) \
            and not any(q in w.reachable for q in range(j + 2, stop)):
        return j + 2
    return k


def _try_body(w, m, i, body_end, handler):
    """Walk a try body; ``return expr`` in it ends with a RETURN_VALUE just past
    the covered range (returning cannot raise), which belongs to the body."""
    sub = StackMachine(w.ctx, m.stack)
    end = max(body_end, w.run_guarded(sub, i, body_end, handler))
    ops, covered = w.ops, w.regions.covered
    while body_end < end < w.n and end in w.normal and covered(ops[end], handler):
        # The body goes on past the handler code of a statement in it: the code
        # after a with statement whose body always leaves, which only a
        # swallowed exception reaches, laid out after that handler code.
        body_end = end
        while body_end < w.n and covered(ops[body_end], handler):
            body_end += 1
        end = max(body_end, w.run_guarded(sub, end, body_end, handler))
    # So does a loop's iterator drop before a return or break (SWAP 2; POP_TOP;
    # RETURN_VALUE or POP_TOP; JUMP), and an enclosing except clause's end
    # (SWAP 2; POP_EXCEPT; RETURN_VALUE).
    while end < w.n and not terminal(sub):
        op = w.ops[end]
        if _settled(sub.stack, m.stack) and not _drops_iterator(op, sub):
            break
        if not (op.name in ("SWAP", "POP_TOP", "POP_EXCEPT", "RETURN_VALUE")
                or (op.name == "JUMP" and w.is_loop_jump(op))
                or _constant_returned(w, sub, m, end)):
            break
        # (a SWAP before an enclosing with's __exit__ call steps over the call)
        end = max(end + 1, w.step(sub, end, end + 1))
        if op.name == "POP_EXCEPT" and end + 1 < w.n \
                and name_epilogue(w.ops, end, w.ops[end + 1].arg):
            end += 3        # (the enclosing `except E as name` unbinds its name)
    if len(sub.stack) == len(m.stack) + 1 and not terminal(sub):
        # `return value` leaves through an enclosing finally's copy.
        copy = w.finally_copy_at(end)
        if copy and end + copy < w.n and w.ops[end + copy].name == "RETURN_VALUE":
            w.step(sub, end + copy, end + copy + 1)
            end += copy + 1
    if len(sub.stack) != len(m.stack) and not terminal(sub):
        raise DecompileFailure("try body leaves values on the stack")
    if returns_before_dead_code(w, sub.stmts, end) and w.ops[end].name == "JUMP":
        # (the body's own way out after its last return, unreached)
        sub.stmts[:] = else_before_dead_tail(sub.stmts)
    return sub.stmts, end


def _constant_returned(w, sub, m, k) -> bool:
    """``return <constant>`` from a loop: the constant loads after the loop's
    iterator is dropped (``POP_TOP; LOAD_CONST; RETURN_VALUE``), past the
    covered range like the rest of the way out."""
    return w.ops[k].name == "LOAD_CONST" and k + 1 < w.n and w.ops[k + 1].name == "RETURN_VALUE" \
        and len(sub.stack) < len(m.stack)


def _drop_pass(body):
    return [s for s in body if not isinstance(s, ast.Pass)]


def _clause_tail(w, m, k, clause_end):
    """Statements after a clause's POP_EXCEPT, up to its return/raise or jump."""
    sub = StackMachine(w.ctx, m.stack)
    with w.frames.push(GuardFrame(code=True)):
        while k < clause_end and not terminal(sub) and w.ops[k].name != "JUMP":
            k = w.step(sub, k, clause_end)
    if len(sub.stack) != len(m.stack) and not terminal(sub):
        raise DecompileFailure("except clause tail leaves values on the stack")
    return sub.stmts or [ast.Pass()]


def _join(w, body_end, hs, he, hi, exits, tails, inline) -> Optional[int]:
    """Where the normal path and the except clauses meet again (None: nowhere)."""
    ops = w.ops
    targets = sorted({t for t in exits if t is not None})
    if targets:
        return targets[-1]
    # (A handler past the end of the enclosing block lies after other branches
    # of the if whose branch the statement ends: what is before or after it
    # says nothing of this statement.)
    inline = inline and hs <= hi
    if inline and ops[hs - 1].name == "JUMP" and ops[hs - 1].target.index >= he:
        return ops[hs - 1].target.index
    start = body_end
    if inline and ops[hs - 1].name == "JUMP" and ops[hs - 1].target.index > hs:
        start = ops[hs - 1].target.index        # 3.10: the else sits after the handlers
    for tail, k in tails:
        # A clause ended in a copy of the code after the try; find the original.
        for j in range(start, hi):
            if inline and j < hs <= j + len(tail):
                break
            if names(ops, j, j + len(tail)) == tail and j in w.normal \
                    and not _jumped_over(ops, start, j) and _copy_lines(w, k, j, len(tail)):
                if w.func.cold_handlers and _compiled_after_handlers(w, body_end, j, hs, he):
                    # the code up to there follows the statement, not its else
                    break
                return j
    if inline:
        return he_after_handlers(w, hs, he)
    return None


def _copy_lines(w, k, j, size) -> bool:
    """The ops at ``k`` may be a copy of those at ``j``: a copy keeps the lines
    of what it copies (an explicit ``return None`` of the clause's own is on a
    line of the clause), except the compiler's closing ``return None``, which
    has no line of its own and takes that of the code before each copy."""
    ops = w.ops
    implicit = w.ctx.implicit_returns
    return ops[k].line == ops[j].line or k + size - 1 in implicit or j + size - 1 in implicit


def _jumped_over(ops, lo, j) -> bool:
    """A forward jump in ``[lo, j)`` lands past ``j``: ``j`` is inside a statement
    there (a copy of the tail in a branch), not where the try statement ends."""
    return any(o.target is not None and o.target.index > j
               for o in ops[lo:j])


def he_after_handlers(w, hs, he):
    """First op after an inline handler's code (and its clean-up block)."""
    k = hs
    while k < w.n and k not in w.normal:
        k += 1
    return k


def _clauses(w, m, hs, he, handler):
    """Parse the except clauses of a handler; returns (ExceptHandler nodes, exit targets)."""
    ops = w.ops
    cleanup = w.regions.cleanup_of(handler)
    clauses = []
    exits = []
    tails = []
    p = hs + 1
    base = list(m.stack) + [ExcInfo()]
    while p < he:
        op = ops[p]
        if op.name == "RERAISE":
            break
        type_expr = None
        next_clause = None
        if op.name not in ("POP_TOP",) and not op.name.startswith("STORE"):
            sub = StackMachine(w.ctx, base + [CaughtException()])
            j = clause_type_end(w, sub, p, he, "CHECK_EXC_MATCH", "except")
            if j >= he or ops[j + 1].name != "POP_JUMP_IF_FALSE":
                raise DecompileFailure("except clause without a type test")
            type_expr = sub.value(sub.pop())
            next_clause = ops[j + 1].target.index
            p = j + 2
        bind = ops[p]
        name = None
        if bind.name.startswith("STORE"):
            name = bind.arg
        elif bind.name != "POP_TOP":
            raise DecompileFailure("except clause does not bind or drop the exception")
        p += 1
        clause_end = next_clause if next_clause is not None else he
        body, exit_target, k = _clause_body(w, p, clause_end, base, cleanup, name)
        exits.append(exit_target)
        node = ast.ExceptHandler(type=type_expr, name=name, body=body or [ast.Pass()])
        if exit_target is None and not ends_terminal(body) and k < clause_end:
            tails.append((tail_signature(ops, k, clause_end), node, k, clause_end))
        node.lineno = ops[p - 1].line
        clauses.append(node)
        if next_clause is None:
            break
        if next_clause <= p:
            raise DecompileFailure("except clauses out of order")
        p = next_clause
    if not clauses:
        raise DecompileFailure("try without except clauses")
    return clauses, exits, tails


_MAX_NESTING = 64


def _clause_body(w, p, clause_end, base, cleanup, name):
    """Walk one clause's body; return (statements, JUMP target or None, end index)."""
    ops = w.ops
    stop = clause_end
    unbind = ops[p].handler if name is not None and p < clause_end else None
    for _ in range(_MAX_NESTING):
        # (the body's first op may be a nested try's: the unbinding covers that)
        if unbind is None or name_epilogue(ops, unbind.target.index, name):
            break
        unbind = w.regions.parent(unbind)
    if unbind is not None and unbind.target.index > p:
        # `except E as name`: the block that unbinds name on the way out is not body.
        stop = min(stop, unbind.target.index)
    body_end = clause_body_end(w, p, stop, cleanup)
    sub = StackMachine(w.ctx, base)
    # (not the way out of a clause nested in this one: the clean-up still covers it)
    hint = next((t for t in map(w.clause_exit_at, range(p, stop))
                 if t is not None and not w.is_loop_jump(ops[t[1]])
                 and not (cleanup is not None and w.regions.covered(ops[t[1]], cleanup))), None)
    with w.frames.push(ClauseFrame(hint and hint[0], len(w.frames.loops), stop)):
        k = max(body_end, w.run_guarded(sub, p, body_end, cleanup, handler_code=True))
    # (A loop's break may leave the clause by a copy of its exit, the only one.)
    exit_target = hint[0] if hint is not None and k >= stop else None
    if k < clause_end and ops[k].name == "POP_EXCEPT":
        pop = ops[k]
        sub.step(pop)
        k += 1
        if name is not None and name_epilogue(ops, k, name):
            k += 3          # before a return value's last shuffles too
        moved = _moved_break(w, pop, k, clause_end)
        if moved is not None:
            # `break` out of a `while True` loop, and the code after the loop,
            # laid out here: the walk of the loop writes it after the loop.
            w.frames.loop.moved_exit = moved
            sub.emit(ast.Break(), pop)
            k = moved[1]
        # `return value` inside the clause finishes after POP_EXCEPT, and a
        # return or break out of a loop drops the loop's iterator there.
        rest = base[:-1]
        way_out = k
        with w.frames.push(GuardFrame(code=True)):
            while k < clause_end and not terminal(sub):
                if _settled(sub.stack, rest) and not _drops_iterator(ops[k], sub) \
                        and not _leaves_loop_through_finally(w, sub, k) \
                        and not _returns_constant_through_finally(w, k):
                    break
                if ops[k].name == "JUMP" and not w.is_loop_jump(ops[k]):
                    break
                k = w.step(sub, k, clause_end)
        if name is not None and name_epilogue(ops, k, name):
            k += 3
        if not terminal(sub) and k + 1 < clause_end and w.clause_exit_at(k) is not None \
                and any(isinstance(v, ExcInfo) for v in rest):
            # 3.13 sends the clause on through the enclosing clause's own way out.
            exit_target = k
        elif not terminal(sub) and k < clause_end and ops[k].name == "JUMP":
            if w.is_loop_jump(ops[k]):
                w.jump(sub, k, clause_end)          # continue/break out of the clause
                # Up to 3.9 an explicit `continue` leaves the clause's own way
                # out after it, dead; without that it may be the clause ending.
                # Not after copies of enclosing finally bodies: falling off the
                # clause would run them and then the code after them. Not a
                # `continue` statement's own jump (Function.jump_statements).
                sub.stmts[-1].fall_off = isinstance(sub.stmts[-1], ast.Continue) and \
                    not (k + 1 < w.n and ops[k + 1].name == "POP_EXCEPT") \
                    and id(ops[k]) not in w.func.jump_statements \
                    and not _leaves_loop_through_finally(w, sub, way_out)
            else:
                exit_target = ops[k].target.index
    if returns_before_dead_code(w, sub.stmts, k) and k < clause_end \
            and w.clause_exit_at(k) is not None:
        # (the clause's own way out, POP_EXCEPT; JUMP, after its last return, unreached)
        sub.stmts[:] = else_before_dead_tail(sub.stmts)
    return sub.stmts, exit_target, k


def _returns_constant_through_finally(w, k) -> bool:
    """``return c`` (``c`` a constant) ends the clause at ``k``, inside a try with
    a finally: the copies of the enclosing finally bodies come first, then the
    constant loads (a return statement's, marked "explicit" up to 3.9: no copy
    of the code after the statement, which 3.10+ may copy there)."""
    ops = w.ops
    j = w.past_copies(k)
    return k < j < w.n - 1 and ops[j].name == "LOAD_CONST" \
        and ops[j + 1].name == "RETURN_VALUE" and ops[j + 1].arg == "explicit"


def returns_before_dead_code(w, stmts, k) -> bool:
    """``stmts`` end in a return whose RETURN_VALUE is right before ``k``, and
    the op at ``k`` is unreached: up to 3.9, the block's own way out left by an
    if/else whose branches return (see :func:`.clauses.else_before_dead_tail`)."""
    return bool(stmts) and isinstance(stmts[-1], ast.Return) and 0 < k < w.n \
        and w.ops[k - 1].name == "RETURN_VALUE" and k not in w.reachable


def _moved_break(w, pop, k: int, clause_end: int):
    """``(lo, hi)`` of the code after a ``while True`` loop that a ``break``
    in an except clause (its POP_EXCEPT ``pop``) runs into at ``k``, or None.
    3.10+ lay that code out there when the break is the only way to it. A
    ``return`` of the clause's own would give POP_EXCEPT its line; this code
    is on a line after every other line of the loop (up to 3.10 the handler
    lies inside it), and the break's on its own."""
    loop = w.frames.loop
    if loop is None or loop.iterator or loop.moved_exit is not None or loop.break_target is not None \
            or loop.body_end is None or loop.exit != loop.body_end + 1:
        return None
    block = exit_block(w.ops, k)
    if block is None or k + len(block) > clause_end:
        return None
    line = w.ops[k].line
    if line is None or pop.line is None or line <= pop.line \
            or any(o.line is not None and o.line >= line and not k <= j < k + len(block)
                   for j, o in enumerate(w.ops[loop.header:loop.body_end], loop.header)):
        return None
    return k, k + len(block)


def _settled(stack, rest) -> bool:
    """Whether ``stack`` is back to ``rest`` (no value of a statement pending)."""
    return len(stack) == len(rest) and all(a is b for a, b in zip(stack, rest))


def _drops_iterator(op, m) -> bool:
    return op.name == "POP_TOP" and bool(m.stack) and isinstance(m.stack[-1], Iterator)


def _leaves_loop_through_finally(w, m, k) -> bool:
    """``continue``/``break`` of a clause inside a try/finally (or with) in the
    loop: the clause's way out at ``k`` runs the copies of the enclosing finally
    bodies (and ``__exit__`` calls) before its jump or the iterator's drop, so
    those belong to the clause, not to the code after the statement."""
    j = w.past_copies(k)
    if j == k or j >= w.n:
        return False
    op = w.ops[j]
    return (op.name == "JUMP" and w.is_loop_jump(op)) or _drops_iterator(op, m) \
        or w.copied_while_break(j) is not None


def ends_terminal(body) -> bool:
    """``body`` never falls off its end (``if c: return x`` / ``else: raise`` too).

    >>> ends_terminal(ast.parse("if c:\\n return 1\\nelse:\\n raise").body)
    True
    """
    last = body[-1] if body else None
    if isinstance(last, ast.If):
        return ends_terminal(last.body) and ends_terminal(last.orelse)
    if isinstance(last, ast.Try) and last.handlers and not last.finalbody:
        return ends_terminal(last.orelse or last.body) \
            and all(ends_terminal(h.body) for h in last.handlers)
    if isinstance(last, ast.Try) and not last.handlers and not last.orelse:
        return ends_terminal(last.body) or ends_terminal(last.finalbody)
    if isinstance(last, (ast.With, ast.AsyncWith)):
        # (not a raise: the manager may swallow it, and the code after runs)
        inner = last.body[-1]
        return isinstance(inner, (ast.Return, ast.Break, ast.Continue)) \
            or (isinstance(inner, (ast.With, ast.AsyncWith)) and ends_terminal(last.body))
    return isinstance(last, TERMINALS)


def endless(body) -> bool:
    """``body`` ends in a ``while True`` loop without a ``break`` (no way out of it
    after, so no ``__exit__`` call: the handler follows the loop's jump back)."""
    last = body[-1] if body else None
    if not isinstance(last, ast.While) or last.orelse \
            or not (isinstance(last.test, ast.Constant) and last.test.value is True):
        return False
    return not any(isinstance(n, ast.Break) for n in _loop_level(last.body))


def _loop_level(stmts):
    """The statements of a loop body outside the loops nested in it."""
    for s in stmts:
        yield s
        if not isinstance(s, (ast.While, ast.For, ast.AsyncFor)):
            for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                yield from _loop_level(getattr(s, field, None) or [])


# -- finally -----------------------------------------------------------------------------

def _statement_copy(w, stack, k, hi, stmts) -> int:
    """Where a copy of ``stmts`` starting at ``k`` ends: the finally body on the
    normal way out, when its own jumps (an ``if`` in it) make the copy's ops differ
    from the handler's (they end at the code after the statement, not at RERAISE)."""
    want = [ast.dump(s) for s in stmts]
    sub = StackMachine(w.ctx, stack)
    j = k
    while len(sub.stmts) < len(want) and j < hi:
        j = w.step(sub, j, hi)
    got = [ast.dump(s) for s in _drop_copied_returns(sub.stmts)]
    if got != want or len(sub.stack) != len(stack):
        raise DecompileFailure("no finally copy after the try body")
    return j


def _drop_copied_returns(stmts):
    """The compiler's ``return None`` copied to the ends of a statement's branches
    (3.10+ copies the code after the statement there when it is that small)."""
    stmts = list(stmts)
    while stmts and isinstance(stmts[-1], ast.Return) and getattr(stmts[-1], "implicit", False):
        stmts.pop()
    if stmts and isinstance(stmts[-1], ast.If):
        last = stmts[-1]
        stmts[-1] = ast.If(test=last.test, body=_drop_copied_returns(last.body),
                           orelse=_drop_copied_returns(last.orelse))
    elif stmts and isinstance(stmts[-1], ast.With):
        # (read as `return None` in the body: it loads after the __exit__ call,
        # on the with statement's line)
        last = stmts[-1]
        stmts[-1] = ast.With(items=last.items, body=_drop_copied_returns(last.body))
    return stmts


class FinallyOps(list):
    """The op names of a finally body, and the ``handler`` that runs it on an
    exception: the copies on the ways out of the try body lie outside what that
    handler covers (the same statements inside the body are no copy)."""
    handler = None

    def copied_at(self, ops, k) -> bool:
        """A copy of the body starts at ``k``: the same ops, but where a branch of
        the body ends (``RERAISE 0``) the copy goes on its way out (``return``
        value or a jump) instead."""
        if k + len(self) > len(ops):
            return False
        for want, op in zip(self, ops[k:k + len(self)]):
            got = (op.name, op.arg if op.target is None else None)
            if got != want and not (want == ("RERAISE", 0)
                                    and op.name in ("RETURN_VALUE", "JUMP")):
                return False
        return True

    def copy_end(self, ops, k) -> Optional[int]:
        """Where a copy of the body starting at ``k`` ends when a ``break`` in it
        (a ``RERAISE 0`` short of the end) goes on to a copy of the code after
        the statement (``... RETURN_VALUE``, that code itself following the
        copy); None when there is no such copy."""
        i = k
        tails = set()
        last = len(self) - 1
        for n, want in enumerate(self):
            if i >= len(ops):
                return None
            op = ops[i]
            if (op.name, op.arg if op.target is None else None) == want or (
                    want == ("RERAISE", 0) and op.name in ("RETURN_VALUE", "JUMP")):
                i += 1
                continue
            if want != ("RERAISE", 0) or n == last:
                return None
            j = i
            while j < len(ops) and j - i < 6 and ops[j].target is None \
                    and ops[j].name != "RETURN_VALUE":
                j += 1
            if j >= len(ops) or ops[j].name != "RETURN_VALUE":
                return None
            tails.add(tuple(names(ops, i, j + 1)))
            i = j + 1
        if not tails or any(list(t) != names(ops, i, i + len(t)) for t in tails):
            return None
        return i


def copied_at(ops, k, seq) -> bool:
    """``seq`` (op names, or :class:`FinallyOps`) is copied at ``k``."""
    if isinstance(seq, FinallyOps):
        return seq.copied_at(ops, k)
    return names(ops, k, k + len(seq)) == seq


def _finally_end(op, cleanup) -> bool:
    """``RERAISE 0`` that ends a finally body (covered by the clean-up, not by a
    try statement nested in the body)."""
    return op.name == "RERAISE" and op.arg == 0 and cleanup is not None \
        and op.handler is not None and cleanup.same_place(op.handler)


def finally_end(w, op) -> bool:
    """``op`` ends the finally body being walked (on one of its paths)."""
    cleanup = w.frames.finally_cleanup
    return cleanup is not None and _finally_end(op, cleanup)


def _try_finally(w, m, i, hi, handler, hs, he, line) -> int:
    ops = w.ops
    cleanup = w.regions.cleanup_of(handler)
    j = hs + 1
    while j < w.n and cleanup is not None and _handler_code(w, ops[j], handler, cleanup):
        j += 1
    r = j - 1
    # The body's end is a RERAISE 0 under the clean-up itself; 3.10+ copies it to
    # the end of each branch, so it is the last one, and the others end branches.
    # (Not one in the handler code of a with statement in the body, laid out
    # after the body: the code after the with, copied into its way out.)
    flow = flow_from(w, hs + 1, r)
    while r > hs and not (_finally_end(ops[r], cleanup) and r in flow):
        r -= 1
    if r <= hs:
        r = j - 1
        while r > hs and not _finally_end(ops[r], cleanup):
            r -= 1
    if r <= hs:
        raise DecompileFailure("finally handler without its RERAISE")
    fin_lo, fin_hi = hs + 1, r
    fin_ops = FinallyOps(names(ops, fin_lo, fin_hi))
    fin_ops.handler = handler
    with w.frames.push(FinallyBodyFrame(cleanup)):
        finalbody = w.guarded_block(fin_lo, fin_hi,
                                    list(m.stack) + [ExcInfo(), CaughtException()],
                                    cleanup, handler_code=True)
    limit = hs if hs > i else hi
    body_end = try_body_end(w, i, hi, handler, limit)
    body_end = _extend_to_finally_copy(w, i, body_end, fin_ops, limit)
    sub = StackMachine(w.ctx, m.stack)
    with w.frames.push(FinallyFrame(fin_ops)):
        # (a last statement's code may run on past the covered range: a with
        # statement over its inline handler)
        k = max(body_end, w.run_guarded(sub, i, body_end, handler))
    k, copies = _normal_way_out(w, m, sub, _over_inline_handlers(w, k), hi, fin_ops, fin_lo, finalbody)
    body = sub.stmts
    if not ends_terminal(body) and not _settled(sub.stack, m.stack):
        _go_on_with_values_left(sub, m)
    if len(body) == 1 and isinstance(body[0], (ast.Try, TryStar)) and not body[0].finalbody:
        node = body[0]
        node.finalbody = finalbody or [ast.Pass()]
    else:
        node = ast.Try(body=body or [ast.Pass()], handlers=[], orelse=[],
                       finalbody=finalbody or [ast.Pass()])
    node.lineno = line
    # (op by op the finally body's: the line map gives the copy its lines)
    node._copies = copies
    m.stmts.append(node)
    if k < w.n and ops[k].name == "JUMP" and k < hs < ops[k].target.index:
        k = ops[k].target.index          # over an inline handler
    elif k == hs:
        k = he_after_handlers(w, hs, he)
    return k


def _normal_way_out(w, m, sub, k, hi, fin_ops, fin_lo, finalbody):
    """(where the walk goes on, copied op offset -> the finally body's op
    offset) past the copy of the finally body the normal way out of the try
    body runs, and a ``return`` of the body that comes after that copy."""
    ops = w.ops
    copies = {}
    if ends_terminal(sub.stmts) and len(sub.stack) <= len(m.stack):
        return k, copies
    if copied_at(ops, k, fin_ops):
        copies = {ops[k + n].offset: ops[fin_lo + n].offset for n in range(len(fin_ops))}
        k += len(fin_ops)
    elif (copy_end := fin_ops.copy_end(ops, k)) is not None:
        k = copy_end
    else:
        k = _statement_copy(w, sub.stack, k, hi, finalbody)
    pending = len(sub.stack) > len(m.stack)
    if pending:
        k = through_enclosing_finally(w, k, sub)
    if pending and k < w.n and ops[k].name == "RETURN_VALUE":
        w.step(sub, k, k + 1)
        k += 1
    elif _returns_constant_from_body(ops, k, ops[fin_lo]):
        # `return constant` in the body loads its value after the finally
        # copy, on its own line (code after the statement comes later), or
        # (3.11) on the finally's, where only `return None` may be the
        # compiler's own.
        w.run(sub, k, k + 2)
        k += 2
    return k, copies


def _go_on_with_values_left(sub: StackMachine, m: StackMachine) -> None:
    """A try body that ran part of an expression: Dynamo's try/finally around
    the call that breaks its graph takes the callee and its arguments from the
    stack, and leaves the result there, with the values around it, for the
    resume call after the statement. No source leaves a value across a
    statement: the body keeps what it left in temporaries (at its end, inside
    the try: the call stays protected), and the code after the statement
    goes on with them::

        try:
            stack_6 = stack_5('break')
        finally:
            cm.__exit__(None, None, None)
    """
    sub.stmts.extend(spill_before_block(sub))
    m.stack[:] = sub.stack


def through_enclosing_finally(w, k, sub=None) -> int:
    """Past the copies of the enclosing finally bodies that ``return value`` runs
    on its way out (its value on the stack), when its RETURN_VALUE follows them;
    with ``sub`` (the machine holding the value), past the ``__exit__`` calls of
    enclosing with statements too (``SWAP 2; <exit call>``)."""
    ops = w.ops
    j = k
    exits = 0
    for frame in reversed(w.frames.copies):
        seq = frame.copy
        if isinstance(frame, FinallyFrame):
            guard = seq.handler
            if not seq.copied_at(ops, j) \
                    or (guard is not None and w.regions.covered(ops[j], guard)):
                break
            j += len(seq)
        elif sub is not None and j < w.n and ops[j].name == "SWAP" and ops[j].arg == 2 \
                and names(ops, j + 1, j + 1 + len(seq)) == seq:
            j += 1 + len(seq)
            exits += 1
        else:
            break
    if not (k < j < w.n and ops[j].name == "RETURN_VALUE"):
        return k
    for _ in range(exits):
        # (the exit functions lie under the value, innermost first)
        value = sub.pop()
        if not isinstance(sub.pop(), WithExit):
            raise DecompileFailure("return through a with statement without its exit")
        sub.push(value)
    return j


def _returns_constant_from_body(ops, k, fin_first) -> bool:
    if not (k + 1 < len(ops) and ops[k].name == "LOAD_CONST" and ops[k + 1].name == "RETURN_VALUE"
            and ops[k].line is not None and fin_first.line is not None):
        return False
    return ops[k].line < fin_first.line or \
        (ops[k].arg is not None and ops[k].line == ops[k - 1].line)


def _over_inline_handlers(w, k) -> int:
    """Past the handler code of the body's last statement, when the body's
    closing jump leads over it (a with or try that ends an if branch)."""
    ops = w.ops
    if 0 < k < w.n and ops[k - 1].name == "JUMP" and ops[k - 1].target.index > k \
            and all(j not in w.normal for j in range(k, ops[k - 1].target.index)):
        return ops[k - 1].target.index
    return k


def _handler_code(w, op, handler, cleanup) -> bool:
    """Whether ``op`` is ``handler``'s own code (maybe nested in it), not code of
    a statement inside the try body that the layout put after the handler."""
    h = op.handler
    for _ in range(64):
        if h is None or handler.same_place(h):
            return False
        if cleanup.same_place(h):
            return True
        h = w.regions.parent(h)
    return False


def _extend_to_finally_copy(w, i, body_end, fin_ops, limit) -> int:
    """A branch of the body may leave by its own copy of the finally body (3.10+
    copies the closing ``return None`` and what runs before it into each way
    out): the body runs to the last copy its forward jumps land on."""
    ops = w.ops
    for k in range(i, body_end):
        t = ops[k].target.index if ops[k].target is not None else -1
        if body_end < t < limit and not w.is_loop_jump(ops[k]) \
                and copied_at(ops, t, fin_ops):
            body_end = t
    return body_end
