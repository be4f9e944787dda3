"""AST nodes for the newest syntax, usable on every host Python (3.10-3.13).

The decompiler must build 3.12/3.13 trees (``type X = ...``, ``def f[T]()``,
``except*``) even when it runs on a 3.10 or 3.11 interpreter whose ``ast``
module lacks those classes. This module gives one spelling for all hosts:

* :class:`TypeAlias`, :class:`TypeVar`, :class:`ParamSpec`,
  :class:`TypeVarTuple` (each type parameter with 3.13's ``default_value``),
  :class:`TryStar` -- ``ast``'s own classes where the host has them with the
  right fields, else ``ast.AST`` subclasses with the same name and ``_fields``;
* :func:`with_type_params` -- give a ``FunctionDef``/``AsyncFunctionDef``/
  ``ClassDef`` its ``type_params`` on any host;
* :func:`make` -- build any node with every missing optional field filled in
  (``None``, ``[]``, ``Load()``...), so consumers never meet a missing
  attribute, and with ``lineno`` and friends set when given;
* :func:`fill_missing` -- the same defaults for a whole tree built otherwise.

The renderer dispatches on class *names*, so host classes and ours render
the same.

Example::

    >>> import ast
    >>> from depyf.decompiler.astcompat import make, TypeVar, with_type_params
    >>> fn = make(ast.FunctionDef, name="f", body=[make(ast.Pass)], lineno=1)
    >>> fn = with_type_params(fn, [make(TypeVar, name="T")])
    >>> fn.args.args, fn.returns, fn.type_params[0].bound
    ([], None, None)
"""
from __future__ import annotations

import ast
import sys
from typing import Iterable

__all__ = [
    "HOST",
    "TypeAlias",
    "TypeVar",
    "ParamSpec",
    "TypeVarTuple",
    "TryStar",
    "TemplateStr",
    "Interpolation",
    "type_param",
    "with_type_params",
    "make",
    "fill_missing",
    "child_nodes",
    "bound_name",
]

#: The running interpreter's (major, minor).
HOST = sys.version_info[:2]

_POSITIONS = ("lineno", "col_offset", "end_lineno", "end_col_offset")


def _native(name: str):
    return getattr(ast, name, None)


# -- type parameters -----------------------------------------------------------------------

if _native("type_param") is not None:
    type_param = ast.type_param
else:
    class type_param(ast.AST):  # noqa: N801 - ast's own spelling
        """Base of the type parameter nodes (``ast.type_param`` from 3.12)."""

        _fields = ()
        _attributes = _POSITIONS


def _type_param_class(name: str, fields: tuple):
    """``ast.<name>`` when it already has ``fields``; else a class of that name
    (a subclass of the host's class when there is one) with those fields."""
    native = _native(name)
    if native is not None and tuple(native._fields) == fields:
        return native
    base = native if native is not None else type_param
    namespace = {
        "_fields": fields,
        "__doc__": "%s(%s), usable on every host." % (name, ", ".join(fields)),
        "__module__": __name__,
    }
    # Class-level defaults, so a node built without them still reads None.
    for field in fields[1:]:
        namespace[field] = None
    return type(name, (base,), namespace)


TypeVar = _type_param_class("TypeVar", ("name", "bound", "default_value"))
ParamSpec = _type_param_class("ParamSpec", ("name", "default_value"))
TypeVarTuple = _type_param_class("TypeVarTuple", ("name", "default_value"))

if _native("TypeAlias") is not None:
    TypeAlias = ast.TypeAlias
else:
    class TypeAlias(ast.stmt):
        """``type name[type_params] = value`` (``ast.TypeAlias`` from 3.12)."""

        _fields = ("name", "type_params", "value")

if _native("TryStar") is not None:
    TryStar = ast.TryStar
else:
    class TryStar(ast.stmt):
        """``try: ... except* E: ...`` (``ast.TryStar`` from 3.11)."""

        _fields = ("body", "handlers", "orelse", "finalbody")


if _native("TemplateStr") is not None:
    TemplateStr, Interpolation = ast.TemplateStr, ast.Interpolation
else:
    class TemplateStr(ast.expr):
        """``t"..."`` (``ast.TemplateStr`` from 3.14): literal strings and
        :class:`Interpolation` in ``values``."""

        _fields = ("values",)

    class Interpolation(ast.expr):
        """A t-string's ``{value!conversion:format_spec}`` (``ast.Interpolation``
        from 3.14); ``str`` is the expression's source text."""

        _fields = ("value", "str", "conversion", "format_spec")


