"""3.9/3.10 block-stack exception handling, rewritten into 3.11's handler form.

Up to 3.10, ``SETUP_FINALLY L`` / ``SETUP_WITH L`` push a block that sends an
exception to ``L`` and ``POP_BLOCK`` pops it; entering a handler pushes an
"except handler" block that ``POP_EXCEPT`` pops. From 3.11 every instruction
instead names its handler in a static table. This pass runs the block stack
over the control flow once, gives every Op the handler 3.11 would give it,
and rewrites the handler prologues, so the decompiler sees one shape::

    SETUP_FINALLY H                     body            (handler H)
    body                                JUMP end
    POP_BLOCK                        H: PUSH_EXC_INFO   (handler C)
    JUMP end                   ->       LOAD_GLOBAL E
    H: DUP_TOP                          CHECK_EXC_MATCH
       LOAD_GLOBAL E                    POP_JUMP_IF_FALSE next
       JUMP_IF_NOT_EXC_MATCH next       STORE_FAST e
       POP_TOP; STORE_FAST e; POP_TOP   ...
       ...                           C: COPY 3; POP_EXCEPT; RERAISE 1   (added)

    cm; SETUP_WITH W; ...; POP_BLOCK              cm; BEFORE_WITH; ...
    LOAD_CONST None; DUP_TOP; DUP_TOP       ->    LOAD_CONST None x3
    CALL (3, (), 1); POP_TOP                      CALL (2, (), 2); POP_TOP
    W: WITH_EXCEPT_START ...                      W: PUSH_EXC_INFO; WITH_EXCEPT_START ...

(``C`` is the clean-up block 3.11 emits for a handler's own code; adding it
keeps "which ops belong to this handler" answerable the same way.)
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from .edits import remove_ops, replace_ops
from .errors import DecodeError
from .ir import Function, Handler, Op

_SETUPS = ("SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH")
_ENDS = frozenset({"RETURN_VALUE", "RAISE_VARARGS", "RERAISE", "JUMP"})

Block = Tuple[str, Op]       # ("setup", handler op) or ("except", handler op)


def block_stack_handlers(func: Function, table) -> None:
    """The pass: handlers per op, rewritten prologues, explicit clean-up blocks."""
    ops = func.ops
    entries = [op for op in ops if op.name in _SETUPS]
    if not entries:
        return
    func.reindex()
    try:
        stacks = _block_stacks(ops)
    except DecodeError:
        return          # not compiler-shaped; the decompiler falls back on it
    kinds = {id(op.target): op.name for op in entries}
    cleanups = _add_cleanups(func, entries)
    # Handlers, from the block stack each op runs under. Runs of ops share one
    # stack object (kept alive in ``stacks``, so its id is stable): its handler
    # is worked out once.
    known = {}
    for op, stack in zip(ops, stacks):
        if stack is None:
            continue
        if op.name == "POP_EXCEPT" and stack:
            op.handler = _handler_for(stack[:-1], cleanups, func)  # it leaves its handler
            continue
        handler = known.get(id(stack), known)
        if handler is known:
            handler = known[id(stack)] = _handler_for(stack, cleanups, func)
        op.handler = handler
    for target, first in cleanups.items():
        # A clean-up block is covered by whatever covered the try statement.
        outer = _handler_for((stacks[target.index] or ())[:-1], cleanups, func)
        i = first.index
        for op in ops[i:i + 3]:
            op.handler = outer
    doomed = _rewrite_prologues(func, entries, kinds)
    ops = func.ops
    for i, op in enumerate(ops):        # (the last changes, in one scan)
        name = op.name
        if name in _DROPPED:
            # (BEFORE_ASYNC_WITH and the __aenter__ await come before SETUP_ASYNC_WITH.)
            doomed.append(op)
        elif name == "SETUP_WITH":
            op.name = "BEFORE_WITH"
            op.target = None
            op.arg = None       # (its handler's offset: copies of one with differ there)
        elif name == "RERAISE":
            if op.arg is None:
                op.arg = 0
        elif name == "LOAD_CONST" and op.arg is None:
            _rewrite_with_exit(ops, i)
    remove_ops(func, doomed)


_DROPPED = frozenset({"SETUP_FINALLY", "POP_BLOCK", "SETUP_ASYNC_WITH"})


def _is_name_cleanup(op_list, i) -> bool:
    """``LOAD_CONST None; STORE x; DELETE x; RERAISE``: ``except E as x`` unbinding x."""
    names = [o.name for o in op_list[i:i + 4]]
    return (len(names) == 4 and names[0] == "LOAD_CONST" and op_list[i].arg is None
            and names[1].startswith("STORE") and names[2].startswith("DELETE")
            and names[3] == "RERAISE")


def _block_stacks(ops: List[Op]) -> List[Optional[Tuple[Block, ...]]]:
    """The block stack each op runs under (None: unreachable), by a forward
    data-flow walk; the ops' ``index`` must be their place in ``ops``."""
    n = len(ops)
    state: List[Optional[Tuple[Block, ...]]] = [None] * n
    work: List[Tuple[int, Tuple[Block, ...]]] = [(0, ())] if ops else []
    while work:
        i, stack = work.pop()
        while i < n:
            seen = state[i]
            if seen is not None:
                if seen != stack:
                    raise DecodeError("inconsistent block stack at offset %d" % ops[i].offset)
                break
            state[i] = stack
            op = ops[i]
            name = op.name
            if name in _BLOCK_OPS:
                if name == "POP_BLOCK":
                    stack = _pop(stack, "setup", op)
                elif name == "POP_EXCEPT":
                    stack = _pop(stack, "except", op)
                else:
                    target = op.target
                    work.append((target.index, stack + (("except", target),)))
                    stack = stack + (("setup", target),)
            elif op.target is not None:
                work.append((op.target.index, stack))
            if name in _ENDS:
                break
            i += 1
    return state


