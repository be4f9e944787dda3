"""if statements: an ``if`` and its ``else`` (or ``elif``) read from the chain
of conditional jumps before them, and what else a test can end: an
``assert``, a conditional expression, a ``break`` or ``continue`` that is the
whole branch.

The shape, in normalised IR::

    test segments (jumps to E when the test fails)     (see .conditionals)
    then branch; [JUMP J]                              J: where both go on
    E: else branch
    J: ...

Where the branches join comes from the control-flow graph (:mod:`.joins`:
the test's post-dominator within the block being walked). What is left here
is what the graph cannot tell: the compiler drops the jump over the else
where the then branch cannot fall off its end (a return, raise, break or
continue), so ``if c: return`` then B reads like ``if c: return`` ``else:
B`` (up to 3.9 an unreached jump stays behind the return: the layout tells);
it copies small exits into each branch (3.10+), a copy the graph sees as
another way out. Each function takes the walker
(``w``) whose ops it reads and whose blocks it walks; the branches are walked
inside a :class:`~.frames.BranchFrame`, which tells a jump to the join from a
``break``.

Example (tests/structure_ops.py builds such op lists by hand)::

    if a:                   LOAD_FAST a; POP_JUMP_IF_FALSE E
        f()                 ... f() ...; JUMP J
    else:               E:  ... g() ...
        g()             J:
"""
from __future__ import annotations

import ast
from typing import Optional

from ...bytecode.ir import NO_FALLTHROUGH
from ..astcompat import at
from .conditionals import CONDITIONAL, folds_a_not, negate
from ..expressions import StackMachine
from ..failure import DecompileFailure
from .exceptions import finally_end
from .frames import BranchFrame, WithFrame
from .joins import if_join
from . import loops
from .signatures import NAME_STORES, STATEMENT_OPS, names, same_ops, walrus_store
from ..spill import spill_before_branches


def if_statement(w, m, test, then_start, else_start, hi, line) -> int:
    """``if test:`` whose true branch starts at ``then_start`` and false branch
    at ``else_start``, in the block ending at ``hi``: the forms a loop's jumps
    take first, then an if/else (or a conditional expression) in the block."""
    end = _assert_statement(w, m, test, then_start, else_start, hi, line)
    if end is not None:
        return end
    if else_start == then_start:
        # `if c: pass`, its NOP dropped: the jump lands where the body falls.
        m.stmts.extend(spill_before_branches(m, test))
        m.stmts.append(at(ast.If(test=test, body=[at(ast.Pass(), line)], orelse=[]), line))
        return then_start
    loop = w.frames.loop
    if loop is not None:
        end = _if_ending_body(w, m, test, then_start, else_start, hi, line, loop)
        if end is None:
            end = _if_continue_or_break(w, m, test, then_start, else_start, hi, line, loop)
        if end is not None:
            return end
    if else_start <= then_start:
        raise DecompileFailure("backward conditional jump outside a loop")
    else_start = _else_start_in_block(w, then_start, else_start, hi)
    if len(m.stack) > m.base and w.ops[else_start - 1].name in _COPIED_EXITS:
        end = _ifexp_with_copied_tail(w, m, test, then_start, else_start, hi)
        if end is not None:
            return end
    then_end, else_end, last = _branch_ends(w, then_start, else_start, hi)
    return _if_else(w, m, test, then_start, then_end, else_start, else_end, last, line)