def at(node: ast.AST, line) -> ast.AST:
    """``node`` placed at ``line`` (the line its statement starts on), returned.

    >>> at(ast.Pass(), 7).lineno
    7
    """
    node.lineno = line
    return node


def with_type_params(node: ast.AST, params: Iterable[ast.AST]) -> ast.AST:
    """Set ``node.type_params`` (a def or class) on any host; returns ``node``.

    Example::

        >>> import ast
        >>> cls = make(ast.ClassDef, name="C", body=[make(ast.Pass)])
        >>> len(with_type_params(cls, [make(ParamSpec, name="P")]).type_params)
        1
    """
    node.type_params = list(params)
    return node


# -- make ----------------------------------------------------------------------------------

# Fields that hold lists, whatever the node.
_LIST_FIELDS = frozenset({
    "body", "orelse", "finalbody", "handlers", "names", "targets", "decorator_list",
    "type_params", "elts", "keys", "values", "ops", "comparators", "keywords", "bases",
    "generators", "ifs", "items", "cases", "patterns", "kwd_attrs", "kwd_patterns",
    "posonlyargs", "kwonlyargs", "kw_defaults", "defaults", "type_ignores", "argtypes",
    "dims",
})
# Fields that hold an ``arguments`` node.
_ARGUMENTS_OWNERS = frozenset({"FunctionDef", "AsyncFunctionDef", "Lambda"})
# Fields every host may lack, that ``make`` still accepts and fills.
_EXTRA_FIELDS = {
    "FunctionDef": ("type_params",),
    "AsyncFunctionDef": ("type_params",),
    "ClassDef": ("type_params",),
}


def _default(cls_name: str, field: str, given: dict):
    if field == "args":
        if cls_name in _ARGUMENTS_OWNERS:
            return make(ast.arguments)
        return []
    if field in _LIST_FIELDS:
        return []
    if field == "ctx":
        return ast.Load()
    if field == "conversion":
        return -1
    if field in ("level", "is_async"):
        return 0
    if field == "simple":
        return 1 if isinstance(given.get("target"), ast.Name) else 0
    return None


def make(nodecls, **fields):
    """Build ``nodecls(**fields)`` with every missing field at its default.

    Lists default to ``[]``, ``ctx`` to ``Load()``, ``FunctionDef.args`` and
    ``Lambda.args`` to an empty ``arguments``, ``conversion`` to -1,
    ``level``/``is_async`` to 0, ``AnnAssign.simple`` to 1 for a plain name
    target, everything else to None. ``lineno``, ``col_offset``,
    ``end_lineno``, ``end_col_offset`` are set when given. ``type_params`` is
    accepted for defs and classes on every host. Unknown names raise
    ``TypeError``.

    Example::

        >>> import ast
        >>> node = make(ast.ImportFrom, module="os", names=[make(ast.alias, name="path")], lineno=3)
        >>> node.level, node.lineno, node.names[0].asname
        (0, 3, None)
    """
    name = nodecls.__name__
    own = tuple(nodecls._fields) + tuple(
        f for f in _EXTRA_FIELDS.get(name, ()) if f not in nodecls._fields)
    attributes = tuple(getattr(nodecls, "_attributes", ())) or _POSITIONS
    unknown = [k for k in fields if k not in own and k not in attributes]
    if unknown:
        raise TypeError("%s has no field %s" % (name, ", ".join(sorted(unknown))))
    values = {}
    for field in own:
        if field in fields:
            values[field] = fields[field]
        else:
            values[field] = _default(name, field, fields)
    native_fields = set(nodecls._fields)
    node = nodecls(**{k: v for k, v in values.items() if k in native_fields})
    for field, value in values.items():
        if field not in native_fields:
            setattr(node, field, value)
    for attr in attributes:
        if attr in fields:
            setattr(node, attr, fields[attr])
    return node


