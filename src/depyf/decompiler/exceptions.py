"""try/except/else/finally and with statements, from explicit handler regions.

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

    with: cm ; BEFORE_WITH ; STORE name | POP_TOP ; body (handler W)
          LOAD_CONST None x3 ; CALL 2 ; POP_TOP
"""
from __future__ import annotations

import ast
from typing import List, Optional

from .expressions import DecompileFailure, StackMachine
from .values import CaughtException, Entered, ExcInfo, Iterator, WithExit


class Regions:
    """Questions about handler coverage for one code object."""

    def __init__(self, ops):
        self.ops = ops

    def parent(self, handler):
        """The handler that covers ``handler``'s own code."""
        return self.ops[handler.target.index].handler

    def covered(self, op, handler) -> bool:
        h = op.handler
        seen = 0
        while h is not None and seen < 64:
            if h is handler or (h.target is handler.target and h.depth == handler.depth):
                return True
            h = self.parent(h)
            seen += 1
        return False

    def cleanup_of(self, handler):
        """The clean-up handler covering a handler's code (COPY 3; POP_EXCEPT; RERAISE 1)."""
        return self.ops[handler.target.index].handler


def names(ops, lo, hi):
    return [(o.name, o.arg if o.target is None else None) for o in ops[lo:hi]]


# -- try statements ------------------------------------------------------------------

def try_statement(w, m: StackMachine, i: int, hi: int, handler) -> int:
    ops = w.ops
    regions = w.regions
    start = ops[handler.target.index]
    if start.name != "PUSH_EXC_INFO":
        raise DecompileFailure("handler does not start with PUSH_EXC_INFO")
    hs = handler.target.index
    cleanup = regions.cleanup_of(handler)
    he = cleanup.target.index if cleanup is not None else w.n
    line = ops[i].line
    if _is_finally(w, hs, he):
        return _try_finally(w, m, i, hi, handler, hs, he, line)
    return _try_except(w, m, i, hi, handler, hs, he, line)


def _body_end(w, i, hi, handler, limit=None):
    """Last op of the try body: the last op in layout covered by ``handler``
    before its handler code (finally copies inside are skipped by the walker)."""
    end = i
    stop = min(hi, limit if limit is not None else hi)
    normal = i in w.normal
    for j in range(i, stop):
        # Handler code of nested statements is covered too but lies elsewhere.
        if (j in w.normal) == normal and w.regions.covered(w.ops[j], handler):
            end = j + 1
    return end


def _is_finally(w, hs, he) -> bool:
    ops = w.ops
    j = hs + 1
    if ops[j].name in ("POP_TOP",) or ops[j].name.startswith("STORE"):
        return False            # bare except
    while j < he and ops[j].target is None and ops[j].name not in ("CHECK_EXC_MATCH", "RERAISE",
                                                                     "POP_TOP", "CHECK_EG_MATCH"):
        j += 1
    return not (j < he and ops[j].name in ("CHECK_EXC_MATCH", "CHECK_EG_MATCH"))


def _try_except(w, m, i, hi, handler, hs, he, line) -> int:
    ops = w.ops
    inline = hs > i and any(k in w.normal for k in range(hs, w.n))
    limit = hs if inline else hi
    body_end = _body_end(w, i, hi, handler, limit)
    if inline:
        body_end = _extend_inline_body(w, i, body_end, hs)
    body, body_end = _try_body(w, m, i, body_end, handler)
    clauses, exits, tails = _clauses(w, m, hs, he, handler)
    end = _join(w, body_end, hs, he, hi, exits, [t[0] for t in tails], inline)
    if end is None or end >= hi:
        # The try ends its loop's body: a clause falling off its end goes round.
        for clause in clauses:
            if clause.body and getattr(clause.body[-1], "fall_off", False):
                clause.body = clause.body[:-1] or [ast.Pass()]
    for signature, clause, k, clause_end in tails:
        if end is None or names(ops, end, end + len(signature)) != signature:
            # Not a copy of the code after the try: the clause's own closing
            # statements (e.g. `return False`, whose constant loads after POP_EXCEPT).
            clause.body = _drop_pass(clause.body) + _clause_tail(w, m, k, clause_end)
    orelse: List[ast.stmt] = []
    k = body_end
    if end is None and body_end < hs:
        # Every clause returns or raises; the normal path's code before the
        # inline handler is the else.
        orelse = w.block(body_end, hs, m.stack)
        k = he_after_handlers(w, hs, he)
    elif end is not None:
        stop = min(end, hs) if inline else end
        jump = next((j for j in range(body_end, stop) if ops[j].name == "JUMP"
                     and ops[j].index in w.normal), None)
        if jump is not None and ops[jump].target.index > stop:
            # 3.9/3.10 jump over the handlers to an else placed after them.
            orelse = w.block(body_end, jump, m.stack)
            target = ops[jump].target.index
            if target < end:
                orelse += w.block(target, end, m.stack)
        else:
            if stop - 1 >= body_end and ops[stop - 1].name == "JUMP" and \
                    (ops[stop - 1].target.index == end
                     or (end >= hi and _continues(w, ops[stop - 1]))):
                stop -= 1       # the body's way out (to the join, or on round its loop)
            orelse = w.block(body_end, stop, m.stack) if stop > body_end else []
        k = end
    node = ast.Try(body=body or [ast.Pass()], handlers=clauses, orelse=orelse, finalbody=[])
    node.lineno = line
    m.stmts.append(node)
    return k