_BLOCK_OPS = frozenset(_SETUPS + ("POP_BLOCK", "POP_EXCEPT"))


def _pop(stack, kind, op):
    if not stack or stack[-1][0] != kind:
        raise DecodeError("%s without a matching block at offset %d" % (op.name, op.offset))
    return stack[:-1]


def _add_cleanups(func: Function, entries: List[Op]) -> Dict[Op, Op]:
    """One ``COPY 3; POP_EXCEPT; RERAISE 1`` block per handler, at the end (its
    ops' ``index`` set); handler op -> the block's first op."""
    cleanups = {}
    for setup in entries:
        target = setup.target
        if target in cleanups:
            continue
        block = [Op("COPY", 3, line=None, offset=target.offset),
                 Op("POP_EXCEPT", line=None, offset=target.offset),
                 Op("RERAISE", 1, line=None, offset=target.offset)]
        for op in block:
            op.index = len(func.ops)
            func.ops.append(op)
        cleanups[target] = block[0]
    return cleanups


def _handler_for(stack, cleanups, func) -> Optional[Handler]:
    """3.11's handler for an op under ``stack``: the innermost block decides."""
    if not stack:
        return None
    kind, target = stack[-1]
    depth = len(stack) - 1
    if kind == "except":
        return _handler(func, cleanups[target], depth, True)
    return _handler(func, target, depth, False)


def _handler(func, target, depth, lasti):
    key = (id(target), depth, lasti)
    cache = func.__dict__.setdefault("_handlers", {})
    h = cache.get(key)
    if h is None:
        h = cache[key] = Handler(target, depth, lasti)
    return h


def _rewrite_prologues(func: Function, entries: List[Op], kinds) -> List[Op]:
    """Handler starts get PUSH_EXC_INFO; except clauses get 3.11's type test.
    (Each a change to its own handler's code: all made in one rebuild of the ops.)
    Returns the ops the clauses no longer need, for the caller to remove."""
    done = set()
    replacements = {}
    clauses = []
    for setup in entries:
        target = setup.target
        if id(target) in done:
            continue
        done.add(id(target))
        if _is_name_cleanup(func.ops, target.index):      # (indexed by the caller)
            continue            # 3.11 has no PUSH_EXC_INFO there either
        handler = target.handler
        push = Op("PUSH_EXC_INFO", line=target.line, offset=target.offset, handler=handler)
        # (the setup's jump, like any other, moves to the push)
        replacements[id(target)] = [push, target]
        _retarget_handlers(func, target, push)
        if kinds[id(target)] == "SETUP_FINALLY":
            clauses.append(target)
    replace_ops(func, replacements)
    doomed = []
    for first in clauses:
        _rewrite_clauses(func, first, doomed)
    return doomed


