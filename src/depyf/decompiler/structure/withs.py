"""with and async with statements, from the handler that guards their body.

The shape, in normalised IR (3.11+ layout; older code is normalised to it)::

    cm; BEFORE_WITH; STORE name | POP_TOP      the entered value
    body                                       (covered by the exit handler W)
    LOAD_CONST None x3; CALL 2; POP_TOP        __exit__(None, None, None)
    W: PUSH_EXC_INFO; WITH_EXCEPT_START        __exit__(*exc_info)
       POP_JUMP_IF_TRUE swallow; RERAISE 2     true: the exception is swallowed
    swallow: POP_TOP; POP_EXCEPT; POP_TOP; POP_TOP; (the code after the with)

A ``return``, ``break`` or ``continue`` leaving the body runs a copy of the
``__exit__`` call on its way out; the walk passes over those copies
(:func:`with_exit_at`). The try statement's helpers this module shares come
from :mod:`.exceptions`.

Example (tests/test_structure_with.py builds such op lists by hand)::

    with x as y:            LOAD_FAST x; BEFORE_WITH; STORE_FAST y
        g(y)                ... g(y) ...                       (handler W)
                            LOAD_CONST None x3; CALL 2; POP_TOP
"""
from __future__ import annotations

import ast
from typing import List, Optional

from ...bytecode.ir import NO_FALLTHROUGH, same_handler
from .clauses import else_before_dead_tail, terminal
from .exceptions import (FinallyOps, copied_at, endless, ends_terminal, extend_inline_body,
                         jump_continues, returns_before_dead_code, through_enclosing_finally,
                         try_body_end)
from .frames import WithFrame
from ..expressions import StackMachine
from ..failure import DecompileFailure
from ..spill import spills_of
from .signatures import names
from ..values import Entered, Iterator, WithExit

#: the ops that start a with statement (its body follows, under the exit handler)
WITH_STARTS = frozenset({"BEFORE_WITH", "BEFORE_ASYNC_WITH"})

def with_statement(w, m: StackMachine, i: int, hi: int) -> int:
    ops = w.ops
    manager = m.pop_value()
    line = m.start_line if m.start_line is not None else ops[i].line
    m.start_line = None
    j = i + 1
    is_async = ops[i].name == "BEFORE_ASYNC_WITH"
    if is_async:
        # `async with` awaits __aenter__ before the body's handler starts.
        if [o.name for o in ops[j:j + 3]] != ["GET_AWAITABLE", "LOAD_CONST", "YIELD_FROM"]:
            raise DecompileFailure("async with without its __aenter__ await")
        j += 3
    handler = ops[j].handler if j < w.n else None
    if handler is None:
        raise DecompileFailure("with body without a handler")
    exit_call = _exit_call(w, handler, is_async)
    exit_value = WithExit(manager, exit_call)
    target, j = _with_target(w, m, j, exit_value)
    body_end = _exit_join(w, j, try_body_end(w, j, hi, handler), handler, exit_call)
    hs = handler.target.index
    body_end = extend_inline_body(w, j, body_end, min(hs, hi) if hs > j else hi)
    sub = StackMachine(w.ctx, list(m.stack) + [exit_value])
    with w.frames.push(WithFrame(exit_call)):
        k = max(body_end, w.run_guarded(sub, j, body_end, handler))
    # (A walk that ran past the body ended in a statement that left through the
    # exit call already: a nested with's `return`.)
    if k == body_end and (not terminal(sub) or len(sub.stack) > len(m.stack) + 1) \
            and not (k == hs and endless(sub.stmts)):
        k = _past_exit_call(w, m, sub, k, hi, handler, exit_call)
    if returns_before_dead_code(w, sub.stmts, k) \
            and names(ops, k, k + len(exit_call)) == exit_call:
        # (the body's own way out, the __exit__ call, after its last return:
        # unreached, left by an if/else whose branches return, up to 3.9)
        sub.stmts[:] = else_before_dead_tail(sub.stmts)
    if (k == hs or _loop_exit_before(w, k, hs)) and ends_terminal(sub.stmts) \
            and not getattr(sub.stmts[-1], "implicit", False):
        k = _swallowed_way_on(w, k, hs)
    swallowed = None if ends_terminal(sub.stmts) else _swallowed_elsewhere(w, m, i, k, hs)
    item = ast.withitem(context_expr=manager, optional_vars=target)
    body = sub.stmts
    if swallowed is not None:
        flag = spills_of(w.ctx).new_name("swallowed")
        m.stmts.append(_flag(flag, True, line))
        body.append(_flag(flag, False, line))
    kind = ast.AsyncWith if is_async else ast.With
    node = kind(items=[item], body=body or [ast.Pass()])
    # `with a, b:` is one statement with two items.
    if len(body) == 1 and type(body[0]) is kind and getattr(body[0], "lineno", None) == line:
        node.items += body[0].items
        node.body = body[0].body
    node.lineno = line
    m.stmts.append(node)
    if swallowed is not None:
        test = ast.If(test=ast.Name(flag, ast.Load()), body=swallowed, orelse=[])
        test.lineno = line
        m.stmts.append(test)
    return k