def fill_missing(tree: ast.AST) -> ast.AST:
    """Give every node of ``tree`` the fields it lacks, with :func:`make`'s
    defaults, in place; returns ``tree``. Fields already set are untouched.

    Example::

        >>> import ast
        >>> fn = fill_missing(ast.FunctionDef(name="f", body=[ast.Pass()]))
        >>> fn.decorator_list, fn.returns, fn.type_params, fn.args.args
        ([], None, [], [])
    """
    pending = [tree]
    shapes = _SHAPES
    while pending:
        node = pending.pop()
        cls = type(node)
        shape = shapes.get(cls)
        if shape is None:
            if not isinstance(node, ast.AST):
                continue            # None in a list (a dict's ``**`` key), or no node
            shape = shapes[cls] = _Shape(cls)
        given = node.__dict__
        if not given.keys() >= shape.required:
            for field in shape.required:
                if field not in given:
                    setattr(node, field, _default(cls.__name__, field, given))
        if shape.leaf:
            continue            # a Name, a Constant...: about half the nodes
        for field in shape.nodes:
            value = given[field]
            if value is not None:
                pending.append(value)
        for field in shape.lists:
            pending.extend(given[field])
        for field in shape.others:
            value = getattr(node, field)
            if isinstance(value, list):
                pending.extend(value)
            elif value is not None:
                pending.append(value)
    return tree


def child_nodes(node: ast.AST) -> list:
    """``list(ast.iter_child_nodes(node))``, without a generator per node (the
    tree walks that ask this for every node of a function go faster).

    Example::

        >>> import ast
        >>> [type(c).__name__ for c in child_nodes(ast.parse("f(x)").body[0].value)]
        ['Name', 'Name']
    """
    out = []
    for name in node._fields:
        value = getattr(node, name, None)      # (a missing field holds no node)
        if isinstance(value, ast.AST):
            out.append(value)
        elif isinstance(value, list):
            out.extend([item for item in value if isinstance(item, ast.AST)])
    return out


# ASDL field types (from each node class's docstring) that never hold a node with
# fields of its own; fill_missing does not descend into them.
_LEAF_TYPES = frozenset({"identifier", "string", "constant", "int", "object",
                         "expr_context", "boolop", "operator", "unaryop", "cmpop"})


class _Shape:
    """What fill_missing needs of one node class: the fields it must have
    (``required``: no class-level default), and where children can hold nodes
    (``nodes``: one node or None; ``lists``: a list; ``others``: either, or a
    field with a class-level default, read with getattr)."""

    def __init__(self, cls):
        fields = tuple(cls._fields) + tuple(
            f for f in _EXTRA_FIELDS.get(cls.__name__, ()) if f not in cls._fields)
        types = _field_types(cls)
        self.required = frozenset(f for f in fields if not hasattr(cls, f))
        nodes, lists, others = [], [], []
        for field in fields:
            kind = types.get(field)
            if kind is not None and kind.rstrip("*?") in _LEAF_TYPES:
                continue
            if field not in self.required or kind is None:
                others.append(field)
            elif kind.endswith("*"):
                lists.append(field)
            else:
                nodes.append(field)
        self.nodes, self.lists, self.others = tuple(nodes), tuple(lists), tuple(others)
        #: no field can hold a node
        self.leaf = not (nodes or lists or others)


def _field_types(cls) -> dict:
    """``{field: "expr*"}`` from ``ast``'s docstring ``Name(expr* elts, ...)``; {}
    for a class documented otherwise (every field is then checked as it comes)."""
    doc = cls.__doc__ or ""
    head = doc.split("\n", 1)[0]
    if not head.startswith(cls.__name__ + "(") or not head.endswith(")"):
        return {}
    types = {}
    for part in head[len(cls.__name__) + 1:-1].split(","):
        words = part.split()
        if len(words) != 2:
            return {}
        types[words[1]] = words[0]
    return types


_SHAPES: dict = {}


def bound_name(node: ast.AST):
    """The name ``node`` binds in its scope by itself (a stored or deleted
    name, a walrus's target, a ``def`` or ``class``, an import's alias, an
    ``except ... as`` name), or None.

    Example::

        >>> import ast
        >>> [bound_name(n) for n in ast.walk(ast.parse("import a.b as c; x = y"))]
        [None, None, None, 'c', 'x', None, None, None]
    """
    if isinstance(node, ast.Name):
        return None if isinstance(node.ctx, ast.Load) else node.id
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return node.name
    if isinstance(node, ast.alias):
        return node.asname or node.name.split(".")[0]
    if isinstance(node, ast.ExceptHandler):
        return node.name
    if isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
        return node.target.id
    return None
