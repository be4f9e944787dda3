"""3.8's finally machinery rewritten into 3.9's shape.

3.8 runs one copy of a finally body on every way out, entering it with
BEGIN_FINALLY (normal exit), CALL_FINALLY (return/break/continue) or an
exception, and leaving with END_FINALLY / POP_FINALLY. 3.9 instead copies the
body onto each exit and ends the exceptional copy with RERAISE. This pass does
that copying, so the 3.9/3.10 block-stack pass (and everything after it) sees
one shape::

    SETUP_FINALLY F                 SETUP_FINALLY F'
    body                            body
    POP_BLOCK                       POP_BLOCK
    BEGIN_FINALLY             ->    fin
    F: fin                          ...
    END_FINALLY                     F': fin (copy); RERAISE          (appended)

    ...; POP_BLOCK; CALL_FINALLY F; RETURN_VALUE  ->  ...; POP_BLOCK; fin (copy); RETURN_VALUE

    except clauses: DUP_TOP; E; COMPARE_OP exception-match; POP_JUMP_IF_FALSE n
                 -> DUP_TOP; E; JUMP_IF_NOT_EXC_MATCH n; the last END_FINALLY -> RERAISE
    except E as e: SETUP_FINALLY N; body; POP_BLOCK; BEGIN_FINALLY;
                   N: e = None; del e; END_FINALLY; POP_EXCEPT
                -> SETUP_FINALLY N'; body; POP_BLOCK; POP_EXCEPT; e = None; del e;
                   ... N': e = None; del e; RERAISE                   (appended)
    with:          POP_BLOCK; BEGIN_FINALLY; WITH_CLEANUP_START; WITH_CLEANUP_FINISH;
                   END_FINALLY (or POP_FINALLY 0 before a return)
                -> POP_BLOCK; LOAD_CONST None; DUP_TOP; DUP_TOP; CALL 3; POP_TOP
                   and the handler W': WITH_EXCEPT_START; POP_JUMP_IF_TRUE T; RERAISE;
                   T: POP_TOP x3; POP_EXCEPT; POP_TOP; JUMP after  (appended)
    async with:    the same, with the __aexit__ await (GET_AWAITABLE; LOAD_CONST None;
                   YIELD_FROM) after the call and after WITH_EXCEPT_START

Anything else (a return inside a finally body, ...) leaves the code as it is;
the decompiler then falls back on it.
"""
from __future__ import annotations

from typing import Dict, List, Optional

from .edits import remove_ops
from .ir import Function, Op


class _Unsupported(Exception):
    pass


def finally_to_py39(func: Function, table) -> None:
    for op in func.ops:       # (a loop, not any() over a generator: this sees every op)
        if op.name in _ENTRIES:
            break
    else:
        return
    saved = [(op, op.name, op.arg, op.target) for op in func.ops]
    ops_before = list(func.ops)
    try:
        _rewrite(func)
    except (_Unsupported, ValueError, IndexError):
        for op, name, arg, target in saved:
            op.name, op.arg, op.target = name, arg, target
        func.ops = ops_before


def _rewrite(func: Function) -> None:
    ops = func.ops
    doomed: List[Op] = []
    appended: List[Op] = []
    done = set()
    start = 0
    while True:
        # Copies of a finally body hold copies of the blocks set up inside it,
        # so the blocks are taken one at a time, outer ones (earlier) first.
        # (Each rewrite changes only ops after its set-up: the search goes on
        # from there.)
        k = _next_setup(ops, start, done)
        if k is None:
            break
        setup = ops[k]
        start = k
        done.add(id(setup))
        kind = _kind(ops, setup)
        if kind == "except":
            _except_clauses(ops, setup.target, doomed)
        elif kind == "name":
            _name_cleanup(ops, setup, doomed, appended)
        elif kind == "with":
            _with(ops, setup, doomed, appended)
        else:
            _finally(func, setup, doomed, appended)
        ops.extend(appended)
        del appended[:]
    gone = set(doomed)      # (Ops hash by identity; a list would make this quadratic)
    for op in func.ops:
        if op.name in _LEFTOVERS and op not in gone:
            raise _Unsupported("finally shape")
    remove_ops(func, doomed)


def _next_setup(ops, start: int, done) -> Optional[int]:
    """Index of the first block set-up from ``start`` on not in ``done``, or None."""
    for k in range(start, len(ops)):
        if ops[k].name in _SETUPS and id(ops[k]) not in done:
            return k
    return None


