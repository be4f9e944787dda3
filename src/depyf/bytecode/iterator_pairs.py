"""3.15's iterator pairs, written as one stack item, as 3.14 and earlier have it.

3.15's ``GET_ITER`` pushes two items, the iterator and an index (or NULL),
which ``FOR_ITER``, ``SEND``, ``END_SEND`` and ``POP_ITER`` read as a pair;
an ``await``'s receiver gets a NULL pushed beside it for ``SEND``. So every
loop holds one more stack item than in 3.14: a ``break`` pops two, a
``return`` in a loop swaps past three, a comprehension's ``LIST_APPEND``
reaches one further down for each of its loops, and every exception
handler inside a loop keeps one more item. ``GET_ITER 3`` is 3.14's
``GET_YIELD_FROM_ITER``, and a generator expression calls ``iter()`` on
its argument itself, where its caller used to.

:func:`iterator_pairs` follows the stack through the code (each op's effect
from the version's table, the pair's readers and writers by name), marks
the slot each pair adds, and rewrites what counts it::

    GET_ITER 0                         -> GET_ITER            (the slot is not there)
    GET_ITER 3                         -> GET_YIELD_FROM_ITER
    POP_TOP (of the pair's slot)       -> (nothing)
    PUSH_NULL (beside a receiver)      -> (nothing)
    SWAP 3 / COPY n / LIST_APPEND n    -> the depth without pair slots
    a handler's depth                  -> the depth without pair slots
    <genexpr>: LOAD_FAST .0; GET_ITER  -> LOAD_FAST .0         (its caller: GET_ITER; CALL 0)
    <genexpr>: LOAD_FAST .0; GET_AITER -> LOAD_FAST .0         (its caller: GET_AITER; CALL 0)

Where the stack cannot be followed (an op the table has no effect for,
paths that disagree), the code is left as it is.

Example (``for x in a: return x``, 3.15, as decoded)::

    >>> from depyf.bytecode.ir import Function, Op
    >>> from depyf.bytecode.versions import get_table
    >>> ret = Op("RETURN_VALUE")
    >>> ops = [Op("LOAD_FAST", "a", extra=0), Op("GET_ITER", 0, extra=0),
    ...        Op("FOR_ITER", extra=0), Op("STORE_FAST", "x", extra=1),
    ...        Op("LOAD_FAST", "x", extra=1), Op("SWAP", 3, extra=3), Op("POP_TOP"),
    ...        Op("POP_TOP"), ret, Op("END_FOR"), Op("POP_ITER"), Op("LOAD_CONST", None, extra=0),
    ...        Op("RETURN_VALUE")]
    >>> ops[2].target = ops[9]
    >>> f = Function(None, ops)
    >>> iterator_pairs(f, get_table((3, 15)))
    >>> [(op.name, op.arg) for op in f.ops][1:8]
    [('GET_ITER', None), ('FOR_ITER', None), ('STORE_FAST', 'x'), ('LOAD_FAST', 'x'), ('SWAP', 2), ('POP_TOP', None), ('RETURN_VALUE', None)]
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from .code import CO_ASYNC_GENERATOR
from .edits import remove_ops, replace_ops
from .ir import Function, Handler, Op

#: a stack slot: a value, the second item of an iterator pair, a generator
#: expression's function (its call passes the iterable), an asynchronous one's
VALUE, PAIR, GENEXPR, ASYNC_GENEXPR = "v", "x", "g", "a"
#: a generator expression's own iterator op -> the stack items it leaves
_PROLOGUE_SLOTS = {"GET_ITER": 2, "GET_AITER": 1}
#: CALL_INTRINSIC_1's operand for a generator's StopIteration wrapper
_STOPITERATION_ERROR = 3
#: what a generator expression's caller gets back, by the slot of its function
_CALLER_ITER = {GENEXPR: "GET_ITER", ASYNC_GENEXPR: "GET_AITER"}

#: ops after which control does not fall through
_STOPS = frozenset({"RETURN_VALUE", "RERAISE", "RAISE_VARARGS", "JUMP_FORWARD",
                    "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT", "JUMP", "JUMP_NO_INTERRUPT"})
#: ops whose target says where they came from (for monitoring), not where they go
_MARKS_ONLY = frozenset({"END_ASYNC_FOR"})
#: depth-relative ops -> how many items the op pops before it counts
_COUNTED = {"SWAP": 0, "COPY": 0, "LIST_APPEND": 1, "SET_ADD": 1, "MAP_ADD": 2,
            # (PEP 798's unpacking in comprehensions: ``[*x for x in y]``)
            "LIST_EXTEND": 1, "SET_UPDATE": 1, "DICT_UPDATE": 1, "DICT_MERGE": 1}


class _Unfollowed(Exception):
    """The stack cannot be followed here: the code is left alone."""


def iterator_pairs(func: Function, table) -> None:
    """See the module docstring."""
    _genexpr_prologue(func)
    ops = func.ops
    names = func.decoded_names
    if names is not None and "GET_ITER" not in names and "SEND" not in names and not any(
            op.name == "LOAD_CONST" and getattr(op.arg, "name", None) == "<genexpr>" for op in ops):
        return      # (a MAKE_FUNCTION of no generator expression: nothing to follow)
    try:
        plan = _follow(ops, table)
    except _Unfollowed:
        return
    doomed, args, depths, calls = plan
    for op in ops:
        if op.name == "GET_ITER":
            if op.extra == 3 or op.arg == 3:
                op.name = "GET_YIELD_FROM_ITER"
            op.arg = op.extra = None
    for op, n in args:
        op.arg = op.extra = n
    for handler, depth in depths.items():
        handler.depth = depth
    remove_ops(func, doomed)
    if calls:
        replace_ops(func, {id(call): [Op(name, None, None, call.line, call.offset, call.handler),
                                      call] for call, name in calls})


def _genexpr_prologue(func: Function) -> None:
    """A generator expression's own ``iter()`` (``aiter()``) of its argument
    goes: its caller gets it back. The handler that turns a StopIteration into
    a RuntimeError counted the iterator below everything (two items for
    ``iter()``'s pair), even where the loop has popped it; it starts from the
    bottom again, as in 3.14::

        LOAD_FAST .0; GET_AITER; RETURN_GENERATOR; ...    (the wrapper's depth 1)
        -> LOAD_FAST .0; RETURN_GENERATOR; ...            (the wrapper's depth 0)
    """
    code = func.code
    ops = func.ops
    if getattr(code, "name", None) == "<genexpr>" and len(ops) > 1 \
            and ops[0].name in ("LOAD_FAST", "LOAD_FAST_BORROW") and ops[0].arg == ".0" \
            and ops[1].name in _PROLOGUE_SLOTS:
        slots = _PROLOGUE_SLOTS[ops[1].name]
        wrappers = {id(op.handler): op.handler for op in ops
                    if op.handler is not None and op.handler.lasti
                    and op.handler.target.name == "CALL_INTRINSIC_1"
                    and op.handler.target.arg == _STOPITERATION_ERROR}
        for handler in wrappers.values():
            handler.depth = max(0, handler.depth - slots)
        remove_ops(func, [ops[1]])


def _follow(ops: List[Op], table):
    """Walk every path, keeping the kinds of the stack's slots at each op
    (each op is stepped once). A state is kept only where paths may meet (a
    jump's or a handler's target): a state reached there again must be the
    one it has; between them an op has one way in, from the op before it."""
    n = len(ops)
    position = {id(op): k for k, op in enumerate(ops)}
    meets = set()
    for op in ops:
        if op.target is not None:
            meets.add(position.get(id(op.target)))
        if op.handler is not None:
            meets.add(position.get(id(op.handler.target)))
    states: Dict[int, list] = {0: []}
    todo = [0]
    doomed: List[Op] = []
    args: List[tuple] = []
    depths: Dict[Handler, int] = {}
    calls: List[Tuple[Op, str]] = []

    def reach(k: Optional[int], state: list) -> None:
        if k is None or k >= n:
            return
        seen = states.get(k)
        if seen is None:
            states[k] = state
            todo.append(k)
        elif seen != state:
            raise _Unfollowed("paths disagree at %d" % k)

    while todo:
        i = todo.pop()
        state = list(states[i])
        while True:
            op = ops[i]
            handler = op.handler
            if handler is not None:
                kept = state[:handler.depth]
                if len(kept) < handler.depth:
                    raise _Unfollowed("handler deeper than the stack")
                depth = len(kept) - kept.count(PAIR)
                if depths.setdefault(handler, depth) != depth:
                    raise _Unfollowed("a handler met at two depths")
                reach(position.get(id(handler.target)),
                      kept + [VALUE] * (1 + bool(handler.lasti)))
            try:
                fall, jump = _step(op, ops, i, state, table, doomed, args, calls)
            except _Unfollowed as e:
                raise _Unfollowed("%s at %d (%s)" % (e, i, op.name)) from None
            if op.target is not None and jump is not None and op.name not in _MARKS_ONLY:
                reach(position.get(id(op.target)), jump)
            i += 1
            if op.name in _STOPS or fall is None or i >= n:
                break
            if i in meets:
                reach(i, fall)
                break
            state = fall
    return doomed, args, depths, calls


def _step(op: Op, ops: List[Op], i: int, state: list, table,
          doomed: list, args: list, calls: list):
    """(the state falling through, the state on the jump) after ``op``."""
    name = op.name
    if name == "GET_ITER":
        _pop(state, 1)
        return state + [VALUE, PAIR], None
    if name == "PUSH_NULL" and _beside_receiver(ops, i):
        doomed.append(op)
        return state + [PAIR], None
    if name == "POP_TOP" and state and state[-1] == PAIR:
        doomed.append(op)
        state.pop()
        return state, None
    if name == "POP_ITER":
        if state and state[-1] == PAIR:
            state.pop()
        _pop(state, 1)
        return state, None
    if name == "END_SEND":
        if len(state) >= 3 and state[-2] == PAIR:
            return state[:-3] + state[-1:], None
        return state[:-2] + state[-1:], None
    if name in _COUNTED and isinstance(op.extra, int):
        below = _COUNTED[name]
        reach_ = op.extra + below if name not in ("SWAP", "COPY") else op.extra
        if reach_ > len(state):
            raise _Unfollowed("%s below the stack" % name)
        window = state[len(state) - reach_:len(state) - below] if below else state[len(state) - reach_:]
        if name in ("SWAP", "COPY") and (state[-reach_] == PAIR or (name == "SWAP" and state[-1] == PAIR)):
            raise _Unfollowed("a pair's slot moved")
        counted = sum(1 for s in window if s != PAIR)
        if counted != op.extra:
            args.append((op, counted))
        if name == "SWAP":
            state[-1], state[-reach_] = state[-reach_], state[-1]
            return state, None
        if name == "COPY":
            return state + [state[-reach_]], None
        _pop(state, below)
        return state, None
    if name == "LOAD_CONST" and getattr(op.arg, "name", None) == "<genexpr>":
        return state + [ASYNC_GENEXPR if op.arg.flags & CO_ASYNC_GENERATOR else GENEXPR], None
    if name == "MAKE_FUNCTION":
        return state, None          # (the code's slot becomes the function's)
    if name == "SET_FUNCTION_ATTRIBUTE":
        if len(state) < 2:
            raise _Unfollowed("SET_FUNCTION_ATTRIBUTE below the stack")
        del state[-2]
        return state, None
    if name == "CALL" and op.extra == 0 and len(state) >= 2 and state[-2] in _CALLER_ITER:
        calls.append((op, _CALLER_ITER[state[-2]]))
        _pop(state, 2)
        return state + [VALUE], None
    jump = _effect(list(state), table.stack_effect(name, op.extra, True), name) \
        if op.target is not None else None
    fall = _effect(state, table.stack_effect(name, op.extra, False), name)
    return fall, jump


def _beside_receiver(ops: List[Op], i: int) -> bool:
    """``PUSH_NULL; <None>; SEND``: the NULL a receiver's pair takes; also
    ``PUSH_NULL; FOR_ITER`` (a generator's, in 3.15's inlined ``all(genexpr)``)."""
    if i + 1 < len(ops) and ops[i + 1].name == "FOR_ITER":
        return True
    return i + 2 < len(ops) and ops[i + 2].name == "SEND" \
        and ops[i + 1].name in ("LOAD_CONST", "LOAD_COMMON_CONSTANT") and ops[i + 1].arg is None


def _pop(state: list, k: int) -> None:
    if k > len(state):
        raise _Unfollowed("stack underflow")
    if k:
        if PAIR in state[len(state) - k:]:
            raise _Unfollowed("a pair's slot taken by another op")
        del state[len(state) - k:]


def _effect(state: list, effect: Optional[int], name: str) -> list:
    if effect is None:
        raise _Unfollowed("no stack effect for %s" % name)
    if effect < 0:
        _pop(state, -effect)
    else:
        state.extend([VALUE] * effect)
    return state
