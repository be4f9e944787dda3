"""Which line of a decompiled function each of its instructions went into.

The expression machine marks each node it builds with the offset of the op
it made it from (``node._at``), and each statement it emits with the offset
of the op that emitted it (an ``if`` with those of its jumps); the marks ride
along wherever a pass moves or copies a node. Given the line each statement starts on (the renderer's
``statement_lines``), an instruction belongs to the statement holding a node
made of it: exact, where aligning the recompiled text with the bytecode can
only come near, and it needs no compiling.

Instructions no node was made of (stack shuffles, jumps, the stores and
deletes of temporaries a readable pass dropped) are not in the map: the
caller gives them the line of the instruction before them. The copy of a
finally body the compiler puts on the try's normal way out makes no nodes
either: a ``try`` says which op of the body each of its ops copies
(``_copies``), and they take that op's line.

Example::

    >>> import ast
    >>> fn = ast.parse("def f(a):\\n    x = g(a)\\n    return x").body[0]
    >>> fn.body[0].value._at, fn.body[1].value._at = 4, 10
    >>> offset_lines(fn, {fn: 1, fn.body[0]: 2, fn.body[1]: 3})
    {4: 2, 10: 3}
"""
from __future__ import annotations

import ast
from typing import Dict, Iterator, List, Mapping, Tuple

from .readable.blocks import bodies, header, subnodes

#: nodes whose insides are other code objects' instructions (whose offsets
#: would collide with the function's own)
_OTHER_CODE = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda,
               ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def offset_lines(fn: ast.AST, statement_lines: Mapping[ast.stmt, int]) -> Dict[int, int]:
    """Op offset -> the line of the statement holding what was made of that op,
    for the statements of ``fn``'s body at any depth (nested functions and
    classes are other code objects: left out). An op made into nodes of two
    statements (a read a pass repeats at each use) takes the earlier line."""
    found: List[Tuple[int, int]] = []
    copies: Dict[int, int] = {}
    for stmt in _statements(fn.body):
        line = statement_lines.get(stmt)
        if line is not None:
            found += [(line, at) for at in _header_offsets(stmt)]
        copies.update(getattr(stmt, "_copies", ()))
    lines: Dict[int, int] = {}
    for line, at in sorted(found):
        lines.setdefault(at, line)
    for at, original in copies.items():
        if original in lines:
            lines.setdefault(at, lines[original])
    return lines


def _statements(body: List[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement of ``body``, depth first, not into nested scopes."""
    for stmt in body:
        yield stmt
        for inner in bodies(stmt):
            yield from _statements(inner)


def _header_offsets(stmt: ast.stmt) -> List[int]:
    """The op offsets marked on ``stmt`` and on what it evaluates itself
    (:func:`~.readable.blocks.header`), not inside nested code objects."""
    at = getattr(stmt, "_at", None)
    # (an if's mark is a tuple: the offsets of its jumps)
    out = list(at) if type(at) is tuple else [at] if at is not None else []
    for part in header(stmt):       # (a simple statement is its own header)
        out += [node._at for node in subnodes(part, _OTHER_CODE)
                if node is not stmt and getattr(node, "_at", None) is not None]
    return out