def _continues(w, jump) -> bool:
    return any(jump.target.index in loop.continues for loop in w.loops[-1:])


def _extend_inline_body(w, i, body_end, hs) -> int:
    """Ops that cannot raise are left out of the exception table, so a body's
    ``if c: return x`` ends outside it; take in what the body's own forward
    jumps land before (up to the handler)."""
    ops = w.ops
    changed = True
    while changed:
        changed = False
        for k in range(i, body_end):
            t = ops[k].target.index if ops[k].target is not None else -1
            if body_end < t < hs and ops[k].name != "JUMP":
                body_end = t
                changed = True
    return body_end


def _try_body(w, m, i, body_end, handler):
    """Walk a try body; ``return expr`` in it ends with a RETURN_VALUE just past
    the covered range (returning cannot raise), which belongs to the body."""
    sub = StackMachine(w.ctx, m.stack)
    end = max(body_end, w.run_guarded(sub, i, body_end, handler))
    # So does a loop's iterator drop before a return or break (SWAP 2; POP_TOP;
    # RETURN_VALUE or POP_TOP; JUMP), and an enclosing except clause's end
    # (SWAP 2; POP_EXCEPT; RETURN_VALUE).
    while end < w.n and not _terminal(sub):
        op = w.ops[end]
        if _settled(sub.stack, m.stack) and not _drops_iterator(op, sub):
            break
        if not (op.name in ("SWAP", "POP_TOP", "POP_EXCEPT", "RETURN_VALUE")
                or (op.name == "JUMP" and w._is_loop_jump(op))):
            break
        w.step(sub, end, end + 1)
        end += 1
    if len(sub.stack) != len(m.stack) and not _terminal(sub):
        raise DecompileFailure("try body leaves values on the stack")
    return sub.stmts, end


def _drop_pass(body):
    return [s for s in body if not isinstance(s, ast.Pass)]


def _clause_tail(w, m, k, clause_end):
    """Statements after a clause's POP_EXCEPT, up to its return/raise or jump."""
    sub = StackMachine(w.ctx, m.stack)
    w.in_handler += 1
    try:
        while k < clause_end and not _terminal(sub) and w.ops[k].name != "JUMP":
            k = w.step(sub, k, clause_end)
    finally:
        w.in_handler -= 1
    if len(sub.stack) != len(m.stack) and not _terminal(sub):
        raise DecompileFailure("except clause tail leaves values on the stack")
    return sub.stmts or [ast.Pass()]


def _join(w, body_end, hs, he, hi, exits, tails, inline) -> Optional[int]:
    """Where the normal path and the except clauses meet again (None: nowhere)."""
    ops = w.ops
    targets = sorted({t for t in exits if t is not None})
    if targets:
        return targets[-1]
    if inline and ops[hs - 1].name == "JUMP" and ops[hs - 1].target.index >= he:
        return ops[hs - 1].target.index
    start = body_end
    if inline and ops[hs - 1].name == "JUMP" and ops[hs - 1].target.index > hs:
        start = ops[hs - 1].target.index        # 3.10: the else sits after the handlers
    for tail in tails:
        # A clause ended in a copy of the code after the try; find the original.
        for j in range(start, hi):
            if inline and j < hs <= j + len(tail):
                break
            if names(ops, j, j + len(tail)) == tail and j in w.normal:
                return j
    if inline:
        return he_after_handlers(w, hs, he)
    return None


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
            j = p
            while j < he and ops[j].name != "CHECK_EXC_MATCH":
                if ops[j].target is not None:
                    raise DecompileFailure("jump inside an except type")
                sub.step(ops[j])
                j += 1
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
        if exit_target is None and not (body and isinstance(body[-1], _TERMINALS)) and k < clause_end:
            tails.append((_tail_signature(ops, k, clause_end), node, k, clause_end))
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


