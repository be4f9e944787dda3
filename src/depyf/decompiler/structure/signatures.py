"""Runs of ops compared by their names: how the structuring modules recognise
code the compiler copied (a ``finally`` body, the code after a ``try``, an
``__exit__`` call) and where control stops falling through.

Example::

    >>> from depyf.bytecode.ir import Op
    >>> ops = [Op("LOAD_FAST", "x"), Op("RETURN_VALUE"), Op("LOAD_CONST", None)]
    >>> names(ops, 0, 2)
    [('LOAD_FAST', 'x'), ('RETURN_VALUE', None)]
    >>> tail_signature(ops, 0, 3)
    [('LOAD_FAST', 'x'), ('RETURN_VALUE', None)]
"""
from __future__ import annotations

from ...bytecode.ir import NO_FALLTHROUGH

#: ops that only a statement holds (the end of one)
STATEMENT_OPS = frozenset({"POP_TOP", "RETURN_VALUE", "RAISE_VARARGS", "RERAISE", "STORE_ATTR",
                           "STORE_SUBSCR", "STORE_GLOBAL", "IMPORT_NAME", "PRINT_EXPR"})
#: stores to a name
NAME_STORES = frozenset({"STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF"})


def names(ops, lo, hi):
    """The name and argument of each of ``ops[lo:hi]`` (a jump's argument left
    out: the copies of one jump aim at different ops)."""
    return [(o.name, o.arg if o.target is None else None) for o in ops[lo:hi]]


#: the ops that end a block the compiler copies onto each way there
_BLOCK_EXITS = frozenset({"RETURN_VALUE", "RAISE_VARARGS", "RERAISE"})


def exit_block(ops, t, limit=None):
    """:func:`names` of the block at ``t`` up to the return or raise that ends
    it, or None when a jump (or, with ``limit``, that many ops) comes first:
    what two copies of one small exit block share (3.10+ copy such blocks
    onto each way there).

    >>> from depyf.bytecode.ir import Op
    >>> exit_block([Op("LOAD_CONST", None), Op("RETURN_VALUE")], 0)
    [('LOAD_CONST', None), ('RETURN_VALUE', None)]
    """
    n = len(ops)
    stop = n if limit is None else min(n, t + limit)
    for k in range(t, stop):
        op = ops[k]
        if op.target is not None:
            return None
        if op.name in _BLOCK_EXITS:
            return names(ops, t, k + 1)
    return None


def same_ops(ops, a: int, b: int, size: int) -> bool:
    """The ``size`` ops from ``b`` repeat those from ``a``, names, arguments
    and lines, none of them a jump: a copy of a small block the compiler laid
    out twice keeps all three.

    >>> from depyf.bytecode.ir import Op
    >>> ops = [Op("LOAD_CONST", None, line=3), Op("RETURN_VALUE", line=3)] * 2
    >>> same_ops(ops, 0, 2, 2)
    True
    """
    return b + size <= len(ops) and all(
        x.name == y.name and x.arg == y.arg and x.line == y.line and x.target is None and y.target is None
        for x, y in zip(ops[a:a + size], ops[b:b + size]))


def tail_signature(ops, k, end):
    """The first ops of a copied tail, up to its first jump or exit."""
    j = k
    while j < end and j < k + 6:
        j += 1
        if ops[j - 1].name in NO_FALLTHROUGH \
                or ops[j - 1].target is not None:
            break
    return names(ops, k, j)


def walrus_store(ops, k: int) -> bool:
    """``COPY 1; STORE x`` (an assignment expression) at ``k``.

    >>> from depyf.bytecode.ir import Op
    >>> walrus_store([Op("LOAD_FAST", "a"), Op("COPY", 1), Op("STORE_FAST", "x")], 2)
    True
    """
    prev = ops[k - 1] if k >= 1 else None
    return ops[k].name in NAME_STORES \
        and prev is not None and prev.name == "COPY" and prev.arg == 1
