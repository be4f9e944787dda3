"""3.14+ module and class annotations (PEP 649), written back as annotations.

Since 3.14 a module or class body does not evaluate ``x: int = 1``'s
annotation: it stores ``x = 1``, and the compiler adds an ``__annotate__``
function that builds the annotations dict when someone asks. Where an
annotation may not run (inside an ``if``; at module level always) each one
also leaves a mark in ``__conditional_annotations__`` right after its store,
which the function checks. The structurer meets the function's store as a
:class:`DeferredAnnotations` statement and each mark (``ANNOTATION_MARK i``,
see ``bytecode.normalize.annotation_marks``) as an :class:`AnnotationMark`;
:func:`fold_deferred_annotations` puts each annotation where its mark is,
or, unmarked, on the line its expression has, merged with the store it
annotates::

    __annotate__ = <def __annotate__(format): ... {'x': int} ...>
    x = 1
    <mark 0>                               -> x: int = 1

Example::

    >>> import ast
    >>> body = [ast.Assign([ast.Name("x", ast.Store())], ast.Constant(1)), AnnotationMark(0)]
    >>> def entries(value):
    ...     return [(0, "x", ast.Name("int"), 2)]
    >>> print(ast.unparse(fold_deferred_annotations([DeferredAnnotations(None)] + body, entries)))
    x: int = 1
"""
from __future__ import annotations

import ast
from typing import AbstractSet, Callable, Dict, List, Optional, Tuple

from .failure import DecompileFailure

#: one annotation the function builds: (its mark's number or None, the name,
#: the annotation, the line its expression is on or None)
Entry = Tuple[Optional[int], str, ast.expr, Optional[int]]


class DeferredAnnotations(ast.stmt):
    """Where a body stored its ``__annotate__`` function (``value``)."""
    _fields = ()

    def __init__(self, value):
        super().__init__()
        self.value = value


class AnnotationMark(ast.stmt):
    """Where annotation number ``index`` ran."""
    _fields = ()

    def __init__(self, index: int):
        super().__init__()
        self.index = index


def fold_deferred_annotations(stmts: List[ast.stmt],
                              entries_of: Callable[[object], List[Entry]],
                              epilogue: AbstractSet[str] = frozenset()) -> List[ast.stmt]:
    """``stmts`` (a module's or class's body) with its annotations written back;
    ``entries_of`` reads the ``__annotate__`` function's annotations. An
    annotation on no statement's line goes before the compiler's closing
    statements (a return, stores of the names in ``epilogue``), which carry
    the first line of a class body, not its last."""
    stored = [s for s in stmts if isinstance(s, DeferredAnnotations)]
    if not stored:
        if _marks(stmts):
            raise DecompileFailure("annotation marks without their __annotate__")
        return stmts
    if len(stored) > 1:
        raise DecompileFailure("two __annotate__ functions in one body")
    entries = entries_of(stored[0].value)
    body = [s for s in stmts if s is not stored[0]]
    by_index = {e[0]: e for e in entries if e[0] is not None}
    _place_marked(body, by_index)
    for entry in entries:
        if entry[0] is None:
            _place_by_line(body, entry, _closing_start(body, epilogue))
    return body


def _closing_start(body: List[ast.stmt], epilogue: AbstractSet[str]) -> int:
    at = len(body)
    while at and (isinstance(body[at - 1], ast.Return) or any(
            _stores(body[at - 1], name) for name in epilogue)):
        at -= 1
    return at