def _if_ending_body(w, m, test, then_start, else_start, hi, line, loop):
    """An if whose branch runs to the end of ``loop``'s body, the jump past it
    going round the loop (where the walk ends, or None)."""
    end = w.ops[hi - 1] if hi - 2 > then_start else None
    if else_start in loop.continues and else_start < then_start and end is not None \
            and end.index not in w.reachable and hi - 2 in w.reachable \
            and loops.jumps_back(w, hi - 1, else_start) \
            and loops.else_continue(w, hi - 1, else_start):
        # `if test: A else: continue` ending the body (up to 3.9): the test
        # jumps straight back, the continue after A's jump back is unreached.
        body = w.block(then_start, hi - 2, m.stack)
        m.stmts.append(at(ast.If(test=test, body=body or [at(ast.Pass(), line)],
                                  orelse=[at(ast.Continue(), end.line)]), line))
        return hi
    nxt = w.ops[else_start] if else_start < w.n else None
    # (Not when `if c:` would need a `not` the compiler folds into the
    # comparison: then the source was `if not c: continue`.)
    if (else_start in loop.continues and else_start < then_start
            or else_start > hi and nxt.name == "JUMP" and nxt.target.index in loop.continues) \
            and w.flows_to_next_iteration(loop, hi) \
            and not folds_a_not(test) and not _explicit_jump(w, then_start - 1):
        # `if test: rest-of-the-body`, the jump over it threaded to the loop's top
        body = w.block(then_start, hi, m.stack)
        m.stmts.append(at(ast.If(test=test, body=body or [at(ast.Pass(), line)],
                                  orelse=[]), line))
        return hi
    end = w.ops[hi - 1] if hi - 1 > then_start else None
    if else_start in loop.continues and else_start < then_start and end is not None \
            and end.name == "JUMP" and end.target.index == else_start \
            and end.index not in w.reachable \
            and not folds_a_not(test) and not _explicit_jump(w, then_start - 1):
        # `if test: A` then `continue` ending the block, unreached after a
        # raise in A (up to 3.9): the jump past A was threaded through the
        # continue. (`if not test: continue` keeps a jump over the continue.)
        body = w.block(then_start, hi - 1, m.stack)
        m.stmts.append(at(ast.If(test=test, body=body or [at(ast.Pass(), line)],
                                  orelse=[]), line))
        m.stmts.append(at(ast.Continue(), end.line))
        return hi
    if else_start == loop.exit and else_start > hi and end is not None \
            and end.name == "JUMP" and end.target.index == else_start \
            and end.index not in w.reachable and not folds_a_not(test):
        # ... and so was the jump past A through a `break` ending the body
        # (unreached after A's continue).
        body = w.block(then_start, hi - 1, m.stack)
        m.stmts.append(at(ast.If(test=test, body=body or [at(ast.Pass(), line)],
                                  orelse=[]), line))
        m.stmts.append(at(ast.Break(), end.line))
        return hi
    first = w.ops[then_start]
    if else_start == then_start + 1 and first.name == "JUMP" \
            and first.target.index in loop.continues and else_start < hi \
            and w.flows_to_next_iteration(loop, hi) and folds_a_not(test):
        # 3.12+ `if c: rest-of-the-body` (jumps go forward only: over a
        # jump back to the top); `if not c: continue` would fold the `not`.
        body = w.block(else_start, hi, m.stack)
        m.stmts.append(at(ast.If(test=negate(test), body=body or [at(ast.Pass(), line)],
                                  orelse=[]), line))
        return hi
    return None


def _if_continue_or_break(w, m, test, then_start, else_start, hi, line, loop):
    """``if not test: continue`` / ``break`` folded into the test's jump (where
    the walk goes on, or None)."""
    if else_start in loop.continues and else_start < then_start:
        # `if not test: continue` folded into one backward jump
        stmt = ast.If(test=negate(test), body=[at(ast.Continue(), line)], orelse=[])
        m.stmts.append(at(stmt, line))
        return then_start
    if else_start == loop.exit and else_start > hi \
            or else_start < then_start and loops.breaks_to(w, loop, else_start) \
            or else_start == loop.body_end + 1 == hi + 1 and loops.breaks_to(w, loop, else_start):
        negated = negate(test)
        if folds_a_not(negated) and then_start < hi:
            # `if not a is b: break` would be `a is not b`, jumping the other
            # way: the source was `if a is b: rest-of-the-block else: break`.
            body = w.block(then_start, hi, m.stack)
            m.stmts.append(at(ast.If(test=test, body=body or [at(ast.Pass(), line)],
                                      orelse=[at(ast.Break(), line)]), line))
            return hi
        stmt = ast.If(test=negated, body=[at(ast.Break(), line)], orelse=[])
        m.stmts.append(at(stmt, line))
        return then_start
    return None


