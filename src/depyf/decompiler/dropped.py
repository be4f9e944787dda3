"""A cheap guard against structured output that silently leaves code out.

The structurer skips ops on purpose (copies of finally bodies and with exits,
code after a ``return`` that the compiler duplicated); a wrong guess about
where a construct ends skips user code the same way, and the output is then
valid Python that does less than the bytecode. Such code nearly always names
something (a variable, an attribute, a global), so every name a reached op
uses must appear somewhere in the statements; when one does not, the code
object goes to the fallback, which is correct, instead of printing a program
that lost a statement.
"""
from __future__ import annotations

import ast
from typing import Iterable

from .astcompat import ParamSpec, TypeVar, TypeVarTuple
from .failure import DecompileFailure

#: nested scopes: their bodies are other code objects, checked on their own
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)

#: ops whose argument is a name the source spells
_NAMED = frozenset({
    "LOAD_ATTR", "LOAD_METHOD", "STORE_ATTR", "DELETE_ATTR",
    "LOAD_GLOBAL", "STORE_GLOBAL", "DELETE_GLOBAL",
    "LOAD_NAME", "STORE_NAME", "DELETE_NAME",
    "LOAD_FAST", "STORE_FAST", "DELETE_FAST",
    "LOAD_DEREF", "STORE_DEREF", "DELETE_DEREF", "LOAD_CLASSDEREF",
    "IMPORT_FROM"})
#: names the compiler itself loads and stores (class set-up, annotations, the
#: zero-argument super() cell, 3.8's assert)
_COMPILER_NAMES = frozenset({
    "__module__", "__qualname__", "__firstlineno__", "__type_params__",
    "__static_attributes__", "__classcell__", "__classdictcell__", "__classdict__",
    "__doc__", "__annotations__", "__name__", "__class__", "AssertionError",
    # 3.14+ (PEP 649): the deferred annotations' function and which have run
    "__annotate__", "__annotate_func__", "__conditional_annotations__"})


def check_names_kept(code, ops, reached, stmts, hidden=()) -> None:
    """Raise :class:`DecompileFailure` when a name used by a reached op appears
    nowhere in ``stmts`` (nested defs, classes and lambdas are looked at only
    for what the enclosing code evaluates: their bodies are checked on their own).

    >>> check_names_kept(code, ops, reached_indices, [])    # doctest: +SKIP
    Traceback (most recent call last):
    DecompileFailure: statements lost: names x, y are not in the output
    """
    wanted = set()
    cells = None
    for op in ops:
        if op.name in _NAMED and op.index in reached:
            if op.name == "LOAD_FAST":
                # (3.13 loads a cell for a closure with LOAD_FAST; the nested
                # code that uses it is checked on its own)
                if cells is None:
                    cells = frozenset(code.cellvars) | frozenset(code.freevars)
                if op.arg in cells:
                    continue
            wanted.add(op.arg)
    wanted.difference_update(_COMPILER_NAMES, hidden)
    if "__class__" in code.freevars and code.varnames:
        # 3.12's zero-argument super() loads the first argument itself
        wanted.discard(code.varnames[0])
    if not wanted:
        return
    spelled = {}
    for name in list(wanted):
        if type(name) is not str or not name.isidentifier():
            wanted.discard(name)        # the compiler's own (``.0``)
            continue
        spelled[name] = name
    for name in wanted:
        k = name.find("__", 2)
        if k > 0 and name[0] == "_" and name[1] != "_" and not name.endswith("__"):
            # ``_C__x`` is ``__x`` written in class ``C``
            spelled.setdefault(name[k:], name)
    if wanted and not _find_all(stmts, wanted, spelled):
        raise DecompileFailure("statements lost: names %s are not in the output"
                               % ", ".join(sorted(wanted)))


def _find_all(stmts: Iterable[ast.AST], wanted: set, spelled: dict) -> bool:
    """Strike from ``wanted`` each name found in ``stmts``; True once none is left."""
    def seen(name):
        key = spelled.get(name)
        if key is not None and key in wanted:
            wanted.discard(key)
            return not wanted
        return False

    fields_of = _FIELDS
    work = list(stmts)
    pop, push, append = work.pop, work.extend, work.append
    while work:
        node = pop()
        t = type(node)
        if t is ast.Name:
            if node.id in spelled and seen(node.id):
                return True
            continue
        if t is ast.Attribute:
            if node.attr in spelled and seen(node.attr):
                return True
            append(node.value)
            continue
        fields = fields_of.get(t)
        if fields is None:
            fields = fields_of[t] = _fields(t)
        if t in _NAMED_NODES:
            if t in _DEFS or t is ast.Lambda:
                if t is not ast.Lambda and seen(node.name):
                    return True
                push(_evaluated_outside(node))
                continue
            if any(seen(n) for n in _bound_names(node)):
                return True
        for field in fields:
            value = getattr(node, field, None)
            if type(value) is list:
                push(value)
            elif value is not None:
                append(value)
    return False


#: node type -> its fields that can hold nodes we look into
_FIELDS = {ast.Constant: ()}
#: fields that hold no name: operators, contexts, strings, numbers
_NO_NAMES = frozenset({"ctx", "op", "ops", "kind", "type_comment", "conversion", "is_async",
                       "level", "module", "rest", "asname", "id", "attr",
                       "arg", "lineno", "col_offset", "end_lineno", "end_col_offset",
                       "kwd_attrs"})
_NAMED_NODES = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda,
                          ast.ExceptHandler, ast.alias, ast.Global, ast.Nonlocal, ast.MatchAs,
                          ast.MatchStar, ast.MatchMapping, TypeVar, ParamSpec, TypeVarTuple})


def _fields(t) -> tuple:
    if not issubclass(t, ast.AST):
        return ()       # (a list holding None: a dict display's ** entry)
    return tuple(f for f in t._fields if f not in _NO_NAMES)


def _bound_names(node) -> list:
    """The names a binding node carries as strings (except clause, import,
    global, match capture, PEP 695 parameter)."""
    t = type(node)
    if t is ast.Global or t is ast.Nonlocal:
        return node.names
    if t is ast.alias:
        return node.name.split(".") + ([node.asname] if node.asname else [])
    name = node.rest if t is ast.MatchMapping else node.name
    return [name] if name else []


def _evaluated_outside(node) -> list:
    """What the code around a def, class or lambda evaluates: decorators,
    defaults, annotations, bases, type parameters (not a field before 3.12:
    astcompat adds them)."""
    if type(node) is ast.Lambda:
        return [node.args]
    out = list(node.decorator_list) + list(getattr(node, "type_params", None) or [])
    if type(node) is ast.ClassDef:
        return out + node.bases + node.keywords
    out.append(node.args)
    if node.returns is not None:
        out.append(node.returns)
    return out
