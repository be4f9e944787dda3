"""Comprehensions: folding a loop that appends into one expression.

Up to 3.11 a comprehension is a nested code object (``<listcomp>``...) called
with the outer iterator; 3.12+ inlines list/set/dict comprehensions into the
enclosing code. Either way the walker rebuilds a ``for`` statement whose body
ends in :class:`~depyf.decompiler.expressions.ComprehensionAppend` (or a
``yield`` for generator expressions), and :func:`build_comprehension` folds it.
"""
from __future__ import annotations

import ast

from .conditionals import negate
from ..expressions import ComprehensionAppend
from ..failure import DecompileFailure

#: the name of the code object a display's comprehension has up to 3.11
COMPREHENSION_NAMES = {ast.List: "<listcomp>", ast.Set: "<setcomp>", ast.Dict: "<dictcomp>"}
#: what adds an item to an inlined comprehension's result (3.15's unpacking
#: ``[*x for x in y]``, PEP 798, extends it)
COMPREHENSION_ADDS = frozenset({"LIST_APPEND", "SET_ADD", "MAP_ADD", "LIST_EXTEND",
                                "SET_UPDATE", "DICT_UPDATE"})


def build_comprehension(name: str, body, iterable) -> ast.expr:
    """Fold the statements of a ``<listcomp>``-style code object into one expression.

    The body is ``[result = []]; for x in .0: [if c: ...] result.append(elt); return result``
    as the walker rebuilt it from the loop, conditions and LIST_APPEND.
    """
    loops = [s for s in body if isinstance(s, (ast.For, ast.AsyncFor))]
    if len(loops) != 1:
        raise DecompileFailure("comprehension body is not one loop")
    generators = []
    element = None
    node = loops[0]
    while True:
        gen = ast.comprehension(target=node.target, iter=node.iter, ifs=[],
                                is_async=int(isinstance(node, ast.AsyncFor)))
        generators.append(gen)
        inner = list(node.body)
        while True:
            if len(inner) >= 1 and isinstance(inner[0], ast.If) and not inner[0].orelse:
                first = inner[0]
                if len(first.body) == 1 and isinstance(first.body[0], ast.Continue):
                    gen.ifs.append(negate(first.test))
                    inner = inner[1:]
                    continue
                if len(inner) == 1:
                    gen.ifs.append(first.test)
                    inner = first.body
                    continue
            break
        if len(inner) == 1 and isinstance(inner[0], (ast.For, ast.AsyncFor)):
            node = inner[0]
            continue
        if len(inner) == 1 and isinstance(inner[0], ComprehensionAppend):
            element = inner[0]
            break
        if len(inner) == 1 and isinstance(inner[0], ast.Expr) and isinstance(inner[0].value, ast.Yield):
            element = inner[0].value
            break
        raise DecompileFailure("comprehension loop body not understood")
    first = generators[0]
    if iterable is not None:
        # A nested-code comprehension iterates its `.0` argument.
        if not (isinstance(first.iter, ast.Name) and first.iter.id == ".0"):
            raise DecompileFailure("comprehension does not iterate its argument")
        first.iter = iterable
    if name == "<genexpr>":
        return ast.GeneratorExp(elt=element.value, generators=generators)
    if name == "<setcomp>":
        return ast.SetComp(elt=element.value, generators=generators)
    if name == "<dictcomp>":
        return ast.DictComp(key=element.key, value=element.value, generators=generators)
    return ast.ListComp(elt=element.value, generators=generators)
