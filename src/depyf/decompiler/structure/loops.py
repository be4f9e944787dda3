"""Loops: ``for`` and ``while`` statements, their ``else`` clauses, and the
jumps that are their ``break`` and ``continue``.

A loop is a natural loop of the control-flow graph (``Cfg.loops``): its header
dominates the jumps back to it. Its latch is the last of those that closes
the body in layout (:func:`back_targets`). The shapes read here, in normalised
IR::

    for:        iter; GET_ITER; H: FOR_ITER exit; target; body; JUMP H; exit: [else]
    while:      H: test; POP_JUMP_IF_FALSE exit; body; JUMP H; exit: [else]
    while True: H: body; JUMP H

(3.10-3.13's rotated while loop, its test repeated at the bottom of the body,
reaches here tested at the top: see ``depyf.bytecode.rotated_loops``.)

A ``break`` is a jump past the latch (beyond the loop's exit when the loop
has an ``else``), a ``continue`` a jump to the header that is not the latch.
Each function takes the walker (``w``) whose ops it reads and whose blocks it
walks, and pushes a :class:`~.frames.LoopFrame` for the body it walks.

Example (tests/test_structure_loops.py builds such op lists by hand)::

    for x in xs:            LOAD_FAST xs; GET_ITER
        if x:           H:  FOR_ITER exit; STORE_FAST x
            break           LOAD_FAST x; POP_JUMP_IF_FALSE B
        g(x)                POP_TOP; JUMP after        <- break (past the else)
    else:               B:  ... g(x) ...; JUMP H
        h()             exit: ... h() ...
                        after:
"""
from __future__ import annotations

import ast
from contextlib import nullcontext

from ..astcompat import at
from ..cfg import EXCEPTION
from . import chains
from .comprehensions import COMPREHENSION_ADDS, COMPREHENSION_NAMES, build_comprehension
from .conditionals import CONDITIONAL, VALUE_BOOLOPS, deciding, longest_chain, negate, operand
from ..expressions import ForTarget, StackMachine
from ..failure import DecompileFailure
from .exceptions import flow_from
from .frames import GuardFrame, LoopFrame
from .signatures import same_ops
from ..spill import spill_before_block, spill_before_branches
from ..values import Iterator


def forest(cfg) -> dict:
    """Header index -> the natural loop of ``cfg`` headed there.

    >>> from ..cfg import build_cfg
    >>> def f(xs):
    ...     while xs:
    ...         for x in xs:
    ...             xs = x
    >>> cfg = build_cfg(f)
    >>> [(cfg.ops[k].name, loop.depth) for k, loop in sorted(forest(cfg).items())]
    [('LOAD_FAST', 1), ('FOR_ITER', 2)]
    """
    return {loop.header.start: loop for loop in cfg.loops}


def back_targets(w) -> dict:
    """Loop headers -> the jumps back that close each loop of the graph's loop
    forest in layout (see :func:`closing_jumps`), ascending; a loop with none
    is left out (walked as a for loop whose body never comes back).

    >>> from types import SimpleNamespace as NS
    >>> from ..cfg import build_cfg
    >>> def f(xs):
    ...     for x in xs:
    ...         try:
    ...             g(x)
    ...         except E:
    ...             continue
    ...         h(x)
    >>> cfg = build_cfg(f)
    >>> w = NS(cfg=cfg, normal=cfg.op_indices(cfg.reachable_normal), loop_forest=forest(cfg))
    >>> [(cfg.ops[h].name, [cfg.ops[k].name for k in v]) for h, v in back_targets(w).items()]
    [('FOR_ITER', ['JUMP'])]

    (the ``continue`` in the except clause goes back too, but the body ends
    with the jump after ``h(x)``)
    """
    out = {}
    for loop in w.loop_forest.values():
        jumps = closing_jumps(w, loop)
        if jumps:
            out[loop.header.start] = jumps
    return out