def _else_start_in_block(w, then_start, else_start, hi) -> int:
    """Where the false branch starts within the block ending at ``hi``: a jump
    past ``hi`` that ends the block some other way ends the branch there."""
    if else_start > hi and hi - 1 > then_start and w.ops[hi - 1].name == "JUMP" \
            and w.ops[hi - 1].target.index == else_start:
        # The block ends in the jump over an else (up to 3.9 unreached after a
        # return); a jump straight to its target ends the block the same way.
        else_start = hi - 1
    elif else_start > hi and w.frames.join_at(hi) == else_start:
        # A jump to where the enclosing branch rejoins: the end of this block.
        else_start = hi
    elif else_start > hi and hi < w.n and w.ops[hi].name == "JUMP" \
            and w.ops[hi].target.index == else_start and not w.is_loop_jump(w.ops[hi]):
        # The block falls into a jump there (an enclosing branch's jump over
        # its else, the if around this one having none): a jump threaded
        # through it ends the block the same way.
        else_start = hi
    elif else_start > hi and w.is_return_none_copy(else_start) \
            and (w.frames.loop is None or w.frames.loop.body_end != hi) \
            and (w.is_return_none_copy(hi) or
                 (hi - 2 >= then_start and w.is_return_none_copy(hi - 2))):
        # 3.10+ copies the closing `return None` onto each way out: a jump to
        # another copy ends the branch where this block's own copy starts (or
        # where the block runs into one).
        else_start = hi if w.is_return_none_copy(hi) else hi - 2
    if else_start > hi:
        raise DecompileFailure("conditional jump out of the block at offset %d"
                               % w.ops[then_start - 1].offset)
    return else_start


def _branch_ends(w, then_start, else_start, hi):
    """(where the true branch ends, where the false one ends, the true
    branch's last op or None). Where the compiler copied code into the true
    branch (a loop's next iteration, an except clause's way out, a small
    closing block), the copy ends the branch and the layout says where;
    otherwise the graph says where the branches join (:mod:`.joins`), and
    only where it cannot (the true branch never runs on) does the layout."""
    then_end = else_start
    else_end = else_start
    last = w.ops[else_start - 1] if else_start - 1 >= then_start else None
    if last is not None and last.name == "JUMP" and else_start - 1 > then_start \
            and _continues_at_body_end(w, last, hi) \
            and not _jumped_to(w, else_start, then_start, else_start - 1) \
            and not (_conditional_to(w, last.target.index, then_start, else_start - 1)
                     and not _plain_for_latch(w, last, else_start - 2)) \
            and not (_jumped_to(w, else_start - 1, then_start, else_start - 1)
                     and last.line != w.ops[else_start - 2].line
                     and not _line_inside(w, last, then_start, else_start - 1)):
        # `if c: A else: B` ending a loop body: A ends with the jump to the next
        # iteration (as `continue` would), B runs to the body's end. (The
        # graph cannot tell: a `continue` and falling off the body go to the
        # same header; the lines of the jump do.)
        then_end = else_start - 1
        else_end = hi
    elif last is not None and last.name == "JUMP" \
            and (copy_start := _clause_exit_copy(w, then_start, else_start, hi)) is not None:
        # The branch leaves the except clause through its own copy of the
        # clause's way out: the rest of the block is the else.
        then_end = copy_start
        else_end = hi
    elif last is not None and last.name == "RETURN_VALUE" \
            and (size := _copied_exit(w, then_start, else_start, hi)):
        # 3.10+ copies a small closing block (`return result` after the
        # try statement whose body the if ends) onto the branches that
        # reach it: the branch falls off into the original, and what
        # follows it, up to the block's end, is the else.
        then_end = else_start - size
        else_end = hi
    elif last is not None and last.name == "RETURN_VALUE" \
            and (join := _join_from_inside(w, then_start, else_start, hi)) is not None \
            and not w.is_return_none_copy(join) \
            and (size := _copied_exit(w, then_start, else_start, hi, join)):
        # 3.12 threads a jump from inside the branch to where the if
        # joins, the code there a small block that returns, and copies that
        # block onto the branch's own way there (`if x: if c: pass` then
        # `else: ...`): the branch ends where the copy starts, the else
        # where the jump lands. (Every way from the branch returns, through
        # the block or its copy, so the graph finds no join: the jump's
        # target is the evidence.)
        then_end = else_start - size
        else_end = join
    elif (join := if_join(w, then_start, else_start, hi)) is not None:
        else_end = join
    elif last is not None and last.name == "RETURN_VALUE" \
            and (size := _copied_closing_exit(w, then_start, else_start, hi)):
        # 3.10+ copy the block's closing return (`return None` written after an
        # if/elif chain) onto a way there from inside the branch (the false
        # jump of an if ending it): the branch falls off into the original,
        # and the code up to it is the else. (Every way from the branch
        # returns, so the graph finds no join: the copy is the evidence.)
        then_end = else_start - size
        else_end = hi - size
    elif last is not None and last.name == "JUMP" and last.target.index > else_start \
            and not w.is_loop_jump(last):
        # The true branch leaves (a return, a raise, a break), so the graph
        # cannot tell an else: up to 3.9 the jump over it stays behind the
        # branch, unreached.
        else_end = min(last.target.index, hi)
    elif last is not None and ((else_start - 1) in w.ctx.implicit_returns
                               or (last.name == "RERAISE" and finally_end(w, last))):
        # 3.10+ copies the function's closing `return None` (a finally body's
        # closing RERAISE) into each branch, so the branch that follows is the
        # else, up to the block's end. (To the graph each copy is a way out
        # like an explicit `return None`, or a `pass` before the closing one.)
        else_end = hi
    elif last is not None and last.name in ("RETURN_VALUE", "RAISE_VARARGS", "RERAISE"):
        else_end = _else_end_after_exit(w, last, then_start, else_start, hi)
    return then_end, else_end, last


