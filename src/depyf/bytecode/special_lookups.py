"""3.14+ ``with`` statements, written as 3.13 wrote them.

3.14 dropped ``BEFORE_WITH``: the compiler looks ``__exit__`` and
``__enter__`` up with ``LOAD_SPECIAL``, each a (function, self) pair, and
keeps the exit's pair on the stack through the body where 3.13 kept one
bound method. So every ``with`` holds one more stack item than in 3.13,
which shows in its exit calls (``CALL 3`` for ``CALL 2``), in its handler
(a third ``POP_TOP`` after ``POP_EXCEPT``), in the shuffle of a ``return``
value past it (``SWAP 3; SWAP 2`` for ``SWAP 2``), and in the depth of
every exception handler inside it. :func:`with_specials` rewrites all of
that back, so the structurer meets one spelling of ``with``::

    cm; COPY 1; LOAD_SPECIAL __exit__; SWAP 2; SWAP 3;
        LOAD_SPECIAL __enter__; CALL 0                 -> cm; BEFORE_WITH
    (leaving the body) LOAD_CONST None x3; CALL 3      -> LOAD_CONST None x3; CALL 2
    H: PUSH_EXC_INFO; WITH_EXCEPT_START ...
       POP_EXCEPT; POP_TOP; POP_TOP; POP_TOP           -> ... POP_EXCEPT; POP_TOP; POP_TOP
    handlers inside n with bodies: depth d             -> depth d - n

Example (3.14's ``with a: pass``, as decoded)::

    >>> from depyf.bytecode.ir import Function, Handler, Op
    >>> ops = [Op("LOAD_FAST", "a"), Op("COPY", 1), Op("LOAD_SPECIAL", 1), Op("SWAP", 2),
    ...        Op("SWAP", 3), Op("LOAD_SPECIAL", 0), Op("CALL", 0), Op("POP_TOP")]
    >>> exit_call = [Op("LOAD_CONST", None) for _ in range(3)] + [Op("CALL", 3), Op("POP_TOP")]
    >>> handler = [Op("PUSH_EXC_INFO"), Op("WITH_EXCEPT_START"), Op("POP_EXCEPT"),
    ...            Op("POP_TOP"), Op("POP_TOP"), Op("POP_TOP"), Op("RETURN_VALUE")]
    >>> ops[-1].handler = Handler(handler[0], 2, True)
    >>> f = Function(None, ops + exit_call + handler)
    >>> with_specials(f, None)
    >>> [op.name for op in f.ops][:7], f.ops[6].arg, f.ops[2].handler.depth
    (['LOAD_FAST', 'BEFORE_WITH', 'POP_TOP', 'LOAD_CONST', 'LOAD_CONST', 'LOAD_CONST', 'CALL'], 2, 1)
    >>> [op.name for op in f.ops][7:]
    ['POP_TOP', 'PUSH_EXC_INFO', 'WITH_EXCEPT_START', 'POP_EXCEPT', 'POP_TOP', 'POP_TOP', 'RETURN_VALUE']
"""
from __future__ import annotations

from typing import Dict, List, Optional, Set

from .edits import remove_ops
from .ir import NO_FALLTHROUGH, Function, Handler, Op

#: LOAD_SPECIAL's argument -> the method it looks up (the order of 3.14's table)
SPECIAL_NAMES = ("__enter__", "__exit__", "__aenter__", "__aexit__")
#: the __enter__-side lookup -> the op 3.13 wrote for the whole prologue
_ENTER = {"__enter__": "BEFORE_WITH", "__aenter__": "BEFORE_ASYNC_WITH"}
#: the __exit__ looked up with each __enter__
_EXIT_OF = {"__enter__": "__exit__", "__aenter__": "__aexit__"}


def with_specials(func: Function, table) -> None:
    """See the module docstring."""
    func.reindex()      # (nothing moves until remove_ops: indices hold throughout)
    ops = func.ops
    withs = _with_handlers(ops)
    doomed: List[Op] = []
    _prologues(ops, table, doomed)
    if withs:
        # (which withs hold each handler reads only targets: worked out once for
        # the exit calls and the depths)
        cleanups = _cleanups(ops, withs)
        memo: Dict[Handler, frozenset] = {}
        _exit_calls(ops, withs, cleanups, memo, doomed)
        _handler_pops(ops, withs, doomed)
        _depths(ops, withs, cleanups, memo)
    remove_ops(func, doomed)


def _special(op: Op, table) -> Optional[str]:
    if op.name != "LOAD_SPECIAL":
        return None
    names = getattr(table, "special_method_names", None) or SPECIAL_NAMES
    arg = op.arg
    if isinstance(arg, str):
        return arg
    return names[arg] if isinstance(arg, int) and 0 <= arg < len(names) else None


def _prologues(ops: List[Op], table, doomed: List[Op]) -> None:
    """``COPY 1; LOAD_SPECIAL exit; SWAP 2; SWAP 3; LOAD_SPECIAL enter; CALL 0``
    -> ``BEFORE_WITH`` (the COPY becomes it: what jumps there still does)."""
    for i in range(len(ops) - 5):
        copy, exit_, swap2, swap3, enter, call = ops[i:i + 6]
        if copy.name != "COPY" or copy.arg != 1:
            continue
        entered = _special(enter, table)
        if (entered in _ENTER and _special(exit_, table) == _EXIT_OF[entered]
                and swap2.name == "SWAP" and swap2.arg == 2
                and swap3.name == "SWAP" and swap3.arg == 3
                and call.name == "CALL" and call.arg == 0):
            copy.name, copy.arg = _ENTER[entered], None
            doomed += [exit_, swap2, swap3, enter, call]