def closing_jumps(w, loop) -> list:
    """The indices of the jumps back to ``loop``'s header that close its body in
    layout, ascending: in a loop of normal code, those in normal code (a jump
    back from an except clause is a ``continue`` inside the body, wherever it
    is laid out), or where there are none (the loop is gone round only from
    its except clauses) those in handler code but a with statement's way on
    after it swallowed an exception (the with statement reads that way on
    itself); in a loop in a handler's code, each of them. The unreached ones
    after the header count too (3.8/3.9 keep a body's closing jump where the
    body never falls off its end)."""
    cfg, header = w.cfg, loop.header
    live, normal, dead = [], [], []
    for e in header.predecessors:
        if e.kind == EXCEPTION:
            continue
        k = e.op.index
        if e.source in loop:
            live.append(k)
            if k in w.normal:
                normal.append(k)
        elif e.source not in cfg.reachable and e.source.start > header.start:
            dead.append(k)
    if header.start not in w.normal:
        closing = live
    else:
        closing = normal or [k for k in live if _handler_around(cfg, cfg.ops[k]) != "with"]
    return sorted(closing + dead)


def _handler_around(cfg, op):
    """The kind of the handler whose code ``op`` is in (the nearest handler
    entry that dominates it), or None."""
    for b in cfg.dominators(cfg.block_of(op)):
        region = cfg.region_at(b)
        if region is not None:
            return region.kind
    return None


def jump_kind(w, i: int):
    """``ast.Continue``, ``ast.Break`` or None: what the JUMP at ``i`` is to the
    innermost loop being walked. A jump to its header is a ``continue``; a
    jump to a block outside its body (the graph's natural loop: a jump inside
    it is an if's) is a ``break`` where it leads where the loop's exit does
    (see :func:`leads_to`): to the exit, past the else clause, or where the
    compiler threaded it on (the enclosing loop's next iteration, the
    enclosing except clause's way out, the join of the if the loop ends a
    branch of). (Python has no ``continue`` of an outer loop: a jump to its
    header is the inner loop's ``break``, when the inner loop's end leads there.)

    Example: in ``for x in xs: for y in x: if y: break`` (3.12+), the ``break``
    jumps straight to the outer head, where the inner loop's exit, the outer
    body's closing jump, leads too; a ``continue`` of the inner loop jumps to
    the inner head.
    """
    loop = w.frames.loop
    if loop is None:
        return None
    target = w.ops[i].target.index
    if target in loop.continues:
        return ast.Continue
    return ast.Break if breaks_to(w, loop, target) else None


def breaks_to(w, loop, target: int) -> bool:
    """A jump to ``target`` from the body of ``loop`` (a LoopFrame) leaves the
    loop as its ``break`` does: ``target`` is outside the loop's body and
    leads where the loop's exit (or its end past the else clause) does."""
    if loop.graph is not None and w.cfg.block_of(w.ops[target]) in loop.graph:
        return False
    end = loop.break_target if loop.break_target is not None else loop.exit
    way = leads_to(w, target)
    return way == leads_to(w, loop.exit) or way == leads_to(w, end)


def leads_to(w, k: int) -> int:
    """Where control goes on from the op at ``k``, past what only passes it on:
    unconditional jumps, an except clause's way out (``POP_EXCEPT; [name =
    None; del name]; JUMP``), and the ends of the constructs being walked (see
    ``FrameStack.end_leads_to``)."""
    seen = set()
    while k not in seen:
        seen.add(k)
        if k < w.n and w.ops[k].name == "JUMP":
            k = w.ops[k].target.index
            continue
        out = w.clause_exit_at(k) if k < w.n else None
        on = out[0] if out is not None else w.frames.end_leads_to(k)
        if on is None:
            break
        k = on
    return k