def _swallowed_elsewhere(w, m, i, k, hs) -> Optional[List[ast.stmt]]:
    """The statements a swallowed exception runs where that is not the code
    after the with statement at ``i`` (at ``k``), else None. Only generated code has such a
    with (Dynamo's resume function re-enters the block its graph broke in,
    and a swallowed exception goes on to its prologue's ``raise None``),
    written with a flag the body's end clears::

        swallowed = True
        with ctx:
            ...
            swallowed = False
        if swallowed:
            raise None

    What a swallowed exception runs there must be a straight run under the
    handler the statement is under, ending in a ``return`` or a ``raise``
    (else no statement form: :class:`DecompileFailure`)."""
    q = _own_swallow_end(w.ops, hs)
    if q is None or k not in w.normal:
        # (the walk is past a jump that ended the body, a loop's way back: the
        # code after the statement is where that goes, no op to compare)
        return None
    ops = w.ops
    way_on = _destination(ops, q)
    if _same_way_on(ops, way_on, _destination(ops, k)):
        return None
    end = way_on
    while end < w.n and ops[end].name not in NO_FALLTHROUGH and ops[end].target is None:
        end += 1
    if end >= w.n or ops[end].name not in _ENDS_A_FUNCTION \
            or not all(same_handler(ops[x], ops[i]) for x in range(way_on, end + 1)):
        raise DecompileFailure(_GOES_ELSEWHERE)
    sub = StackMachine(w.ctx, list(m.stack))
    with w.normal_inside(way_on, end + 1):
        w.run(sub, way_on, end + 1)
    if not ends_terminal(sub.stmts) or len(sub.stack) != len(m.stack):
        raise DecompileFailure(_GOES_ELSEWHERE)
    return sub.stmts


def _own_swallow_end(ops, hs) -> Optional[int]:
    """Where the with statement's handler code at ``hs`` goes on after it has
    swallowed the exception, when that code is ``[PUSH_EXC_INFO;]
    WITH_EXCEPT_START; [its await;] POP_JUMP_IF_TRUE T`` (:func:`_past_swallowing`);
    else None (a handler that never swallows, up to 3.9 normalised so)."""
    n = len(ops)
    q = hs + 1 if hs < n and ops[hs].name == "PUSH_EXC_INFO" else hs
    if q >= n or ops[q].name != "WITH_EXCEPT_START":
        return None
    q += 1
    while q < n and ops[q].name in _EXIT_AWAIT:
        q += 1
    return _past_swallowing(ops, n, q)