_SETUPS = ("SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH")
_ENTRIES = frozenset({"BEGIN_FINALLY", "END_FINALLY", "CALL_FINALLY"})
_LEFTOVERS = frozenset({"BEGIN_FINALLY", "CALL_FINALLY", "POP_FINALLY", "END_FINALLY"})


def _kind(ops, setup) -> str:
    if setup.name in ("SETUP_WITH", "SETUP_ASYNC_WITH"):
        return "with"
    i = ops.index(setup.target)
    first = [o.name for o in ops[i:i + 4]]
    if first[0] == "DUP_TOP" or first[:3] == ["POP_TOP"] * 3:
        return "except"
    if first[0] == "LOAD_CONST" and ops[i].arg is None and first[1].startswith("STORE") \
            and first[2].startswith("DELETE") and first[3] == "END_FINALLY":
        return "name"
    return "finally"


def _except_clauses(ops, start, doomed) -> None:
    """Type tests to JUMP_IF_NOT_EXC_MATCH; the no-match END_FINALLY to RERAISE."""
    i = ops.index(start)
    while True:
        if ops[i].name == "DUP_TOP":
            j = i + 1
            while ops[j].name != "EXC_MATCH_POP":
                if ops[j].target is not None:
                    raise _Unsupported("jump in an except type")
                j += 1
            test = ops[j + 1]
            if test.name != "POP_JUMP_IF_FALSE":
                raise _Unsupported("except test")
            doomed.append(ops[j])
            test.name = "JUMP_IF_NOT_EXC_MATCH"
            i = ops.index(test.target)
            continue
        if ops[i].name == "END_FINALLY":
            ops[i].name, ops[i].arg = "RERAISE", 0
            return
        # a bare `except:` is the last clause; its END_FINALLY follows its body
        j = _matching_end(ops, i)
        ops[j].name, ops[j].arg = "RERAISE", 0
        return


def _name_cleanup(ops, setup, doomed, appended) -> None:
    """``except E as e`` body: the shared unbinding block becomes the normal-path
    epilogue after POP_EXCEPT, each ``CALL_FINALLY`` into it (a return or break
    in the clause) a copy of it, and a copy ending in RERAISE is the handler."""
    n = ops.index(setup.target)
    load, store, delete, end = ops[n:n + 4]
    begin = ops[n - 1]
    pop_except = ops[n + 4]
    if pop_except.name != "POP_EXCEPT":
        raise _Unsupported("except-as shape")
    handler = [_clone(load), _clone(store), _clone(delete), Op("RERAISE", 0, line=end.line,
                                                              offset=end.offset)]
    appended.extend(handler)
    setup.target = handler[0]
    for op in list(ops):
        if op.name == "CALL_FINALLY" and op.target is load:
            i = ops.index(op)
            ops[i:i + 1] = _clone_range([load, store, delete])
    if begin.name == "BEGIN_FINALLY":
        # POP_BLOCK; POP_EXCEPT; e = None; del e   (3.9's order)
        doomed.extend([begin, end])
        ops.remove(pop_except)
        ops.insert(ops.index(load), pop_except)
        return
    # The clause never falls off its end: the block runs only on the way out of
    # a return or break, and what follows its END_FINALLY is dead.
    doomed.extend([load, store, delete, end, pop_except])
    after = ops[ops.index(pop_except) + 1]
    if after.name == "JUMP" and not any(o.target is after for o in ops):
        doomed.append(after)


def _finally(func, setup, doomed, appended) -> None:
    ops = func.ops
    f = ops.index(setup.target)
    e = _matching_end(ops, f)
    fin = ops[f:e]
    if any(o.name in ("RETURN_VALUE", "POP_FINALLY", "CALL_FINALLY") for o in fin):
        raise _Unsupported("exit inside a finally body")
    begin = ops[f - 1]
    if begin.name == "BEGIN_FINALLY":
        doomed.append(begin)
    end = ops[e]          # (held: copies put in below move the indices on)
    doomed.append(end)                    # END_FINALLY: the normal copy falls through
    # A jump to the END_FINALLY (the end of an `if` in the body) goes to
    # whatever follows each copy.
    reraise = Op("RERAISE", 0, line=end.line, offset=end.offset)
    copy = _clone_range(fin, end, reraise)
    copy.append(reraise)
    appended.extend(copy)
    original = setup.target
    setup.target = copy[0]
    # Every CALL_FINALLY into this body becomes a copy of it.
    for op in list(ops):
        if op.name == "CALL_FINALLY" and op.target is original:
            i = ops.index(op)
            clone = _clone_range(fin, end, ops[i + 1])
            ops[i:i + 1] = clone
            for other in ops:
                if other.target is op:
                    other.target = clone[0]


