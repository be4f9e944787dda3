"""What a function object adds to its code object, and the scopes a lone code
object needs around it to recompile to the same bytecode.

A code object alone does not know its defaults, keyword defaults or
annotations (MAKE_FUNCTION supplied them from the enclosing code); a live
function does, so ``decompile(f)`` shows them. A ``def`` without free
variables comes as a top-level one: it compiles to the same code anywhere,
but for the qualified names of functions nested in it up to 3.10 (there a
constant of the code that makes them).
But a ``def`` whose body uses free variables (a closure's ``nonlocal``, a
method's ``super()``) only compiles to the same code inside the scopes that
provide them; its qualified name tells which: ``make.<locals>.step`` sits
in a function ``make``, ``K.m`` in a class ``K``. Those scopes are rebuilt
around it, with each free variable bound (to the cell's value where it is a
plain literal).

Example::

    >>> def make(start):
    ...     count = start
    ...     def step(by=1):
    ...         nonlocal count
    ...         count += by
    ...         return count
    ...     return step
    >>> print(decompile(make(5), layout="compact"))     # doctest: +SKIP
    def make():
        count = 5

        def step(by=1):
            nonlocal count
            count += by
            return count
"""
from __future__ import annotations

import ast
import types
from typing import List, Optional, Tuple

from .values import FunctionValue


def function_value(record, obj) -> FunctionValue:
    """The MAKE_FUNCTION value for ``record``, with what ``obj`` (a function,
    a method, or anything else) knows about defaults and annotations."""
    func = getattr(obj, "__func__", obj)
    if not isinstance(func, types.FunctionType):
        return FunctionValue(record)
    defaults = func.__defaults__
    kwdefaults = func.__kwdefaults__
    annotations = getattr(func, "__annotations__", None) or None
    return FunctionValue(
        record,
        defaults=ast.Tuple(elts=[value_expr(v) for v in defaults], ctx=ast.Load())
        if defaults else None,
        kwdefaults=ast.Dict(keys=[ast.Constant(value=k) for k in kwdefaults],
                            values=[value_expr(v) for v in kwdefaults.values()])
        if kwdefaults else None,
        annotations=ast.Dict(keys=[ast.Constant(value=k) for k in annotations],
                             values=[annotation_expr(v) for v in annotations.values()])
        if annotations else None)


def value_expr(value) -> ast.expr:
    """``value`` as an expression: a literal where its repr reads back as the
    same value, a name for classes and functions, else a name that says
    what it stands for (``_default_Foo``); never an expression that would
    run something else."""
    if _is_literal(value):
        return ast.Constant(value=value) if not isinstance(value, (tuple, list, dict, set)) \
            else ast.parse(repr(value), mode="eval").body
    name = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
    if isinstance(name, str) and name.replace(".", "").replace("_", "a").isalnum():
        return ast.parse(name, mode="eval").body
    return ast.Name(id="_default_%s" % type(value).__name__, ctx=ast.Load())


def annotation_expr(value) -> ast.expr:
    """An annotation: strings (``from __future__ import annotations``) and
    typing reprs parsed back into the expression they spell."""
    text = value if isinstance(value, str) else None
    if text is None and isinstance(value, type) and value.__module__ == "builtins":
        text = value.__qualname__
    if text is None and not isinstance(value, type) and type(value).__module__ == "typing":
        text = repr(value)
    if text is not None:
        try:
            return ast.parse(text, mode="eval").body
        except SyntaxError:
            return ast.Constant(value=text)
    return value_expr(value)


def _is_literal(value) -> bool:
    if type(value) in _ROUND_TRIP:
        return True     # (literal_eval, asked of every default, leaves a reference cycle behind)
    try:
        back = ast.literal_eval(repr(value))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return type(back) is type(value) and back == value


#: the types whose repr always reads back as an equal value of the same type
_ROUND_TRIP = frozenset({str, bytes, int, bool, type(None)})