def _else_end_after_exit(w, last, then_start, else_start, hi) -> int:
    """Where the else ends when the true branch ends in ``last``, a return or
    raise, and never runs on: the graph cannot tell ``if c: return`` then B
    from ``if c: return`` ``else: B``, so the layout says."""
    dead = _dead_jump_after(w, else_start, hi)
    if dead is not None:
        # Up to 3.9 the jump over an else survives (unreached) when it was
        # also a jump target: the else ends where it stands.
        return dead
    elif last.name == "RERAISE" and _continues_from_inside(w, then_start, else_start, hi):
        # The branch ends in a try's handler code and the try's ways out
        # go round the loop: they read as falling off the branch, which
        # here would run on into the code that follows, so that code is
        # the else. (Not after a raise of the source's own: up to 3.9
        # the jump over an else would stay behind it.)
        return hi
    elif w.frames.loop is not None and w.flows_to_next_iteration(w.frames.loop, hi) \
            and _conditional_to_next_iteration(w, then_start, else_start):
        # ... or go round the loop, as falling off the body does: the
        # code after the branch, up to the body's end, is the else.
        return hi
    return else_start


def _continues_from_inside(w, lo, else_start, hi) -> bool:
    """Falling off the block ending at ``hi`` starts the innermost loop's
    next iteration, some JUMP in ``[lo, else_start)`` goes there and none
    to ``else_start``."""
    loop = w.frames.loop
    return loop is not None and w.flows_to_next_iteration(loop, hi) \
        and not _jumped_to(w, else_start, lo, else_start) and any(
            o.name == "JUMP" and o.target.index in loop.continues
            for o in w.ops[lo:else_start])


def _if_else(w, m, test, then_start, then_end, else_start, else_end, last, line) -> int:
    """The if/else (or conditional expression) of the branches found."""
    # A conditional expression leaves one value in each branch.
    value = _try_ifexp(w, m, test, then_start, then_end, else_start, else_end)
    if value is not None:
        m.push(value)
        return else_end if last is not None and last.name == "JUMP" else else_start
    m.stmts.extend(spill_before_branches(m, test))
    if else_end > else_start:
        with w.frames.push(BranchFrame(then_end, else_end)):
            body = w.block(then_start, then_end, m.stack)
    else:
        body = w.block(then_start, then_end, m.stack)
    orelse = w.block(else_start, else_end, m.stack) if else_end > else_start else []
    node = ast.If(test=test, body=body or [at(ast.Pass(), line)], orelse=orelse)
    m.stmts.append(at(node, line))
    return else_end


def _line_inside(w, op, lo, hi) -> bool:
    """``op``'s line is before the last line of ``[lo, hi)``: the compiler's
    jump at the end of a statement there (a loop's way out), not a
    ``continue`` written after that code."""
    return op.line is not None and any(
        o.line is not None and o.line > op.line for o in w.ops[lo:hi])