#: why a with statement whose swallowed exception goes on as no flag can say is refused
_GOES_ELSEWHERE = "a with statement whose swallowed exception goes on elsewhere than the code after it"
#: the await of an ``async with``'s __aexit__ in its handler
_EXIT_AWAIT = frozenset({"GET_AWAITABLE", "LOAD_CONST", "YIELD_FROM"})
#: the ops a swallowed exception's own way on may end in
_ENDS_A_FUNCTION = frozenset({"RETURN_VALUE", "RAISE_VARARGS"})


def _flag(name: str, value: bool, line) -> ast.Assign:
    node = ast.Assign(targets=[ast.Name(name, ast.Store())], value=ast.Constant(value))
    node.lineno = line
    return node


def _destination(ops, k: int) -> int:
    """Where the code at ``k`` goes on: past the jumps it starts with."""
    for _ in range(len(ops)):
        if ops[k].name != "JUMP":
            break
        k = ops[k].target.index
    return k


def _same_way_on(ops, a: int, b: int) -> bool:
    """The code at ``a`` and at ``b`` is the same, or a copy (3.10+ copies a
    small block that ends the function onto each way into it), up to its
    first op that does not fall through."""
    n = len(ops)
    while a != b:
        if a >= n or b >= n:
            return False
        x, y = ops[a], ops[b]
        if x.name != y.name or x.arg != y.arg or type(x.arg) is not type(y.arg) \
                or x.target is not y.target:
            return False
        if x.name in NO_FALLTHROUGH:
            return True
        a, b = a + 1, b + 1
    return True


def _with_target(w, m, j, exit_value):
    """(the ``as`` target or None, where the body starts) of a with statement
    whose entered value is pushed before ``j``."""
    ops = w.ops
    target = None
    if ops[j].name == "POP_TOP":
        j += 1
    else:
        # `as target`: the ops up to the store that takes the entered value
        # (a name, an attribute or subscript, or a tuple to unpack into).
        depth = len(m.stack) + 1
        sub = StackMachine(w.ctx, list(m.stack) + [exit_value, Entered()])
        while sub.last_target is None or len(sub.stack) > depth:
            if j >= w.n or ops[j].target is not None or sub.stmts or len(sub.stack) < depth:
                raise DecompileFailure("with without a target store or POP_TOP")
            sub.step(ops[j])
            j += 1
        target = sub.last_target
    return target, j


def _past_exit_call(w, m, sub, k, hi, handler, exit_call) -> int:
    """Where the walk goes on after a with body that ends at ``k`` with its
    exit call (and what a ``return``/``continue`` of the body runs after it)."""
    ops = w.ops
    hs = handler.target.index
    k = _skip_exit_call(ops, k, sub, exit_call)
    pending = len(sub.stack) > len(m.stack)
    while pending and k < w.n:
        # `return value` from nested withs calls each __exit__ in turn.
        nxt = with_exit_at(w, sub, k)
        if nxt is None:
            break
        k = nxt
    if pending:
        k = through_enclosing_finally(w, k)    # ... and enclosing finally bodies
    while pending and k + 2 < w.n and ops[k].name == "SWAP" and ops[k].arg == 2 \
            and ops[k + 1].name == "POP_TOP" and len(sub.stack) >= 2 \
            and isinstance(sub.stack[-2], Iterator):
        # ... and a loop's iterator under the value is dropped
        del sub.stack[-2]
        k += 2
    if pending and k < w.n and ops[k].name == "RETURN_VALUE":
        w.step(sub, k, k + 1)
        k += 1
    elif [o.name for o in ops[k:k + 2]] == ["LOAD_CONST", "RETURN_VALUE"] \
            and ops[k].line == ops[k - 1].line and not _copied_on_swallow(w, hs, k):
        # `return constant` in the body loads its value after the __exit__ call,
        # on the with statement's line (code after the statement has its own;
        # 3.10 copies a closing `return None` after it onto the swallowing way on too).
        w.run(sub, k, k + 2)
        k += 2
    elif k < hi and ops[k].name == "JUMP" and ops[k].target.index < k and jump_continues(w, ops[k]) \
            and (k + 1 == handler.target.index
                 or (k + 1 not in w.reachable
                     and names(ops, k + 1, k + 1 + len(exit_call)) == exit_call)):
        # `continue` ends the body: the jump back follows the exit call (the
        # body's own way out, up to 3.9 left unreached, is no more).
        w.jump(sub, k, hi)
        k += 1
    elif k < w.n and ops[k].name == "JUMP" and k < handler.target.index < ops[k].target.index:
        k = ops[k].target.index      # over the inline handler
    elif k < w.n and ops[k].name == "JUMP" and k + 1 == handler.target.index \
            and _rejoins(w, k + 1, ops[k].target):
        # The jump over the inline handler, threaded to where the handler's
        # own way out goes too (the next iteration of a loop, up to 3.9).
        k += 1
    return k


