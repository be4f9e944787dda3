"""``try: ... except* E: ...`` (PEP 654) from its handler (3.11+ bytecode).

An ``except*`` handler splits the exception group clause by clause and
collects what each clause raised in a list; at the end the interpreter
builds what is left to raise (normalised shape, see
``bytecode.normalize.except_star_handlers``)::

    H: PUSH_EXC_INFO; BUILD_LIST 0; COPY 2          stack: prev, group, raised, rest
       type; CHECK_EG_MATCH; COPY 1; POP_JUMP_IF_NONE N     one clause each
       STORE name | POP_TOP
       clause body (handler C) ; [name = None; del name] ; JUMP next
       C: [name = None; del name]; LIST_APPEND 3; POP_TOP; JUMP next
       N: POP_TOP
       next: ...
       LIST_APPEND 1; PREP_RERAISE_STAR; COPY 1; POP_JUMP_IF_NOT_NONE R
       POP_TOP; POP_EXCEPT; JUMP end | copy of the code after the try
       R: SWAP 2; POP_EXCEPT; RERAISE 0

Clause bodies cannot ``return``, ``break`` or ``continue`` (a SyntaxError), so
every clause leaves by the one way out after PREP_RERAISE_STAR. The try body,
``else`` and the join with the code after the statement are the plain try
statement's (:func:`depyf.decompiler.structure.exceptions.try_statement` calls
:func:`is_except_star` and hands :func:`clauses` to its except-clause walk).
"""
from __future__ import annotations

import ast

from .clauses import clause_body_end, clause_type_end, name_epilogue, terminal
from .frames import StarClauseFrame
from ..expressions import StackMachine
from ..failure import DecompileFailure
from .signatures import tail_signature
from ..values import CaughtException, ExcInfo, Null

_PROLOGUE = [("BUILD_LIST", 0), ("COPY", 2)]
_EPILOGUE = ["LIST_APPEND", "PREP_RERAISE_STAR", "COPY", "POP_JUMP_IF_NOT_NONE",
             "POP_TOP", "POP_EXCEPT"]


def is_except_star(ops, hs: int) -> bool:
    """The handler at ``hs`` (its PUSH_EXC_INFO) is an ``except*`` one.

    Example: ``[o.name for o in ops[hs:hs + 3]]`` is
    ``["PUSH_EXC_INFO", "BUILD_LIST", "COPY"]`` and a CHECK_EG_MATCH follows.
    """
    if [(o.name, o.arg) for o in ops[hs + 1:hs + 3]] != _PROLOGUE:
        return False
    k = hs + 3
    while k < len(ops) and ops[k].target is None and ops[k].name != "CHECK_EG_MATCH":
        k += 1
    return k < len(ops) and ops[k].name == "CHECK_EG_MATCH"


def clauses(w, m: StackMachine, hs: int, he: int, handler):
    """The ``except*`` clauses of the handler at ``hs``, as the plain try
    statement's clause parser returns them: (ExceptHandler nodes, exit targets,
    tails), where the one tail (``clause`` None) is the copy of the code after
    the statement that the shared way out runs."""
    ops = w.ops
    outer = w.regions.cleanup_of(handler)
    if outer is None:
        raise DecompileFailure("except* handler without its clean-up")
    # previous exception, the group, the list of raised exceptions, the rest
    base = list(m.stack) + [ExcInfo(), CaughtException(), Null(), CaughtException()]
    nodes = []
    p = hs + 3
    while p < he and not (ops[p].name == "LIST_APPEND" and ops[p].arg == 1):
        node, p = _clause(w, p, he, base, outer)
        nodes.append(node)
    if not nodes or [o.name for o in ops[p:p + len(_EPILOGUE)]] != _EPILOGUE:
        raise DecompileFailure("except* handler not understood")
    q = p + len(_EPILOGUE)
    if q < w.n and ops[q].name == "JUMP":
        if w.is_loop_jump(ops[q]) and ops[q].target.index < hs:
            # The statement ends the loop body: the way out starts the next iteration.
            return nodes, [None], []
        return nodes, [ops[q].target.index], []
    return nodes, [None], [(tail_signature(ops, q, w.n), None, q, w.n)]


def _clause(w, p, he, base, outer):
    """One clause from its type test at ``p``; returns (node, start of the next)."""
    ops = w.ops
    sub = StackMachine(w.ctx, base)
    j = clause_type_end(w, sub, p, he, "CHECK_EG_MATCH", "except*")
    if j + 3 >= he or [o.name for o in ops[j + 1:j + 3]] != ["COPY", "POP_JUMP_IF_NONE"]:
        raise DecompileFailure("except* clause without its match test")
    type_expr = sub.value(sub.pop())
    no_match = ops[j + 2].target.index
    bind = ops[j + 3]
    name = None
    if bind.name.startswith("STORE"):
        name = bind.arg
    elif bind.name != "POP_TOP":
        raise DecompileFailure("except* clause does not bind or drop the group")
    p = j + 4
    if not (p < no_match < he and ops[no_match].name == "POP_TOP"):
        raise DecompileFailure("except* clause without its no-match block")
    body = _clause_body(w, p, no_match, base, outer, name)
    node = ast.ExceptHandler(type=type_expr, name=name, body=body or [ast.Pass()])
    node.lineno = bind.line
    return node, no_match + 1


def _clause_body(w, p, stop, base, outer, name):
    """Statements of a clause body starting at ``p`` (its code ends before ``stop``)."""
    ops = w.ops
    guard = _clause_handler(w, p, stop, outer)
    if guard is not None and p < guard.target.index < stop:
        stop = guard.target.index
    end = clause_body_end(w, p, stop, guard) if guard is not None else p
    sub = StackMachine(w.ctx, base)
    with w.frames.push(StarClauseFrame(name)):
        k = max(end, w.run_guarded(sub, p, end, guard or outer, handler_code=True))
    if len(sub.stack) != len(base) and not terminal(sub):
        raise DecompileFailure("except* clause leaves values on the stack")
    if not terminal(sub):
        if name is not None and name_epilogue(ops, k, name):
            k += 3
        if k >= w.n or ops[k].name != "JUMP":
            raise DecompileFailure("except* clause without its jump to the next")
    return sub.stmts


def _clause_handler(w, p, stop, outer):
    """The handler that collects what a clause body raises: the first one over
    the body's ops whose own code the except* handler's clean-up covers."""
    regions = w.regions
    for k in range(p, stop):
        h = w.ops[k].handler
        for _ in range(64):
            if h is None or outer.same_place(h):
                break
            parent = regions.parent(h)
            if outer.same_place(parent):
                return h
            h = parent
    return None


def unbinds_before_jump(ops, i, name) -> bool:
    """``LOAD_CONST None; STORE name; DELETE name; JUMP`` at ``i``: the way out of
    an ``except* E as name`` clause (``name`` None: no name bound)."""
    if name is None or i + 3 >= len(ops):
        return False
    load, store, delete, jump = ops[i:i + 4]
    return (load.name == "LOAD_CONST" and load.arg is None and store.name.startswith("STORE")
            and store.arg == name and delete.name.startswith("DELETE")
            and delete.arg == name and jump.name == "JUMP")