def annotate_entries(stmts: List[ast.stmt]) -> List[Entry]:
    """The annotations an ``__annotate__`` body builds (its format check gone):
    ``return {'x': int}``, or ``d = {}; [if 0 in __conditional_annotations__:]
    d['x'] = int; ...; return d``.

    >>> annotate_entries(ast.parse("d = {}\\nif 0 in __conditional_annotations__:\\n    d['x'] = int\\nreturn d").body)[0][:2]
    (0, 'x')
    """
    if len(stmts) == 1 and isinstance(stmts[0], ast.Return) and isinstance(stmts[0].value, ast.Dict):
        d = stmts[0].value
        if all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in d.keys):
            return [(None, k.value, v, getattr(v, "lineno", None)) for k, v in zip(d.keys, d.values)]
        raise DecompileFailure("__annotate__'s dict has keys that are not names")
    if len(stmts) < 2 or not _is_new_dict(stmts[0]) or not (
            isinstance(stmts[-1], ast.Return) and isinstance(stmts[-1].value, ast.Name)
            and stmts[-1].value.id == stmts[0].targets[0].id):
        raise DecompileFailure("__annotate__ does not build its annotations")
    name = stmts[0].targets[0].id
    out = []
    for stmt in stmts[1:-1]:
        index = None
        if isinstance(stmt, ast.If) and not stmt.orelse and len(stmt.body) == 1:
            index = _mark_test(stmt.test)
            stmt = stmt.body[0]
        key = _item_store(stmt, name)
        if key is None:
            raise DecompileFailure("__annotate__ does more than build its annotations")
        # (the store is on the body's first line: the expression is on its own)
        out.append((index, key, stmt.value,
                    getattr(stmt.value, "lineno", None) or getattr(stmt, "lineno", None)))
    return out


def _is_new_dict(stmt) -> bool:
    return isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
        and isinstance(stmt.targets[0], ast.Name) and isinstance(stmt.value, ast.Dict) \
        and not stmt.value.keys


def _mark_test(test) -> Optional[int]:
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.In) \
            and isinstance(test.left, ast.Constant) and type(test.left.value) is int \
            and isinstance(test.comparators[0], ast.Name) \
            and test.comparators[0].id == "__conditional_annotations__":
        return test.left.value
    raise DecompileFailure("__annotate__ tests something but its marks")


def _item_store(stmt, name) -> Optional[str]:
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        t = stmt.targets[0]
        if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == name \
                and isinstance(t.slice, ast.Constant) and isinstance(t.slice.value, str):
            return t.slice.value
    return None


def _blocks(stmts: List[ast.stmt]):
    """Every statement list in ``stmts``, itself first (not inside nested scopes)."""
    yield stmts
    for stmt in stmts:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                yield from _blocks(inner)
        for handler in getattr(stmt, "handlers", None) or ():
            yield from _blocks(handler.body)
        for case in getattr(stmt, "cases", None) or ():
            yield from _blocks(case.body)


def _marks(stmts) -> bool:
    return any(isinstance(s, AnnotationMark) for block in _blocks(stmts) for s in block)


def _place_marked(body: List[ast.stmt], by_index: Dict[int, Entry]) -> None:
    for block in list(_blocks(body)):
        k = 0
        while k < len(block):
            mark = block[k]
            if not isinstance(mark, AnnotationMark):
                k += 1
                continue
            entry = by_index.get(mark.index)
            if entry is None:
                raise DecompileFailure("annotation mark %d without its annotation" % mark.index)
            prev = block[k - 1] if k else None
            if _stores(prev, entry[1]):
                block[k - 1] = _annotated(entry, prev.value, getattr(prev, "lineno", None))
                del block[k]
                continue
            block[k] = _annotated(entry, None, getattr(mark, "lineno", None))
            k += 1


def _place_by_line(body: List[ast.stmt], entry: Entry, end: int) -> None:
    line = entry[3]
    for k, stmt in enumerate(body):
        if _stores(stmt, entry[1]) and line is not None and getattr(stmt, "lineno", None) == line:
            body[k] = _annotated(entry, stmt.value, line)
            return
    at = next((k for k, stmt in enumerate(body)
               if line is not None and (getattr(stmt, "lineno", None) or 0) > line), len(body))
    at = min(at, end)
    body.insert(at, _annotated(entry, None, line))


def _stores(stmt, name: str) -> bool:
    return isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
        and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == name


def _annotated(entry: Entry, value, line) -> ast.AnnAssign:
    node = ast.AnnAssign(target=ast.Name(id=entry[1], ctx=ast.Store()), annotation=entry[2],
                         value=value, simple=1)
    node.lineno = line
    return node