def _swallowed_way_on(w, k, hs) -> int:
    """Where the walk goes on after a with statement whose body always leaves:
    the code a swallowed exception goes on to, when that is the code after the
    statement."""
    ops = w.ops
    after = _suppressed_way_on(w, hs)
    outer = w.frames.innermost_copy
    if after is not None and not isinstance(outer, (FinallyOps, type(None))) \
            and copied_at(ops, after, outer):
        after = None    # the end of an enclosing with's body: its exit call
    if after is not None:
        # Only a suppressed exception reaches the code after the statement
        # (its body always returns or raises): that code is normal flow all
        # the same.
        if k != hs:
            w.frames.loop.cold_tail = after
        k = after
        if after not in w.normal:
            w.count_as_normal(after)
    return k


def _loop_exit_before(w, k, hs) -> bool:
    """3.12+ lays the enclosing loop's exit code out between a with body that
    always leaves and its handler code (``[k, hs)``); the code after the
    statement, reached only by a swallowed exception, follows the handler code."""
    if not w.frames.loops or not k < hs or w.ops[hs - 1].name not in NO_FALLTHROUGH:
        return False
    loop = w.frames.loops[-1]
    return k in (loop.exit, loop.break_target)


_EXIT_CALL = [("LOAD_CONST", None)] * 3 + [("CALL", (2, (), 2)), ("POP_TOP", None)]


def _copied_on_swallow(w, hs, k) -> bool:
    """The with statement's swallowing way on falls into a copy of the ops at ``k``
    (``LOAD_CONST c; RETURN_VALUE``)."""
    q = _swallow_end(w, hs)
    ops = w.ops
    return q is not None and q + 1 < w.n and ops[q].name == "LOAD_CONST" \
        and ops[q + 1].name == "RETURN_VALUE" and ops[q].arg == ops[k].arg \
        and type(ops[q].arg) is type(ops[k].arg)


def _swallow_end(w, hs) -> Optional[int]:
    """Where a with statement's handler code from ``hs`` goes on after it has
    swallowed the exception: past ``WITH_EXCEPT_START; POP_JUMP_IF_TRUE T; ...;
    T: POP_TOP...; POP_EXCEPT; POP_TOP...``; None when it has another shape."""
    ops, n = w.ops, w.n
    q = hs
    while q < n and ops[q].target is None and ops[q].name != "POP_EXCEPT":
        q += 1
    return _past_swallowing(ops, n, q)


def _past_swallowing(ops, n, q) -> Optional[int]:
    """From ``POP_JUMP_IF_TRUE T`` at ``q`` (the test of __exit__'s result): past
    ``T: POP_TOP...; POP_EXCEPT; POP_TOP...``; None when the code has another shape."""
    if q >= n or ops[q].name != "POP_JUMP_IF_TRUE":
        return None
    q = ops[q].target.index
    while q < n and ops[q].name == "POP_TOP":
        q += 1
    if q >= n or ops[q].name != "POP_EXCEPT":
        return None
    q += 1
    while q < n and ops[q].name == "POP_TOP":
        q += 1
    return q if q < n else None