def loop(w, m: StackMachine, i: int, hi: int) -> int:
    latch = max(w.back_targets[i])
    if w.frames.current_header(i):
        latch = w.loop_inside_try(i)
    flow = None
    if w.frames.handler_code and len(w.back_targets[i]) > 1:
        # In handler code (a finally body) a jump back from the handler code
        # of a statement in the loop (a with statement's suppressing way out)
        # counts as a jump back too; only plain flow reaches the latch.
        flow = flow_from(w, i, hi)
        latch = max((k for k in w.back_targets[i] if k in flow), default=latch)
    header = w.ops[i]
    line = m.start_line if m.start_line is not None else header.line
    if header.name == "FOR_ITER":
        return for_loop(w, m, i, latch, hi, flow)
    return while_loop(w, m, i, latch, hi, line)


def for_loop(w, m, i, latch, hi, flow=None) -> int:
    """``flow``: the ops plain flow reaches from the header, in handler code."""
    header = w.ops[i]
    iterator = m.pop()
    if not isinstance(iterator, Iterator):
        # A comprehension's `.0` argument is already an iterator.
        iterator = Iterator(m.value(iterator))
    exit_ = header.target.index
    line = header.line
    loop = LoopFrame(header=i, exit=exit_, iterator=True, graph=w.loop_forest.get(i))
    # The body runs up to the loop's exit (a last `return` or `break` may follow
    # the last jump back), less a closing jump back to the header.
    body_end = max(latch + 1, exit_)
    closing = None
    if jumps_back(w, body_end - 1, i) and not else_continue(w, body_end - 1, i):
        body_end -= 1
        closing = body_end
    last = _before_handler_code(w, i, body_end)
    if last is not None and jumps_back(w, last, i) and closing not in w.reachable:
        body_end = last         # up to 3.11 a finally's handler follows that jump
    elif flow is not None and latch + 1 < body_end and jumps_back(w, latch, i) \
            and not any(k in flow for k in range(latch + 1, body_end)):
        body_end = latch        # the handler code of a statement in the body follows
    loop.body_end = body_end
    break_target = _break_target(w, i, body_end - 1, exit_)
    if break_target is None:
        break_target = _else_before_outer_end(w, i, i, body_end - 1, exit_) \
            or _else_before_clause_end(w, i, body_end - 1, exit_)
    loop.break_target = break_target
    inlined = _inlined_comprehension(w, m, i, latch, iterator)
    if not _empty_display(m.stack[-1] if m.stack else None):     # (nor inlined, then)
        # Generated code may run a loop with values waiting on the stack (Dynamo
        # filling an object it rebuilds, the values it returns with waiting):
        # those that must keep their place are evaluated before the iterable,
        # as before an if's test. (An empty display there is an inlined
        # comprehension's result, one whose body adds nothing: `{k: v for k
        # in x if None}`, which the walk after the loop writes.)
        m.stmts.extend(spill_before_branches(m, iterator.iterable))
    with w.expressions_as("comprehension") if inlined else nullcontext():
        with w.frames.push(loop):
            item, body = _for_body(w, m, iterator, i, max(latch + 1, exit_), loop.body_end)
    if loop.cold_tail is not None:
        # the walk after the loop (from its exit) passes that code again
        w.frames.resume[loop.cold_tail] = max(latch + 1, exit_)
    orelse = []
    end = exit_
    after = []
    if break_target is not None and break_target > exit_:
        end = _else_end(w, break_target, exit_, hi)
        orelse = w.block(exit_, end, m.stack)
    elif loop.moved_exit is not None and not inlined:
        # The code after the loop lives only in its breaks (3.10+ moved it
        # there): what follows the loop's exit is its else clause.
        orelse = w.block(exit_, hi, m.stack)
        lo, stop = loop.moved_exit
        # (a break in an except clause holds that code among the handler's)
        with w.frames.push(GuardFrame(code=lo not in w.normal)):
            after = w.block(lo, stop, m.stack)
        tail = len(orelse) - len(after)
        if after and tail >= 0 and [ast.dump(s) for s in orelse[tail:]] \
                == [ast.dump(s) for s in after]:
            # the else clause runs on into that code: its copy there is no
            # statement of the else
            orelse = orelse[:tail]
        elif _copy_of_what_follows(w, lo, stop, hi):
            # the break's copy of the code where the enclosing block goes on
            # (the loop ends an if's branch): nothing was moved
            after = []
        end = hi
    kind = ast.AsyncFor if header.arg == "async" else ast.For
    node = kind(target=item.target, iter=iterator.iterable, body=body or [ast.Pass()],
                orelse=orelse)
    if inlined:
        display = m.pop()
        m.push(build_comprehension(COMPREHENSION_NAMES[type(display)], [node], None))
        return end
    m.stmts.append(at(node, line))
    m.stmts.extend(after)
    m.start_line = None
    return end