def _with_handlers(ops: List[Op]) -> Set[Handler]:
    """The handlers that start a with statement's exit on an exception."""
    found = set()
    for op in ops:
        h = op.handler
        if h is not None and h not in found:
            t = h.target.index
            if t + 1 < len(ops) and ops[t].name == "PUSH_EXC_INFO" \
                    and ops[t + 1].name == "WITH_EXCEPT_START":
                found.add(h)
    return found


def _enclosing_withs(ops: List[Op], h: Optional[Handler], withs: Set[Handler],
                     cleanups: Dict[int, int], memo: Dict[Handler, frozenset]) -> frozenset:
    """The with handlers whose bodies hold ``h`` (or whose own handler code
    ``h`` covers): up the chain handler -> the handler covering its code."""
    chain = []
    found: frozenset = frozenset()
    seen = set()
    while h is not None and h not in seen:
        if h in memo:
            found = memo[h]
            break
        seen.add(h)
        chain.append(h)
        h = ops[h.target.index].handler
    # (a with statement is known by its handler's first op: the exception
    # table may cover its body with several entries, one Handler each)
    for link in reversed(chain):
        mine = set()
        if link in withs:
            mine.add(id(link.target))
        cleaned = cleanups.get(id(link.target))
        if cleaned is not None:
            mine.add(cleaned)
        found = memo[link] = found | mine
    return found


def _exit_calls(ops: List[Op], withs: Set[Handler], cleanups: Dict[int, int],
                memo: Dict[Handler, frozenset], doomed: List[Op]) -> None:
    """``LOAD_CONST None x3; CALL 3`` where control leaves a with body -> ``CALL 2``;
    a ``SWAP 3; SWAP 2`` just before it (a return value moved below the exit's
    pair) -> ``SWAP 2``."""
    into: Dict[int, List[Op]] = {}
    for op in ops:
        if op.target is not None:
            into.setdefault(id(op.target), []).append(op)
    for i in range(len(ops) - 3):
        if not _is_exit_call(ops, i):
            continue
        # (a return value is moved below the exit's pair first, outside the body)
        start = i - 2 if i >= 2 and ops[i - 1].name == "SWAP" and ops[i - 1].arg == 2 \
            and ops[i - 2].name == "SWAP" and ops[i - 2].arg == 3 else i
        swaps = start
        while start and ops[start - 1].name == "NOP":
            start -= 1      # (a line's NOP before it, what the body's jumps may aim at)
        preds = [p for k in range(start, i + 1) for p in into.get(id(ops[k]), ())]
        if start and ops[start - 1].name not in NO_FALLTHROUGH and not _is_jump(ops[start - 1]):
            preds.append(ops[start - 1])
        here = _enclosing_withs(ops, ops[i].handler, withs, cleanups, memo)
        if not any(_enclosing_withs(ops, p.handler, withs, cleanups, memo) - here for p in preds):
            continue        # a call of some function with three Nones
        ops[i + 3].arg = 2
        if swaps != i:
            doomed.append(ops[swaps])


def _is_exit_call(ops: List[Op], i: int) -> bool:
    return all(ops[i + k].name == "LOAD_CONST" and ops[i + k].arg is None for k in range(3)) \
        and ops[i + 3].name == "CALL" and ops[i + 3].arg == 3


def _is_jump(op: Op) -> bool:
    # (END_ASYNC_FOR's target says where its loop starts: it falls through)
    return op.target is not None and not _is_conditional(op) and op.name != "END_ASYNC_FOR"


def _is_conditional(op: Op) -> bool:
    return op.target is not None and ("_IF_" in op.name or op.name in ("FOR_ITER", "SEND"))


def _cleanups(ops: List[Op], withs: Set[Handler]) -> Dict[int, int]:
    """id of the first op of the clean-up handler covering each with handler's
    code -> id of that with handler's first op (by first ops: the exception
    table may cover one handler's code with several entries)."""
    out = {}
    for w in withs:
        cleanup = ops[w.target.index].handler
        if cleanup is not None:
            out[id(cleanup.target)] = id(w.target)
    return out


def _handler_pops(ops: List[Op], withs: Set[Handler], doomed: List[Op]) -> None:
    """The with handler pops the exit's pair and the exception's three items
    after POP_EXCEPT, 3.13 one item less: the first of them goes."""
    for w in withs:
        k = w.target.index + 2
        while k < len(ops) and ops[k].name != "POP_EXCEPT":
            if ops[k].name == "PUSH_EXC_INFO":
                break       # (another handler: not this one's layout)
            k += 1
        if k + 3 < len(ops) and ops[k].name == "POP_EXCEPT" \
                and all(ops[k + n].name == "POP_TOP" for n in (1, 2, 3)):
            doomed.append(ops[k + 1])


def _depths(ops: List[Op], withs: Set[Handler], cleanups: Dict[int, int],
            memo: Dict[Handler, frozenset]) -> None:
    """Every handler's depth less the with statements' extra items below it."""
    handlers = []
    seen = set()
    for op in ops:
        h = op.handler
        if h is not None and h not in seen:
            seen.add(h)
            handlers.append(h)
    # (all counted before any depth changes: the chains read only targets)
    extra = [len(_enclosing_withs(ops, h, withs, cleanups, memo)) for h in handlers]
    for h, n in zip(handlers, extra):
        h.depth -= n