def _suppressed_way_on(w, hs) -> Optional[int]:
    """Where a with statement's handler code from ``hs`` goes on after it has
    swallowed the exception (``WITH_EXCEPT_START; POP_JUMP_IF_TRUE T; ...; T:
    POP_TOP...; POP_EXCEPT; POP_TOP...`` then a jump forward, or the code it
    falls into); else None."""
    q = hs
    while q < w.n and w.ops[q].target is None and q not in w.normal:
        q += 1
    q = _past_swallowing(w.ops, w.n, q)
    if q is None or q in w.normal:
        return None
    op = w.ops[q]
    if op.name != "JUMP":
        return q
    t = op.target.index
    return t if t > q and all(j not in w.normal for j in range(q, t)) else None


def _rejoins(w, hs, target) -> bool:
    """Handler code from ``hs`` ends in a jump to ``target``."""
    k = hs
    while k < w.n and k not in w.normal:
        op = w.ops[k]
        if op.name == "JUMP" and op.target is target:
            return True
        k += 1
    return False


def _exit_call(w, handler, is_async):
    """The ops of the normal ``__exit__`` call; ``async with`` awaits it, the await
    spelled as in the handler's own ``WITH_EXCEPT_START; GET_AWAITABLE`` ."""
    if not is_async:
        return _EXIT_CALL
    k = handler.target.index
    ops = w.ops
    while k < w.n and ops[k].name != "WITH_EXCEPT_START":
        if k - handler.target.index > 2:
            raise DecompileFailure("async with handler not understood")
        k += 1
    if k + 1 >= w.n or ops[k + 1].name != "GET_AWAITABLE":
        raise DecompileFailure("async with handler not understood")
    return _EXIT_CALL[:4] + [("GET_AWAITABLE", ops[k + 1].arg), ("LOAD_CONST", None),
                             ("YIELD_FROM", None), ("POP_TOP", None)]


def _exit_join(w, lo, body_end, handler, exit_call) -> int:
    """The body's normal ``__exit__`` call, when a jump from the body reaches it past
    the covered ops (``if c: return x`` leaves through its own copy of the call, and
    the ops of that return are not covered): the body ends there."""
    ops = w.ops
    hs = handler.target.index
    end = body_end
    # (the handler code of a try statement in the body lies before the handler,
    # covered too: an except clause's way out jumps to the call as well)
    covered = w.regions.covered
    for k in range(lo, hs if lo < hs else body_end):
        t = ops[k].target
        if t is not None and end < t.index and (t.index < hs or hs < lo) \
                and (k < body_end or covered(ops[k], handler)) \
                and names(ops, t.index, t.index + len(exit_call)) == exit_call:
            end = t.index
    return end


def with_exit_at(w, m, i) -> Optional[int]:
    """A copy of an enclosing with's ``__exit__`` call at ``i``, on a way out of its
    body (``break``, ``continue``, ``return``): drop the exit function from the
    stack and return where the copy ends. ``return value`` calls it with the value
    kept on top: ``SWAP 2; <__exit__ call>``."""
    below = 2 if w.ops[i].name == "SWAP" and w.ops[i].arg == 2 else 1
    if len(m.stack) < below or not isinstance(m.stack[-below], WithExit):
        return None
    exit_call = m.stack[-below].exit_call
    start = i + below - 1
    if names(w.ops, start, start + len(exit_call)) != exit_call:
        return None
    del m.stack[-below]
    return start + len(exit_call)


def _skip_exit_call(ops, k, sub, exit_call):
    """The normal ``__exit__`` call, maybe after a SWAP that moves a return value
    under it."""
    if k < len(ops) and ops[k].name == "SWAP" and ops[k].arg == 2:
        k += 1
        ret = sub.pop()
        sub.pop()          # the exit function
        sub.push(ret)
        skip_exit = True
    else:
        skip_exit = False
    if names(ops, k, k + len(exit_call)) != exit_call:
        raise DecompileFailure("with statement without its __exit__ call")
    if not skip_exit:
        sub.pop()          # the exit function
    return k + len(exit_call)