def _clause_body(w, p, clause_end, base, cleanup, name):
    """Walk one clause's body; return (statements, JUMP target or None, end index)."""
    ops = w.ops
    stop = clause_end
    unbind = ops[p].handler if name is not None and p < clause_end else None
    if unbind is not None and unbind.target.index > p:
        # `except E as name`: the block that unbinds name on the way out is not body.
        stop = min(stop, unbind.target.index)
    body_end = p
    while body_end < stop and w.regions.covered(ops[body_end], cleanup):
        body_end += 1
    sub = StackMachine(w.ctx, base)
    # A loop's body may run past the covered range (a return in it pops the
    # exception state first); the walk says where it ended.
    k = max(body_end, w.run_guarded(sub, p, body_end, cleanup, handler_code=True))
    exit_target = None
    if k < clause_end and ops[k].name == "POP_EXCEPT":
        sub.step(ops[k])
        k += 1
        if name is not None and _name_epilogue(ops, k, name):
            k += 3          # before a return value's last shuffles too
        # `return value` inside the clause finishes after POP_EXCEPT, and a
        # return or break out of a loop drops the loop's iterator there.
        rest = base[:-1]
        w.in_handler += 1
        try:
            while k < clause_end and not _terminal(sub):
                if _settled(sub.stack, rest) and not _drops_iterator(ops[k], sub):
                    break
                if ops[k].name == "JUMP" and not w._is_loop_jump(ops[k]):
                    break
                k = w.step(sub, k, clause_end)
        finally:
            w.in_handler -= 1
        if name is not None and _name_epilogue(ops, k, name):
            k += 3
        if not _terminal(sub) and k + 1 < clause_end and ops[k].name == "POP_EXCEPT" \
                and ops[k + 1].name == "JUMP" and any(isinstance(v, ExcInfo) for v in rest):
            # 3.13 sends the clause on through the enclosing clause's own way out.
            exit_target = k
        elif not _terminal(sub) and k < clause_end and ops[k].name == "JUMP":
            if w._is_loop_jump(ops[k]):
                w.jump(sub, k, clause_end)          # continue/break out of the clause
                # Up to 3.9 an explicit `continue` leaves the clause's own way
                # out after it, dead; without that it may be the clause ending.
                sub.stmts[-1].fall_off = isinstance(sub.stmts[-1], ast.Continue) and \
                    not (k + 1 < w.n and ops[k + 1].name == "POP_EXCEPT")
            else:
                exit_target = ops[k].target.index
    return sub.stmts, exit_target, k


def _settled(stack, rest) -> bool:
    """Whether ``stack`` is back to ``rest`` (no value of a statement pending)."""
    return len(stack) == len(rest) and all(a is b for a, b in zip(stack, rest))


def _drops_iterator(op, m) -> bool:
    return op.name == "POP_TOP" and bool(m.stack) and isinstance(m.stack[-1], Iterator)


def _tail_signature(ops, k, end):
    """The first ops of a copied tail, up to its first jump or exit."""
    j = k
    while j < end and j < k + 6:
        j += 1
        if ops[j - 1].name in ("RETURN_VALUE", "RAISE_VARARGS", "RERAISE", "JUMP") \
                or ops[j - 1].target is not None:
            break
    return names(ops, k, j)


_TERMINALS = (ast.Return, ast.Raise, ast.Break, ast.Continue)


def _terminal(m):
    return m.stmts and isinstance(m.stmts[-1], _TERMINALS)


def _name_epilogue(ops, k, name) -> bool:
    """``LOAD_CONST None; STORE name; DELETE name`` that ends ``except E as name``."""
    return (k + 2 < len(ops) and ops[k].name == "LOAD_CONST" and ops[k].arg is None
            and ops[k + 1].name.startswith("STORE") and ops[k + 1].arg == name
            and ops[k + 2].name.startswith("DELETE") and ops[k + 2].arg == name)


# -- finally -----------------------------------------------------------------------------