def _clause_exit_copy(w, then_start, else_start, hi):
    """Where the branch ``[then_start, else_start)`` starts its own copy of the
    way out of the except clause being walked (``POP_EXCEPT; [name = None;
    del name;] JUMP after``), when falling off the block at ``hi`` leaves the
    clause too (else None): 3.13 copies that way out into each branch that
    reaches it, so a branch ending the clause no longer jumps over the next."""
    clause = w.frames.clause
    if clause is None:
        return None
    exit_, depth, stop = clause.exit, clause.loop_depth, clause.end
    jump = else_start - 1
    if exit_ is None or len(w.frames.loops) != depth or w.ops[jump].target.index != exit_:
        return None
    start = next((k for k in (jump - 1, jump - 4) if k >= then_start
                  and w.clause_exit_at(k) == (exit_, jump)), None)
    if start is None:
        return None
    end = w.frames.final_join(hi)
    if end >= stop:
        return start
    leave = w.clause_exit_at(end) if end < w.n else None
    return start if leave is not None and leave[0] == exit_ else None


def _explicit_jump(w, k: int) -> bool:
    """The jump at ``k`` is a statement's (``continue``), not the compiler's
    own: in a 3.12+ generator only statements lie inside its wrapper handler;
    elsewhere the jump it was made of had a line of its own."""
    unguarded = w.func.unguarded
    if unguarded is not None:
        return id(w.ops[k]) not in unguarded
    return id(w.ops[k]) in w.func.jump_statements


def _assert_statement(w, m, test, then_start, else_start, hi, line):
    """``c; POP_JUMP_IF_TRUE L; LOAD_ASSERTION_ERROR; [msg; CALL;] RAISE_VARARGS 1; L:``
    is ``assert c, msg`` (L may be where the code after the raise leads: the
    next iteration of a loop)."""
    if w.ops[then_start].name != "LOAD_ASSERTION_ERROR":
        return None
    r = then_start
    while r < hi and w.ops[r].target is None and w.ops[r].name != "RAISE_VARARGS":
        r += 1
    if r >= hi or w.ops[r].name != "RAISE_VARARGS" or w.ops[r].arg != 1:
        return None
    after = r + 1
    if else_start != after:
        loop = w.frames.loop
        nxt = w.ops[after] if after < w.n else None
        continues = loop is not None and else_start in loop.continues \
            and (after == loop.body_end
                 or (nxt is not None and nxt.name == "JUMP" and nxt.target.index == else_start))
        if not continues:
            return None
    body = w.block(then_start, after, m.stack)
    if len(body) != 1 or not isinstance(body[0], ast.Assert):
        return None
    m.stmts.append(at(ast.Assert(test=negate(test), msg=body[0].msg), line))
    return after


#: the ops that end a small block the compiler copies into the branches before it
_COPIED_EXITS = frozenset({"RETURN_VALUE", "RAISE_VARARGS"})


def _ifexp_with_copied_tail(w, m, test, then_start, else_start, hi):
    """``return (x, a if c else b)``: 3.10+ copies the code after a conditional
    expression (``BUILD_TUPLE; RETURN_VALUE``) into both branches (and into the
    branches of one nested in the else); 3.10 and 3.12+ so copy ``raise E(a if c
    else b)``'s ``CALL 1; RAISE_VARARGS 1``. Values already on the stack show it is
    an expression; run the copied tail once."""
    end = _copied_tail_region_end(w, else_start, hi)
    if end is None:
        return None
    longest = 0
    while longest < min(else_start - then_start, end - else_start):
        a, b = w.ops[else_start - 1 - longest], w.ops[end - 1 - longest]
        if a.name != b.name or a.arg != b.arg or a.target is not None:
            break
        longest += 1
    depth = len(m.stack) + 1
    for t in range(longest, 0, -1):
        tail = [(o.name, o.arg) for o in w.ops[else_start - t:else_start]]
        stuck = []
        try:
            a = w.value_before_tail(m.stack, then_start, else_start, tail, depth, stuck)
            b = a is not None and w.value_before_tail(m.stack, else_start, end, tail,
                                                          depth, stuck)
        except DecompileFailure:
            continue
        if a is None or b is None or b is False:
            if stuck:
                # A shorter tail leaves the op that stopped this try in the
                # value region too (Dynamo's branches share tails of ~20
                # ops, each try re-ran the branch: a quarter of its time)
                break
            continue
        m.push(ast.IfExp(test=test, body=a, orelse=b))
        w.run(m, else_start - t, else_start)
        return end
    return None