_AWAIT = ["GET_AWAITABLE", "LOAD_CONST", "YIELD_FROM"]


def _with(ops, setup, doomed, appended) -> None:
    """(``async with`` awaits ``__aexit__``'s result: ``WITH_CLEANUP_START;
    GET_AWAITABLE; LOAD_CONST None; YIELD_FROM; WITH_CLEANUP_FINISH``.)"""
    w = ops.index(setup.target)
    awaits = setup.name == "SETUP_ASYNC_WITH"
    cleanup = ["WITH_CLEANUP_START"] + (_AWAIT if awaits else []) + ["WITH_CLEANUP_FINISH"]
    n = len(cleanup)
    if [o.name for o in ops[w:w + n]] != cleanup:
        raise _Unsupported("with shape")
    start, end = ops[w], ops[w + n]
    await_ops = ops[w + 1:w + n - 1]
    begin = ops[w - 1]
    if end.name != "END_FINALLY":
        raise _Unsupported("with exit")
    line = start.line
    exit_call = [Op("LOAD_CONST", None, line=line, offset=begin.offset),
                 Op("DUP_TOP", line=line, offset=begin.offset),
                 Op("DUP_TOP", line=line, offset=begin.offset),
                 Op("CALL", (3, (), 1), line=line, offset=start.offset)] \
        + [_clone(o) for o in await_ops] + [Op("POP_TOP", line=line, offset=end.offset)]
    # A true __exit__ result swallows the exception and goes on after the
    # statement (END_FINALLY then falls through), as 3.9 spells it.
    after = ops[w + n + 1]
    if begin.name == "BEGIN_FINALLY":
        ops[w - 1:w + n + 1] = exit_call
    else:
        # The body never falls out of the with (it returns or raises): no
        # normal-path exit call, only the handler's.
        doomed.extend(ops[w:w + n + 1])
    if after.name == "POP_BLOCK":
        # The statement ends an enclosing block, whose own way out follows (a
        # copy of a finally body, an exit call): only user code after the
        # statement needs the swallowing path to be seen.
        tail = [Op("POP_TOP", line=line, offset=start.offset),
                Op("RERAISE", 0, line=line, offset=end.offset)]
    else:
        swallowed = [Op("POP_TOP", line=line, offset=end.offset) for _ in range(3)] \
            + [Op("POP_EXCEPT", line=line, offset=end.offset),
               Op("POP_TOP", line=line, offset=end.offset),
               # (3.9 falls into that code; this jump back is no loop's: marked)
               Op("JUMP", "swallowed", after, line=line, offset=end.offset)]
        tail = [Op("POP_JUMP_IF_TRUE", None, swallowed[0], line=line, offset=start.offset),
                Op("RERAISE", 0, line=line, offset=end.offset)] + swallowed
    handler = [Op("WITH_EXCEPT_START", line=line, offset=start.offset)] \
        + [_clone(o) for o in await_ops] + tail
    appended.extend(handler)
    setup.target = handler[0]
    # `return` inside: BEGIN_FINALLY; <cleanup>; POP_FINALLY 0
    shape = ["BEGIN_FINALLY"] + cleanup + ["POP_FINALLY"]
    for i in range(len(ops) - len(shape) + 1):
        if ops[i].name == "BEGIN_FINALLY" and [o.name for o in ops[i:i + len(shape)]] == shape:
            ops[i:i + len(shape)] = [_clone(o) for o in exit_call]


def _matching_end(ops, f) -> int:
    """The END_FINALLY closing the finally body that starts at ``f``."""
    depth = 0
    for k in range(f, len(ops)):
        name = ops[k].name
        if name in ("SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH"):
            depth += 1
        elif name == "END_FINALLY":
            if depth == 0:
                return k
            depth -= 1
    raise _Unsupported("finally body without END_FINALLY")


def _clone(op: Op) -> Op:
    return Op(op.name, op.arg, op.target, op.line, op.offset, None, op.extra)


def _clone_range(seq: List[Op], end: Op = None, after: Op = None) -> List[Op]:
    """Copies of ``seq`` whose jumps inside the range point at the copies (and
    jumps to ``end``, just past it, at ``after``)."""
    mapping: Dict[int, Op] = {id(o): _clone(o) for o in seq}
    if end is not None:
        mapping[id(end)] = after
    out = []
    for o in seq:
        c = mapping[id(o)]
        if o.target is not None and id(o.target) in mapping:
            c.target = mapping[id(o.target)]
        out.append(c)
    return out
