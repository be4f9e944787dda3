"""The shape of statements: their own expressions, their bodies, and
replacing one node by another.

Example::

    >>> stmt = ast.parse("if t:\\n    g(t)").body[0]
    >>> [type(p).__name__ for p in header(stmt)], len(bodies(stmt))
    (['Name'], 1)
"""
from __future__ import annotations

import ast
from typing import Dict, List, Optional, Tuple

from .scope import SCOPES

#: compound statements whose bodies the passes may move values into or out of
BRANCHES = (ast.If,)


def header(stmt: ast.stmt) -> List[ast.AST]:
    """The parts of ``stmt`` evaluated by the statement itself, not by the
    statements of its bodies."""
    kind = type(stmt)
    if kind is ast.Assign or kind is ast.Expr or kind is ast.Return or kind is ast.Delete:
        return [stmt]
    if isinstance(stmt, (ast.If, ast.While)):
        return [stmt.test]
    if isinstance(stmt, (ast.For, ast.AsyncFor)):
        return [stmt.target, stmt.iter]
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        return list(stmt.items)
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return list(stmt.decorator_list) + list(stmt.args.defaults) + [
            d for d in stmt.args.kw_defaults if d is not None]
    if isinstance(stmt, ast.ClassDef):
        return list(stmt.decorator_list) + list(stmt.bases) + list(stmt.keywords)
    if hasattr(stmt, "handlers"):
        return [h.type for h in stmt.handlers if h.type is not None]
    if hasattr(stmt, "cases"):
        return [stmt.subject] + [c for case in stmt.cases for c in (case.pattern, case.guard) if c]
    return [stmt]


#: statements with no body of their own
SIMPLE = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Delete, ast.Return, ast.Raise,
          ast.Assert, ast.Pass, ast.Break, ast.Continue, ast.Global, ast.Nonlocal, ast.Import,
          ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def bodies(stmt: ast.stmt) -> List[List[ast.stmt]]:
    """The statement lists inside ``stmt`` (none for a simple statement or a nested scope)."""
    if isinstance(stmt, SIMPLE):
        return []
    if type(stmt) is ast.If:
        return [stmt.body, stmt.orelse] if stmt.orelse else [stmt.body]
    out = [getattr(stmt, f) for f in ("body", "orelse", "finalbody") if getattr(stmt, f, None)]
    out += [h.body for h in getattr(stmt, "handlers", None) or []]
    out += [c.body for c in getattr(stmt, "cases", None) or []]
    return out


#: fields that never hold a node worth a visit: contexts, operators, and those
#: holding strings, numbers or flags
_LEAF_FIELDS = frozenset(["ctx", "op", "ops", "id", "attr", "arg", "name", "asname", "module",
                          "level", "conversion", "type_comment", "kind", "is_async", "simple",
                          "kwd_attrs", "rest", "tag"])
#: the same for one class (a constant's value, the names of ``global``)
_LEAF_FIELDS_OF = {ast.Constant: {"value"}, ast.Global: {"names"}, ast.Nonlocal: {"names"}}
if hasattr(ast, "MatchSingleton"):
    _LEAF_FIELDS_OF[ast.MatchSingleton] = {"value"}      # (``case None:``)


class _NodeFields(dict):
    """AST class -> :func:`node_fields` of it, each found at its first look-up."""

    def __missing__(self, kind: type) -> Tuple[str, ...]:
        leaves = _LEAF_FIELDS | _LEAF_FIELDS_OF.get(kind, set())
        fields = self[kind] = tuple(f for f in kind._fields if f not in leaves)
        return fields


#: ``NODE_FIELDS[kind]`` is ``node_fields(kind)``, at the cost of a look-up
NODE_FIELDS: Dict[type, Tuple[str, ...]] = _NodeFields()


def node_fields(kind: type) -> Tuple[str, ...]:
    """The fields of AST class ``kind`` that may hold nodes: each holds a
    node, None, or a list of nodes (a dict display's keys: None too).

    >>> node_fields(ast.Attribute), node_fields(ast.Call)
    (('value',), ('func', 'args', 'keywords'))
    """
    return NODE_FIELDS[kind]