def _copied_tail_region_end(w, lo, hi):
    """Where the else branch of such an expression ends: the first return
    (or raise) after every conditional jump in it has landed."""
    pending = lo
    for p in range(lo, hi):
        op = w.ops[p]
        if op.name in CONDITIONAL:
            pending = max(pending, op.target.index)
        elif op.target is not None:
            return None
        elif op.name in _COPIED_EXITS and p >= pending:
            return p + 1
    return None


def _join_from_inside(w, lo, else_start, hi):
    """Where jumps from the branch ``[lo, else_start)`` (and from the except
    clauses of a try there, laid out elsewhere) land past its end (all the
    same place, within the block), if any do: read where the true branch is
    a copy the graph cannot see through (see :func:`_branch_ends`)."""
    targets = {o.target.index for o in w.ops[lo:else_start]
               if o.target is not None and else_start < o.target.index <= hi
               and not (o.name == "JUMP" and w.is_loop_jump(o))}
    starts = {o.handler.target.index for o in w.ops[lo:else_start]
              if o.handler is not None and not w.handled(o.handler)}
    for k in starts:
        targets.update(t for t in _handler_exits(w, k) if else_start < t <= hi)
    return targets.pop() if len(targets) == 1 else None


def _handler_exits(w, hs: int):
    """Where jumps from the handler code starting at ``hs`` land in normal code."""
    seen, work, exits = set(), [hs], set()
    normal = w.normal
    while work:
        k = work.pop()
        if k in seen or k >= w.n:
            continue
        if k in normal:
            exits.add(k)
            continue
        seen.add(k)
        op = w.ops[k]
        if op.target is not None:
            work.append(op.target.index)
        if op.name not in NO_FALLTHROUGH:
            work.append(k + 1)
    return exits


def _copied_exit(w, lo: int, k: int, hi: int, dest: Optional[int] = None) -> int:
    """The size of the copy that ends ``[lo, k)``, after a statement there, of
    the code where falling off the block ending at ``hi`` leads (or of the
    code at ``dest``), when that code ends in a return with no jump before
    it (a copy keeps the ops and the lines); else 0."""
    if dest is None:
        dest = w.frames.final_join(hi)
    end = dest
    ops = w.ops
    while end < w.n and end - dest < 8 and ops[end].target is None \
            and ops[end].name not in NO_FALLTHROUGH:
        end += 1
    if end >= w.n or ops[end].name != "RETURN_VALUE" or dest == k:
        return 0
    size = end + 1 - dest
    start = k - size
    before = ops[start - 1].name if start > lo else ""
    if not (before == "POP_TOP" or before.startswith(("STORE", "DELETE"))
            or (before in CONDITIONAL and ops[start - 1].target.index == dest)):
        # (the copy starts no statement: a with's exit after a return value;
        # an if's test with an empty body, its jump threaded to the
        # original, ends one)
        return 0
    if any(type(f) is WithFrame and names(ops, start, start + len(f.copy)) == f.copy
           for f in w.frames.copies):
        # A with's exit call is never copied (it is too long, and has the with's
        # line): one starting the copy is a bare ``return``'s own way out of the
        # with, which the block after the with also ends in.
        return 0
    # (A clause's POP_EXCEPT on its way out takes the line of the code before.)
    if any(a.name != b.name or a.arg != b.arg or a.target is not None
           or (a.line != b.line and a.name != "POP_EXCEPT")
           for a, b in zip(ops[start:k], ops[dest:end + 1])):
        return 0
    return size


def _copied_closing_exit(w, lo: int, k: int, hi: int) -> int:
    """The size of the copy that ends ``[lo, k)`` of the small block that
    returns at the end of the block ending at ``hi``, when a jump from inside
    ``[lo, k)`` lands on the copy and the op before it does not run into it
    (a copy keeps the ops and the lines); else 0.

    ``if a: (if b: return x)`` ``elif c: ...`` then ``return None``: the
    false jump of ``b`` goes to a copy of that ``return None`` ending the
    first branch."""
    ops = w.ops
    if not lo < k < hi <= w.n or ops[hi - 1].name != "RETURN_VALUE":
        return 0
    for size in range(2, 9):
        start, dest = k - size, hi - size
        if start <= lo or dest < k:
            return 0
        if ops[dest].target is not None or ops[dest].name in NO_FALLTHROUGH:
            return 0        # (the block holds no jump and no other way out)
        if ops[start - 1].name in NO_FALLTHROUGH and _jumped_to(w, start, lo, start) \
                and same_ops(ops, start, dest, size):
            return size
    return 0