def _for_body(w, m, iterator, i, stop, body_end):
    """(the target, the body) of the for loop at ``i``: its target's ops
    take the item, the body's run on to ``body_end``."""
    body_m = StackMachine(w.ctx, m.stack + [iterator])
    item = ForTarget()
    body_m.push(item)
    j = i + 1
    while item.target is None:
        if j >= stop:
            raise DecompileFailure("for loop without a target")
        body_m.step(w.ops[j])
        j += 1
    if body_m.stmts:
        raise DecompileFailure("statements inside a for target")
    body_m.start_line = None
    w.run(body_m, j, body_end)
    return item, body_m.stmts


def _else_end(w, break_target, exit_, hi) -> int:
    """Where a loop's else clause ends: where its breaks go, but for a loop
    ending an if branch they may go on past the other branch to where the if
    joins (up to 3.9), and the else ends with the branch."""
    if break_target > hi and w.frames.join_at(hi) == break_target:
        return max(hi, exit_)
    return break_target


def jumps_back(w, k, header) -> bool:
    return w.ops[k].name == "JUMP" and w.ops[k].target.index == header


def else_continue(w, k, header) -> bool:
    """The jump back at ``k`` is ``else: continue`` (on a later line than the
    if branch's own jump back just before it), not the loop's closing jump."""
    ops = w.ops
    return k - 1 > header and jumps_back(w, k - 1, header) \
        and ops[k].line is not None and ops[k - 1].line is not None \
        and ops[k].line > ops[k - 1].line


def _before_handler_code(w, lo, hi):
    """The last op before the handler code (and dead ops) that ends ``[lo, hi)``;
    None when no handler code ends it."""
    normal = lo in w.normal
    k = hi - 1
    seen = False
    while k > lo and (k not in w.reachable or (k in w.normal) != normal):
        seen = seen or k in w.reachable
        k -= 1
    return k if seen else None


def _empty_display(value) -> bool:
    """``value`` is an empty list, set or dict display (what 3.12+ puts under an
    inlined comprehension's iterator)."""
    return isinstance(value, tuple(COMPREHENSION_NAMES)) and not (
        getattr(value, "elts", None) or getattr(value, "keys", None))


def _inlined_comprehension(w, m, i, latch, iterator) -> bool:
    """3.12+ inlines comprehensions: an empty display sits under the iterator
    and the loop appends to it. (A ``<listcomp>`` code object's own loop over
    ``.0`` looks the same but is the comprehension itself: its display is
    marked too, and not inlined.) What adds to a marked display builds the
    comprehension (expressions' ``_append``)."""
    it = iterator.iterable
    if isinstance(it, ast.Name) and it.id == ".0":
        if m.stack and _empty_display(m.stack[-1]):
            # (the code object's result: an element's own display, `[f(*r, e)
            # for r in rs]`'s argument list, appends to itself)
            m.stack[-1].comprehension = True
        return False
    if not m.stack or not _empty_display(m.stack[-1]):
        return False
    if not any(op.name in COMPREHENSION_ADDS for op in w.ops[i:latch + 1]):
        return False
    # (what adds to it, and only it, builds the comprehension: an inner
    # display's own extends do not)
    m.stack[-1].comprehension = True
    return True