def subnodes(node: ast.AST, closed: Tuple[type, ...] = ()) -> List[ast.AST]:
    """``node`` and every node under it (nested scopes included) in the order
    of ``ast.walk``, but for contexts and operators, which hold nothing: one
    list, without the cost of ``ast.walk``'s generators. Nodes of the classes
    ``closed`` are listed but not entered.

    >>> [type(n).__name__ for n in subnodes(ast.parse("f(x, [y.z])", mode="eval").body)]
    ['Call', 'Name', 'Name', 'List', 'Attribute', 'Name']
    >>> [type(n).__name__ for n in subnodes(ast.parse("f(x, [y.z])", mode="eval").body, (ast.List,))]
    ['Call', 'Name', 'Name', 'List']
    """
    out = [node]
    fields_of = NODE_FIELDS
    for current in out:         # (breadth first: the list grows as it is read)
        if closed and isinstance(current, closed):
            continue
        for field in fields_of[type(current)]:
            value = getattr(current, field, None)
            if type(value) is list:
                out += [item for item in value if isinstance(item, ast.AST)]
            elif isinstance(value, ast.AST):
                out.append(value)
    return out


def names_under(node: ast.AST) -> set:
    """The ids of every name under ``node`` (nested scopes included).

    >>> sorted(names_under(ast.parse("f(x, [y.z])")))
    ['f', 'x', 'y']
    """
    found = set()
    todo = [node]
    fields_of = NODE_FIELDS
    while todo:
        current = todo.pop()
        if type(current) is ast.Name:
            found.add(current.id)
            continue
        for field in fields_of[type(current)]:
            value = getattr(current, field, None)
            if type(value) is list:
                todo += [item for item in value if item is not None]
            elif value is not None:
                todo.append(value)
    return found


def clone(node):
    """A copy of ``node`` and everything under it (contexts and operators,
    which hold nothing, shared): ``copy.deepcopy`` of a tree, at a fraction
    of its cost.

    >>> import ast
    >>> tree = ast.parse("f(x, [y])").body[0]
    >>> copied = clone(tree)
    >>> ast.dump(copied) == ast.dump(tree), copied.value is tree.value
    (True, False)
    """
    cls = type(node)
    new = cls.__new__(cls)
    fields = new.__dict__
    for key, value in node.__dict__.items():
        if isinstance(value, ast.AST):
            if not isinstance(value, _SHARED):
                value = clone(value)
        elif type(value) is list:
            value = [clone(item) if isinstance(item, ast.AST) and not isinstance(item, _SHARED) else item
                     for item in value]
        fields[key] = value
    return new


#: nodes that hold no field: one instance can sit in many places
_SHARED = (ast.expr_context, ast.operator, ast.unaryop, ast.boolop, ast.cmpop)


def replace_node(root: ast.AST, old: ast.AST, new: ast.AST) -> Optional[List[ast.AST]]:
    """Put ``new`` where ``old`` (by identity) is under ``root``, not looking
    into nested scopes; the nodes from ``root`` down to the one that held
    ``old`` (what the change is inside of), or None where ``old`` is not there.

    >>> call = ast.parse("f(g(x), y)", mode="eval").body
    >>> [type(n).__name__ for n in replace_node(call, call.args[0].args[0], ast.Name("z"))]
    ['Call', 'Call']
    >>> ast.unparse(call)
    'f(g(z), y)'
    """
    todo = [root]
    above: Dict[ast.AST, ast.AST] = {}      # node -> the node holding it
    fields_of = NODE_FIELDS
    while todo:
        node = todo.pop()
        if type(node) in _SCOPE_KINDS and node is not root:
            continue
        for field in fields_of[type(node)]:
            value = getattr(node, field, None)
            if value is old:
                setattr(node, field, new)
                return _chain(above, node)
            if type(value) is list:
                if old in value:        # (by identity, in C: AST nodes equal only themselves)
                    value[value.index(old)] = new
                    return _chain(above, node)
                for item in value:
                    if item is not None:
                        above[item] = node
                        todo.append(item)
            elif value is not None:
                above[value] = node
                todo.append(value)
    return None


def _chain(above: Dict[ast.AST, ast.AST], node: ast.AST) -> List[ast.AST]:
    chain = [node]
    while node in above:
        node = above[node]
        chain.append(node)
    chain.reverse()
    return chain


#: the classes of :data:`~.scope.SCOPES`, for a look-up by class
_SCOPE_KINDS = frozenset(SCOPES)
