"""The parts of an except clause that plain handlers (:mod:`.exceptions`) and
``except*`` handlers (:mod:`.except_star`) read alike: where its type
expression and its body end, the unbinding of its name, and whether its
statements end in a way out.

Example::

    >>> from depyf.bytecode.ir import Op
    >>> ops = [Op("LOAD_CONST", None), Op("STORE_FAST", "e"), Op("DELETE_FAST", "e")]
    >>> name_epilogue(ops, 0, "e")
    True
"""
from __future__ import annotations

import ast

from ..failure import DecompileFailure
from .signatures import exit_block

#: statements control never leaves by their end
TERMINALS = (ast.Return, ast.Raise, ast.Break, ast.Continue)


def clause_body_end(w, p, stop, cleanup) -> int:
    """End of the ops of a clause's body covered by its clean-up handler. A
    ``return`` in a branch (``if c: return x``), or in the else of a try in
    the clause, leaves the covered range early (``POP_EXCEPT; RETURN_VALUE``),
    so the range runs on over what the body's own forward jumps still land
    beyond, and over the handlers of its own try statements laid out there."""
    ops = w.ops
    end = p
    while True:
        while end < stop and w.regions.covered(ops[end], cleanup):
            end += 1
        # (not to a copy of the way out at ``end``: 3.12+ copy a clause's way
        # out, which returns, onto each jump to it)
        beyond = [o.target.index for o in ops[p:end]
                  if o.target is not None and end < o.target.index < stop
                  and not copied_exit(w, end, o.target.index)]
        if p < end < stop and _value_directly_under(ops, end, cleanup) and _own_return(w, end, stop):
            beyond += [h.target.index for h in {o.handler for o in ops[p:end] if o.handler is not None}
                       if end < h.target.index < stop and w.regions.covered(ops[h.target.index], cleanup)]
        if not beyond:
            return end
        end = max(beyond)


def _value_directly_under(ops, end: int, cleanup) -> bool:
    """The value the way out at ``end`` returns, computed before it (its
    ``SWAP`` then moves it past the exception: 3.13 leaves that outside a
    try's range), is computed under ``cleanup`` itself, not under the
    handler of a try inside the clause: the return is the clause's own code
    (a try's else), not inside that try's body. (A value loaded after the
    way out, a constant, cannot tell and is not asked.)"""
    j = end - 1
    if ops[j].name == "SWAP" and j > 0:
        j -= 1
    elif not (ops[end].name == "SWAP" and j >= 0):
        return True
    h = ops[j].handler
    t = h.target.index if h is not None else len(ops)
    if t + 3 < len(ops) and name_epilogue(ops, t, ops[t + 1].arg) and ops[t + 3].name == "RERAISE":
        h = ops[t].handler      # (``except E as name``'s unbinding: the clause's own)
    return h is not None and cleanup.same_place(h)


def _own_return(w, k: int, stop: int) -> bool:
    """The way out at ``k`` returns (or raises), and no copy of it follows
    before ``stop``: a return of the clause's own, after which more of the
    clause may be laid out (a try's handlers, when the return ends its else).
    A way out that jumps on, or that 3.12+ copied from the code after the
    statement onto each way there, is where the clause ends."""
    block = exit_block(w.ops, k)
    return block is not None and not any(copied_exit(w, k, j) for j in range(k + 1, stop)
                                         if w.ops[j].name == w.ops[k].name)


def copied_exit(w, a: int, b: int) -> bool:
    """The ops from ``b`` repeat those from ``a`` (``a != b``) up to a return or
    raise, with no jump: two copies of one small exit block (more than the
    return alone)."""
    if a == b:
        return False
    block = exit_block(w.ops, a)
    return block is not None and len(block) > 1 and block == exit_block(w.ops, b)


def clause_type_end(w, sub, p: int, he: int, test: str, what: str) -> int:
    """Step the ops of an except clause's type expression, from ``p``, on ``sub``
    up to its ``test`` op (CHECK_EXC_MATCH, CHECK_EG_MATCH); where that op is
    (``he`` if it is missing). The type is then ``sub``'s top."""
    ops = w.ops
    j = p
    while j < he and ops[j].name != test:
        if ops[j].target is not None:
            raise DecompileFailure("jump inside an %s type" % what)
        sub.step(ops[j])
        j += 1
    return j


def terminal(m):
    """The last statement the machine ``m`` emitted is a way out (a return,
    raise, break or continue)."""
    return m.stmts and isinstance(m.stmts[-1], TERMINALS)


def name_epilogue(ops, k, name) -> bool:
    """``LOAD_CONST None; STORE name; DELETE name`` that ends ``except E as name``."""
    return (k + 2 < len(ops) and ops[k].name == "LOAD_CONST" and ops[k].arg is None
            and ops[k + 1].name.startswith("STORE") and ops[k + 1].arg == name
            and ops[k + 2].name.startswith("DELETE") and ops[k + 2].arg == name)


def else_before_dead_tail(stmts):
    """``if c: return a`` then ``return b`` ending a block compile alike, except
    that (up to 3.9) the if/else leaves the block's own way out behind,
    unreached (a return drops the dead code after it; the if's end label keeps
    it): a function's closing ``return None``, an except clause's
    ``POP_EXCEPT; JUMP``. When it is there, the trailing statements were the
    else branch::

        >>> stmts = ast.parse("if c: return 1\\nx = 2\\nreturn x").body
        >>> print(ast.unparse(else_before_dead_tail(stmts)))
        if c:
            return 1
        else:
            x = 2
            return x
    """
    if not (stmts and isinstance(stmts[-1], ast.Return)):
        return stmts
    # Any such if will do: each statement before the last ends where the next
    # begins, so whichever if takes the rest as its else ends the block, and
    # the code is the same. Not one whose body raises: with an else, the jump
    # over it would stay after the raise, unreached, where the structurer
    # would have met it.
    # A try statement whose clauses all return does as well: its else is laid
    # out after the handlers, where the code after it would be.
    for k in range(len(stmts) - 2, -1, -1):
        stmt = stmts[k]
        if _leaves_by_return(stmt):
            stmt.orelse = stmts[k + 1:]
            return stmts[:k + 1]
    return stmts


def _leaves_by_return(stmt) -> bool:
    if isinstance(stmt, ast.If):
        return not stmt.orelse and bool(stmt.body) and isinstance(stmt.body[-1], TERMINALS) \
            and not isinstance(stmt.body[-1], ast.Raise)
    return type(stmt) is ast.Try and not stmt.orelse and not stmt.finalbody \
        and all(h.body and isinstance(h.body[-1], ast.Return) for h in stmt.handlers)