def _plain_for_latch(w, jump, k: int) -> bool:
    """``jump`` goes back to a for loop's FOR_ITER on the line of the op
    ``k`` before it: the compiler's jump at the end of a branch, where a
    ``continue`` would have a line of its own (a conditional jump there
    from inside the branch is then no sign of a continue either)."""
    return w.ops[jump.target.index].name == "FOR_ITER" and jump.line is not None \
        and jump.line == w.ops[k].line


def _conditional_to_next_iteration(w, lo: int, hi: int) -> bool:
    """A conditional jump in ``[lo, hi)`` goes round the innermost loop."""
    continues = w.frames.loop.continues
    return any(o.name in CONDITIONAL and o.target.index in continues
               for o in w.ops[lo:hi])


def _conditional_to(w, k: int, lo: int, hi: int) -> bool:
    """A conditional jump in ``[lo, hi)`` goes to ``k``. (One to the loop's top
    from inside a branch that ends in a jump there was threaded through that
    jump (up to 3.9; 3.12+ jumps to it, on its own line): the jump is a
    ``continue``, not the jump over an else, which would have been threaded on
    or copied.)"""
    return any(o.name in CONDITIONAL and o.target.index == k for o in w.ops[lo:hi])


def _jumped_to(w, k: int, lo: int, hi: int) -> bool:
    """Some op in ``[lo, hi)`` jumps to ``k``."""
    return any(o.target is not None and o.target.index == k for o in w.ops[lo:hi])


def _dead_jump_after(w, lo, hi):
    """An unreached JUMP ending the block ``[lo, hi)`` after a return or raise."""
    q = hi - 1
    if q <= lo or q in w.reachable or w.ops[q].name != "JUMP" \
            or w.ops[q - 1].name not in ("RETURN_VALUE", "RAISE_VARARGS"):
        return None
    return q


def _continues_at_body_end(w, op, hi: int) -> bool:
    """``op`` jumps to the innermost loop's next iteration and ``hi`` ends its body."""
    loop = w.frames.loop
    if loop is None:
        return False
    # (not a `continue` statement's own jump: see Function.jump_statements)
    return loop.body_end == hi and op.target.index in loop.continues \
        and id(op) not in w.func.jump_statements


def _try_ifexp(w, m, test, then_start, then_end, else_start, else_end):
    if else_end == else_start:
        return None
    # Statement-only ops rule a conditional expression out without walking the
    # branches (walking them twice per level made nested ifs exponential).
    if not (_may_be_value(w, then_start, then_end)
            and _may_be_value(w, else_start, else_end)):
        return None
    try:
        a = StackMachine(w.ctx, m.stack)
        w.run(a, then_start, then_end)
        b = StackMachine(w.ctx, m.stack)
        w.run(b, else_start, else_end)
    except DecompileFailure:
        return None
    if a.stmts or b.stmts or len(a.stack) != len(m.stack) + 1 or len(b.stack) != len(m.stack) + 1:
        return None
    return ast.IfExp(test=test, body=a.value(a.stack[-1]), orelse=b.value(b.stack[-1]))


def _may_be_value(w, lo: int, hi: int) -> bool:
    """``[lo, hi)`` holds no statement-only op. A store to a name is one too
    unless a walrus (``COPY 1`` before it) or an inlined
    comprehension (3.12+, which clears its variables with
    LOAD_FAST_AND_CLEAR) makes it: an ``if`` that assigns in its branches
    is the common case, and walking them as values first would be wasted."""
    ops = w.ops
    inlined = None
    for k in range(lo, hi):
        name = ops[k].name
        if name in STATEMENT_OPS or name.startswith("DELETE"):
            return False
        if name in NAME_STORES and not walrus_store(w.ops, k):
            if inlined is None:
                inlined = any(o.name == "LOAD_FAST_AND_CLEAR" for o in ops[lo:hi])
            if not inlined:
                return False
    return True