def enclosing_scopes(record, obj, node: ast.stmt) -> List[ast.stmt]:
    """``node`` (the def of ``record``) inside the classes and functions its
    qualified name and free variables need; ``[node]`` when it needs none.

    Only free variables need them: a nested function or a method that uses
    none compiles to the same code as a top-level ``def``, and the caller can
    run the source and find the function by its name. (Its qualified name, the
    one thing such a scope would restore, is no part of its own bytecode; up to
    3.10 the functions and comprehensions nested in it name it in theirs.)

    >>> def outer():
    ...     def f(x):
    ...         return x
    ...     return f
    >>> print(decompile(outer(), layout="compact"))     # doctest: +SKIP
    def f(x):
        return x
    """
    if not record.freevars:
        return [node]
    parents = _parents(_qualname(record, obj))
    free = [n for n in record.freevars if n != "__class__"]
    if "__class__" in record.freevars and not any(kind == "class" for kind, _ in parents):
        parents.append(("class", "_Class"))
    if free and not any(kind == "def" for kind, _ in parents):
        parents.insert(0, ("def", "_enclosing"))
    cells = _cell_values(obj, record.freevars)
    body: List[ast.stmt] = [node]
    for index in range(len(parents) - 1, -1, -1):
        kind, name = parents[index]
        if kind == "class":
            body = [ast.ClassDef(name=name, bases=[], keywords=[], body=body, decorator_list=[])]
            continue
        if index == _last_def(parents):
            # Binding each free variable here makes it a cell of this scope.
            binds = [ast.Assign(targets=[ast.Name(id=n, ctx=ast.Store())],
                                value=cells.get(n, ast.Constant(value=None)))
                     for n in free]
            body = binds + body
        body = [ast.FunctionDef(name=name, args=_no_args(), body=body, decorator_list=[],
                                returns=None, type_comment=None)]
    return body


def defining_scopes(record, obj, node: ast.stmt) -> List[ast.stmt]:
    """``node`` inside the classes and functions its qualified name names,
    free variables or not: where it was defined. A check of the code nested
    in a top-level ``def`` compiles it there: up to 3.10 their qualified
    names are constants of its code (the one difference the top-level ``def``
    makes, see :func:`enclosing_scopes`).

    >>> from depyf.bytecode import as_record
    >>> node = ast.parse("def m(self): return 1").body[0]
    >>> class K:
    ...     def m(self):
    ...         return 1
    >>> [type(s).__name__ for s in defining_scopes(as_record(K.m), K.m, node)]
    ['ClassDef']
    """
    if record.freevars:
        return enclosing_scopes(record, obj, node)
    body: List[ast.stmt] = [node]
    for kind, name in reversed(_parents(_qualname(record, obj))):
        if kind == "class":
            body = [ast.ClassDef(name=name, bases=[], keywords=[], body=body, decorator_list=[])]
        else:
            body = [ast.FunctionDef(name=name, args=_no_args(), body=body, decorator_list=[],
                                    returns=None, type_comment=None)]
    return body


def _qualname(record, obj) -> str:
    func = getattr(obj, "__func__", obj)
    # A live function knows its qualified name even where its code does not (before 3.11).
    qualname = getattr(func, "__qualname__", None) if isinstance(func, types.FunctionType) else None
    return qualname or getattr(record, "qualname", None) or record.name


def _last_def(parents: List[Tuple[str, str]]) -> int:
    return max((i for i, (kind, _) in enumerate(parents) if kind == "def"), default=-1)


def _parents(qualname: str) -> List[Tuple[str, str]]:
    """``a.<locals>.K.m`` -> ``[("def", "a"), ("class", "K")]``."""
    parts = qualname.split(".")[:-1]
    parents = []
    for i, part in enumerate(parts):
        if part == "<locals>":
            continue
        if not part.isidentifier():
            part = "_" + "".join(c if c.isalnum() else "_" for c in part).strip("_")
        local = i + 1 < len(parts) and parts[i + 1] == "<locals>"
        parents.append(("def" if local else "class", part))
    return parents


def _cell_values(obj, freevars) -> dict:
    func = getattr(obj, "__func__", obj)
    closure = getattr(func, "__closure__", None) or ()
    values = {}
    for name, cell in zip(freevars, closure):
        try:
            content = cell.cell_contents
        except ValueError:      # an empty cell: the variable is not bound yet
            continue
        if _is_literal(content):
            values[name] = value_expr(content)
    return values


def _no_args() -> ast.arguments:
    return ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                         kwarg=None, defaults=[])