def _copy_of_what_follows(w, lo: int, stop: int, hi: int) -> bool:
    """The ops ``[lo, stop)`` (a break's code, ending in a return) copy, ops
    and lines, those where falling off the block ending at ``hi`` leads."""
    dest = w.frames.final_join(hi)
    return dest != lo and same_ops(w.ops, lo, dest, stop - lo)


def _break_target(w, lo, latch, exit_):
    """Where breaks go; beyond ``exit_`` when the loop has an else clause.
    (3.12+ may close a loop from an except clause laid out past everything:
    then the latch is there, and a break in the body lands short of it.)"""
    targets = set()
    for k in range(lo, latch + 1):
        op = w.ops[k]
        if op.name == "JUMP" and op.target.index > latch:
            targets.add(op.target.index)
    after = w.ops[latch + 1] if latch + 1 < w.n else None
    if after is not None and after.name == "JUMP" and after.target.index > latch + 1 \
            and any(o.name in CONDITIONAL and o.target is after for o in w.ops[lo:latch]):
        # (3.14+ lay a break ending the body after the jump back, which the
        # test before it jumps over: the break goes where that jump does)
        targets.add(after.target.index)
    if latch > exit_:
        targets.update(o.target.index for o in w.ops[lo:exit_]
                       if o.name == "JUMP" and o.target.index > exit_ and o.index in w.normal)
    beyond = sorted(t for t in targets if t > exit_ and not same_jump(w, t, exit_))
    return beyond[0] if beyond else None


def same_jump(w, a: int, b: int) -> bool:
    """Both ops are jumps to one place: a ``break`` the compiler sent to
    another jump where the loop's own exit leads (up to 3.9, through the
    jump over an enclosing if's else) is no sign of an else clause."""
    x, y = w.ops[a], w.ops[b]
    return x.name == "JUMP" and y.name == "JUMP" and x.target is y.target


def _else_before_outer_end(w, header, lo, latch, exit_):
    """A loop's ``break`` that jumps straight to the enclosing loop's next
    iteration (the compiler threads it there; 3.12+ fold ``if c: break``
    into one conditional jump there) while code follows the loop's exit:
    that code is an else clause running to the end of the enclosing body,
    where the break counts as going. (``lo``: where the body of the loop
    whose head is ``header`` starts, past a while loop's test, whose own
    exit may be threaded there too.)"""
    outer = w.frames.loop
    if outer is None:
        return None
    if outer.body_end is None or not exit_ < outer.body_end:
        return None
    nxt = w.ops[exit_]
    if nxt.name == "JUMP" and nxt.target.index in outer.continues:
        return None
    # (3.14 lands a while loop's break on a jump there after the latch; a
    # loop starting the enclosing one's body may share its head: going
    # there is this loop's own next iteration)
    own = leads_to(w, header)
    if any((op.name == "JUMP" or op.name in CONDITIONAL)
           and (to := leads_to(w, op.target.index)) in outer.continues and to != own
           for op in w.ops[lo:latch + 1]):
        return outer.body_end
    return None


def _else_before_clause_end(w, lo, latch, exit_):
    """A loop ending an except clause whose breaks leave the clause (by copies
    of its way out) while other code follows the loop's exit: that code is an
    else clause, up to the clause's end."""
    clause = w.frames.clause
    if clause is None or len(w.frames.loops) != clause.loop_depth:
        return None
    exit_target, end = clause.exit, clause.end
    if exit_ >= end or (w.clause_exit_at(exit_) or (None,))[0] == exit_target:
        return None
    for k in range(lo, latch + 1):
        if w.ops[k].name == "JUMP" and w.jump_leaves_clause(k) is not None:
            return end
    return None