def _try_finally(w, m, i, hi, handler, hs, he, line) -> int:
    ops = w.ops
    cleanup = w.regions.cleanup_of(handler)
    j = hs + 1
    while j < w.n and cleanup is not None and _handler_code(w, ops[j], handler, cleanup):
        j += 1
    r = j - 1
    while r > hs and ops[r].name != "RERAISE":
        r -= 1
    if r <= hs:
        raise DecompileFailure("finally handler without its RERAISE")
    fin_lo, fin_hi = hs + 1, r
    fin_ops = names(ops, fin_lo, fin_hi)
    finalbody = w.guarded_block(fin_lo, fin_hi, list(m.stack) + [ExcInfo(), CaughtException()],
                                w.regions.cleanup_of(handler), handler_code=True)
    limit = hs if hs > i else hi
    body_end = _body_end(w, i, hi, handler, limit)
    w.finally_copies.append(fin_ops)
    try:
        sub = StackMachine(w.ctx, m.stack)
        # (a last statement's code may run on past the covered range: a with
        # statement over its inline handler)
        k = max(body_end, w.run_guarded(sub, i, body_end, handler))
    finally:
        w.finally_copies.pop()
    body = sub.stmts
    k = _over_inline_handlers(w, k)
    # The normal way out runs a copy of the finally body.
    if not _terminal(sub) or len(sub.stack) > len(m.stack):
        if names(ops, k, k + len(fin_ops)) != fin_ops:
            raise DecompileFailure("no finally copy after the try body")
        k += len(fin_ops)
        if len(sub.stack) > len(m.stack) and k < w.n and ops[k].name == "RETURN_VALUE":
            w.step(sub, k, k + 1)
            body = sub.stmts
            k += 1
    if len(body) == 1 and isinstance(body[0], ast.Try) and not body[0].finalbody:
        inner = body[0]
        inner.finalbody = finalbody or [ast.Pass()]
        inner.lineno = line
        m.stmts.append(inner)
    else:
        node = ast.Try(body=body or [ast.Pass()], handlers=[], orelse=[],
                       finalbody=finalbody or [ast.Pass()])
        node.lineno = line
        m.stmts.append(node)
    if k < w.n and ops[k].name == "JUMP" and k < hs < ops[k].target.index:
        k = ops[k].target.index          # over an inline handler
    elif k == hs:
        k = he_after_handlers(w, hs, he)
    return k


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
        if h is None or h is handler or (h.target is handler.target and h.depth == handler.depth):
            return False
        if h is cleanup or (h.target is cleanup.target and h.depth == cleanup.depth):
            return True
        h = w.regions.parent(h)
    return False


# -- with ----------------------------------------------------------------------------------

def with_statement(w, m: StackMachine, i: int, hi: int) -> int:
    ops = w.ops
    manager = m.value(m.pop())
    line = m.start_line if m.start_line is not None else ops[i].line
    m.start_line = None
    j = i + 1
    handler = ops[j].handler
    if handler is None:
        raise DecompileFailure("with body without a handler")
    bind = ops[j]
    target = None
    if bind.name.startswith("STORE") or bind.name == "UNPACK_SEQUENCE":
        sub = StackMachine(w.ctx, list(m.stack) + [WithExit(manager), Entered()])
        while sub.stack and isinstance(sub.stack[-1], Entered):
            sub.step(ops[j])
            j += 1
        target = sub.last_target
    elif bind.name == "POP_TOP":
        j += 1
    else:
        raise DecompileFailure("with without a target store or POP_TOP")
    body_end = _body_end(w, j, hi, handler)
    exit_seq = [("LOAD_CONST", None)] * 3
    sub = StackMachine(w.ctx, list(m.stack) + [WithExit(manager)])
    w.finally_copies.append(exit_seq + [("CALL", (2, (), 2)), ("POP_TOP", None)])
    try:
        k = max(body_end, w.run_guarded(sub, j, body_end, handler))
    finally:
        w.finally_copies.pop()
    if not _terminal(sub) or len(sub.stack) > len(m.stack) + 1:
        k = _skip_exit_call(ops, k, sub)
        if len(sub.stack) > len(m.stack) and k < w.n and ops[k].name == "RETURN_VALUE":
            w.step(sub, k, k + 1)
            k += 1
        elif k < w.n and ops[k].name == "JUMP" and k < handler.target.index < ops[k].target.index:
            k = ops[k].target.index      # over the inline handler
    item = ast.withitem(context_expr=manager, optional_vars=target)
    body = sub.stmts
    node = ast.With(items=[item], body=body or [ast.Pass()])
    # `with a, b:` is one statement with two items.
    if len(body) == 1 and isinstance(body[0], ast.With) and getattr(body[0], "lineno", None) == line:
        node.items += body[0].items
        node.body = body[0].body
    node.lineno = line
    m.stmts.append(node)
    return k


def _skip_exit_call(ops, k, sub):
    """``LOAD_CONST None x3; CALL 2; POP_TOP`` (the normal ``__exit__`` call), maybe
    after a SWAP that moves a return value under it."""
    if k < len(ops) and ops[k].name == "SWAP" and ops[k].arg == 2:
        k += 1
        ret = sub.pop()
        sub.pop()          # the exit function
        sub.push(ret)
        skip_exit = True
    else:
        skip_exit = False
    seq = [o.name for o in ops[k:k + 5]]
    if seq[:3] != ["LOAD_CONST"] * 3 or seq[3] != "CALL" or seq[4] != "POP_TOP":
        raise DecompileFailure("with statement without its __exit__ call")
    if not skip_exit:
        sub.pop()          # the exit function
    return k + 5
