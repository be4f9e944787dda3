"""3.14+ calls of ``all``/``any``/``tuple`` (3.15: ``list``, ``set`` too) on a
generator expression, written as the plain call they stand for.

The compiler inlines such a call: it loads the name, checks that it is
still the builtin, and if so runs the generator expression in a loop of its
own; only otherwise (the name rebound) does it call it. The plain call is
the source's, and it recompiles to the same inlined code, so the fast path
goes and the call is all that is left::

    LOAD_GLOBAL all; COPY 1; LOAD_COMMON_CONSTANT all; IS_OP 0;
        POP_JUMP_IF_FALSE L; <the loop>; L: PUSH_NULL; <genexpr>; CALL 1
    -> LOAD_GLOBAL all; PUSH_NULL; <genexpr>; CALL 1

Example::

    >>> from depyf.bytecode.ir import Function, Op
    >>> call = [Op("PUSH_NULL"), Op("LOAD_FAST", "g"), Op("CALL", 1), Op("RETURN_VALUE")]
    >>> fast = [Op("POP_TOP"), Op("LOAD_CONST", True), Op("RETURN_VALUE")]
    >>> ops = [Op("LOAD_GLOBAL", "all"), Op("COPY", 1), Op("LOAD_COMMON_CONSTANT", "all"),
    ...        Op("IS_OP", 0), Op("POP_JUMP_IF_FALSE", target=call[0])] + fast + call
    >>> f = Function(None, ops)
    >>> inlined_builtin_calls(f, None)
    >>> [op.name for op in f.ops]
    ['LOAD_GLOBAL', 'PUSH_NULL', 'LOAD_FAST', 'CALL', 'RETURN_VALUE']
"""
from __future__ import annotations

from .edits import remove_ops
from .ir import Function


def inlined_builtin_calls(func: Function, table) -> None:
    """See the module docstring. (Runs on the decoded ops, after
    ``common_constants`` has named the builtin.)"""
    ops = func.ops
    doomed = []
    position = None
    i = 1
    while i + 3 < len(ops):
        copy, check, is_op, jump = ops[i:i + 4]
        if not (copy.name == "COPY" and copy.arg == 1 and check.name == "LOAD_COMMON_CONSTANT"
                and is_op.name == "IS_OP" and is_op.arg == 0
                and jump.name == "POP_JUMP_IF_FALSE" and jump.target is not None):
            i += 1
            continue
        name = _builtin_name(check.arg, table)
        load = ops[i - 1]
        if position is None:
            position = {id(op): k for k, op in enumerate(ops)}
        end = position.get(id(jump.target))
        if (name is None or _loaded_name(load) != name
                or end is None or end <= i or ops[end].name != "PUSH_NULL"
                or not _closed(ops, i, end, position)):
            i += 1
            continue
        doomed += ops[i:end]
        i = end
    remove_ops(func, doomed)


def _loaded_name(op):
    """The name ``op`` loads last (a fused pair's second), or None."""
    if op.name.endswith("_LOAD_FAST") or op.name == "LOAD_FAST_BORROW_LOAD_FAST_BORROW":
        return op.arg[-1] if isinstance(op.arg, tuple) else None
    return op.arg if op.name.startswith("LOAD_") and op.name != "LOAD_CONST" else None


def _builtin_name(arg, table):
    value = table.common_constant(arg) if table is not None else arg
    return getattr(value, "__name__", value) if value is not None else None


def _closed(ops, lo: int, hi: int, position) -> bool:
    """Nothing outside ``ops[lo:hi]`` jumps or raises into it past its first op."""
    for k, op in enumerate(ops):
        if lo <= k < hi:
            continue
        for aim in (op.target, op.handler.target if op.handler is not None else None):
            if aim is not None and lo < position.get(id(aim), -1) < hi:
                return False
    return True