def while_loop(w, m, i, latch, hi, line) -> int:
    # (values waiting on the stack: evaluated before the loop, as before a for's)
    m.stmts.extend(spill_before_block(m))
    latch_op = w.ops[latch]
    exit_ = latch + 1
    body_end = latch
    if latch >= hi and latch in w.reachable and latch not in w.normal:
        # The only jump back is a `continue` in an except clause laid out
        # past the enclosing block: the body ends with the block.
        body_end = hi
    if latch_op.name == "JUMP":
        # `while cond:` tested at the top (3.8/3.9), or `while True:`.
        segments, after, test = _top_test(w, m, i, body_end)
        if segments:
            last = deciding(segments)
            exit_ = last.target
            test = test if not last.sense else negate(test)
            body_start = after
        else:
            test = ast.Constant(value=True)
            body_start = i
            exit_ = _loop_exit(w, i, body_end)
            if exit_ < w.n and exit_ not in w.normal and exit_ in w.reachable \
                    and _left_by_clause_breaks(w, i, latch, exit_):
                # Only breaks in except clauses leave `while True`: the code
                # they go to is normal flow all the same.
                w.count_as_normal(exit_)
        loop = LoopFrame(header=i, exit=exit_, body_end=body_end, graph=w.loop_forest.get(i))
        loop.break_target = _break_target(w, i, body_end, exit_)
        if loop.break_target is None and segments and exit_ > latch:
            loop.break_target = _else_before_outer_end(w, i, body_start, latch, exit_)
        closing = _dropped_break(w, body_start, latch, exit_) if body_end == latch else None
        # The body may end in a `break` the compiler dropped (its exit is
        # next): the jump back before it is a `continue`, and falling off the
        # walk's end is no next iteration (the body's end stays at the jump).
        with w.frames.push(loop):
            body = w.block(body_start, exit_ if closing is not None else body_end,
                              m.stack)
        if closing is not None:
            body.append(at(ast.Break(), closing))
        end = exit_
        orelse = []
        if loop.break_target is not None and loop.break_target > exit_ \
                and not (exit_ < i and loop.break_target == latch + 1):
            # (not a test's exit threaded back to an enclosing loop's top: the
            # op after the latch goes there too, and a break lands on it)
            end = _else_end(w, loop.break_target, exit_, hi)
            orelse = w.block(exit_, end, m.stack)
        m.stmts.append(at(ast.While(test=test, body=body or [ast.Pass()], orelse=orelse), line))
        if loop.moved_exit is not None:
            # (the code after the loop, which its break falls into in the body
            # or in an except clause, among the handler's code)
            lo, stop = loop.moved_exit
            with w.frames.push(GuardFrame(code=lo not in w.normal)):
                m.stmts.extend(w.block(lo, stop, m.stack))
        m.start_line = None
        return max(end, latch + 1) if body_end == latch else hi
    raise DecompileFailure("loop shape not recognised")


def _dropped_break(w, lo, latch, exit_):
    """The line of the ``break`` ending a loop body ``[lo, latch]`` whose exit
    follows its jump back at ``latch``: jumps in the body went to its NOP
    (``Function.line_nop_jumps``), which the compiler kept after the jump
    back; None if there is none."""
    if exit_ != latch + 1:
        return None
    nops = w.func.line_nop_jumps
    if not nops:
        return None
    lines = {nops[id(o)] for o in w.ops[lo:latch]
             if id(o) in nops and o.target is not None and o.target.index == exit_}
    return lines.pop() if len(lines) == 1 else None