def _retarget_handlers(func, old, new):
    for h in func.__dict__.get("_handlers", {}).values():
        if h.target is old:
            h.target = new


def _rewrite_clauses(func: Function, first: Op, doomed: List[Op]) -> None:
    """``DUP_TOP; type; JUMP_IF_NOT_EXC_MATCH next; POP_TOP; STORE e; POP_TOP``
    -> ``type; CHECK_EXC_MATCH; POP_JUMP_IF_FALSE next; STORE e``, and a bare
    clause's ``POP_TOP x3`` -> ``POP_TOP``; clause after clause (the ops to drop
    go to ``doomed``, unless the clauses turn out not compiler-shaped)."""
    ops = func.ops
    mine = []
    op = first
    seen = set()
    while op is not None and id(op) not in seen:
        seen.add(id(op))
        i = ops.index(op)
        if op.name == "DUP_TOP":
            j = i + 1
            while j < len(ops) and ops[j].name != "JUMP_IF_NOT_EXC_MATCH":
                if ops[j].target is not None:
                    return
                j += 1
            if j >= len(ops):
                return
            test = ops[j]
            mine.append(op)
            test.name = "POP_JUMP_IF_FALSE"
            check = Op("CHECK_EXC_MATCH", line=test.line, offset=test.offset, handler=test.handler)
            ops.insert(j, check)
            _bind(ops, j + 2, mine)
            op = test.target
        elif [o.name for o in ops[i:i + 3]] == ["POP_TOP"] * 3:
            mine += ops[i + 1:i + 3]          # bare except keeps one POP_TOP
            op = None
        else:
            op = None                            # a finally body
    doomed += mine


def _bind(ops, k, doomed):
    """After the type test: ``POP_TOP; STORE e; POP_TOP`` or ``POP_TOP x3``."""
    names = [o.name for o in ops[k:k + 3]]
    if len(names) == 3 and names[0] == "POP_TOP" and names[2] == "POP_TOP":
        doomed.append(ops[k])
        if names[1] == "POP_TOP":
            doomed.append(ops[k + 2])       # keep one POP_TOP for the exception
        else:
            doomed.append(ops[k + 2])


def _rewrite_with_exit(ops: List[Op], i: int) -> None:
    """At the ``LOAD_CONST None`` ``ops[i]``: ``LOAD_CONST None; DUP_TOP; DUP_TOP;
    CALL (3, (), 1)`` -> 3.11's ``LOAD_CONST None x3; CALL (2, (), 2)``."""
    if i + 3 >= len(ops):
        return
    b, c, d = ops[i + 1], ops[i + 2], ops[i + 3]
    if (b.name == "DUP_TOP" and c.name == "DUP_TOP" and d.name == "CALL"
            and d.arg == (3, (), 1)):
        b.name = c.name = "LOAD_CONST"
        b.arg = c.arg = None
        d.arg = (2, (), 2)


def exc_info_shuffles(func: Function, table) -> None:
    """Up to 3.10 the saved exception state is three stack slots; from 3.11 (and
    after :func:`block_stack_handlers`) it is one, so the shuffles that move a
    return value under it shrink: ``ROT_FOUR`` -> ``SWAP 2``, and a ``return``
    in a finally body that drops the caught exception::

        ROT_FOUR; POP_TOP; POP_TOP; POP_TOP; ROT_FOUR; POP_EXCEPT
        -> SWAP 2; POP_TOP; SWAP 2; POP_EXCEPT

    (3.10's match statements use ROT_FOUR for their own values: left alone.)
    """
    ops = func.ops
    doomed = []
    for i, op in enumerate(ops):
        if op.name != "ROT_FOUR":
            continue
        after = [o.name for o in ops[i + 1:i + 6]]
        if after[:1] == ["POP_EXCEPT"]:
            op.name, op.arg = "SWAP", 2
        elif after == ["POP_TOP"] * 3 + ["ROT_FOUR", "POP_EXCEPT"]:
            op.name, op.arg = "SWAP", 2
            doomed += ops[i + 2:i + 4]
    remove_ops(func, doomed)