def _top_test(w, m, i, latch):
    try:
        sub = StackMachine(w.ctx, m.stack)
        j = i
        while j < latch and (w.ops[j].name not in CONDITIONAL or len(sub.stack) > len(m.stack) + 1):
            if w.ops[j].name in VALUE_BOOLOPS and len(sub.stack) > len(m.stack):
                j = w.value_boolop(sub, j, latch)    # (an and/or in the operand)
                continue
            if w.ops[j].name in CONDITIONAL:
                j = _operand_ifexp(w, sub, j, latch)     # (values wait under it)
                continue
            if w.ops[j].target is not None:
                return [], i, None
            sub.step(w.ops[j])
            if sub.stmts:
                return [], i, None
            j += 1
        if j >= latch or len(sub.stack) != len(m.stack) + 1:
            return [], i, None
        top_line = w.func.while_true_lines.get(id(w.ops[latch]))
        if top_line is not None and w.ops[j].line != top_line:
            return [], i, None      # (``while True:``, an if first in its body)
        first = chains.segment(operand(sub), i, w.ops[j])
        segments = [first]
        after = j + 1
        if chains.chain_continues(w, segments, after, latch):
            more, after = chains.read_chain(w, m, after, latch, segments)
            segments += more
            # An if's test in the body, not part of the loop's test going past
            # the loop: one that went to a dropped `break` (its NOP), or one
            # past where the bottom copy of a rotated loop's test ended.
            nops, bodies = w.func.line_nop_jumps, w.func.loop_bodies
            cut = next((n for n, s in enumerate(segments)
                        if (id(s.jump) in nops) != (id(first.jump) in nops)
                        or (n and id(w.ops[s.start]) in bodies)), None)
            if cut is not None:
                segments, after = segments[:cut], segments[cut].start
        k, test, after = longest_chain(
            segments, after, lambda s: s.target > latch or _exit_threaded(w, s.target, latch))
        return segments[:k], after, test
    except DecompileFailure:
        return [], i, None


def _operand_ifexp(w, sub, j, latch) -> int:
    """A conditional expression in an operand of a loop's test (``while
    f(a if c else b):``), its test's jump at ``j``: pushed on ``sub``; where
    the test goes on (the join of its two values)."""
    cond, after, target, _ = chains.read_condition(w, sub, j, latch)
    jump = w.ops[target - 1] if after < target <= latch else None
    if jump is None or jump.name != "JUMP" or not target < jump.target.index <= latch:
        raise DecompileFailure("conditional jump in a loop test's operand")
    join = jump.target.index
    depth = len(sub.stack) + 1
    a = w.value_before_tail(sub.stack, after, target - 1, [], depth)
    b = a is not None and w.value_before_tail(sub.stack, target, join, [], depth)
    if a is None or b is None or b is False:
        raise DecompileFailure("a loop test's conditional expression is not one")
    sub.push(ast.IfExp(test=cond, body=a, orelse=b))
    return join


def _exit_threaded(w, target, latch) -> bool:
    """A loop test's exit jump sent on to an enclosing loop's top, where the
    op after the loop's latch (its exit) jumps too, or where falling off the
    loop goes: it ends the enclosing loop's body (3.14 drops the jump)."""
    if target >= latch or not w.frames.current_header(target):
        return False
    after = w.ops[latch + 1] if latch + 1 < w.n else None
    if after is not None and after.name == "JUMP" and after.target.index == target:
        return True
    outer = w.frames.loop
    return outer is not None and target in outer.continues \
        and w.flows_to_next_iteration(outer, latch + 1)


def _left_by_clause_breaks(w, i, latch, exit_) -> bool:
    """The loop ``[i, latch]`` jumps to ``exit_`` only from handler code, by
    unconditional jumps: breaks, which leave a clause only so (a conditional
    jump there is a branch of the clause's own code)."""
    jumps = [o for o in w.ops[i:latch] if o.target is not None and o.target.index == exit_]
    return bool(jumps) and all(o.name == "JUMP" and o.index not in w.normal for o in jumps)


def _loop_exit(w, i, latch):
    """Where `while True` at ``i`` goes on: the first place past the latch
    its breaks (from its try statements' handlers too) jump to."""
    targets = [o.target.index for o in w.with_handler_code(i, latch)
               if o.target is not None and o.target.index > latch
               and (o.index <= latch or o.target.index in w.normal)]
    return min(targets) if targets else latch + 1
