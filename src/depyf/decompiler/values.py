"""Intermediate stack values that are not yet source expressions.

While simulating the stack, some values only become source once we see how
they are used: a function object becomes a ``def`` when stored under its own
name and a ``lambda`` otherwise; an imported module becomes ``import`` or
``from ... import`` depending on the ops that follow. These placeholders hold
what is known until then. They are never left in the final tree.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any, List, Optional


class Placeholder(ast.expr):
    """Base of stack values that are not source yet (subclasses ast.expr so the
    stack holds one kind of thing)."""
    _fields = ()


#: the ast module's own node classes, none of them a Placeholder. ``type(x) in
#: AST_KINDS`` answers for most stack values what a failing ``isinstance(x,
#: SomePlaceholder)`` would, for a fifth of its cost (isinstance looks up the
#: node's ``__class__`` before it says no).
AST_KINDS = frozenset(c for c in vars(ast).values()
                      if isinstance(c, type) and issubclass(c, ast.AST))


class FunctionValue(Placeholder):
    """The result of MAKE_FUNCTION."""

    def __init__(self, code, defaults=None, kwdefaults=None, annotations=None, closure=None,
                 lineno=None):
        super().__init__()
        self.code = code
        self.defaults = defaults
        self.kwdefaults = kwdefaults
        self.annotations = annotations
        self.closure = closure
        self.lineno = lineno


class ClassValue(Placeholder):
    """``__build_class__(func, name, *bases, **keywords)`` on its way to a class statement."""

    def __init__(self, function: FunctionValue, name: str, bases, keywords, lineno=None):
        super().__init__()
        self.function = function
        self.name = name
        self.bases = bases
        self.keywords = keywords
        self.lineno = lineno


class BuildClass(Placeholder):
    """``__build_class__`` itself, loaded by LOAD_BUILD_CLASS."""


class ImportValue(Placeholder):
    """A module object from IMPORT_NAME."""

    def __init__(self, name: str, level: int, fromlist, lineno=None):
        super().__init__()
        self.name = name
        self.level = level
        self.fromlist = fromlist
        self.aliases: List[ast.alias] = []
        self.lineno = lineno
        #: ``lazy import`` (3.15+, PEP 810)
        self.lazy = False


class ImportFromValue(Placeholder):
    """One attribute pulled from an imported module by IMPORT_FROM."""

    def __init__(self, module: ImportValue, name: str, path=()):
        super().__init__()
        self.module = module
        self.name = name
        #: attribute path from the top package, for ``import a.b.c as d``
        self.path = tuple(path) + (name,)


class InPlace(Placeholder):
    """The result of an in-place operator; a store back to ``target`` makes it ``target op= value``."""

    def __init__(self, target: ast.expr, op: ast.operator, value: ast.expr):
        super().__init__()
        self.target = target
        self.op = op
        self.value = value


class UnpackSlot(Placeholder):
    """Element ``index`` of an unpacking; a store into it fills that place of ``owner``."""

    def __init__(self, owner: "UnpackTarget", index: int):
        super().__init__()
        self.owner = owner
        self.index = index


#: an unpacking slot whose store the compiler dropped (``POP_TOP``)
DEAD = ast.Name(id="_", ctx=ast.Store())


def resolve_dead_slots(target: ast.expr) -> ast.expr:
    """3.13 drops a store that a later one in the same target list overwrites:
    give each dropped slot the first name stored after it (any would do)."""
    order = []
    _target_slots(target, None, None, order)
    for k, (node, parent, index) in enumerate(order):
        if node is not DEAD:
            continue
        later = [n for n, _, _ in order[k + 1:] if isinstance(n, ast.Name) and n is not DEAD]
        if not later:
            raise ValueError("discarded unpack slot")
        name = ast.Name(id=later[0].id, ctx=ast.Store())
        if isinstance(parent, ast.Starred):
            parent.value = name
        else:
            parent.elts[index] = name
    return target


def _target_slots(node, parent, index, order: list) -> None:
    """Appends (slot, the node holding it, its index there) for each slot of a
    target list, left to right. (A function of the module: a nested one that
    calls itself is a reference cycle, left for the garbage collector.)"""
    if isinstance(node, ast.Starred):
        _target_slots(node.value, node, None, order)
    elif isinstance(node, (ast.Tuple, ast.List)):
        for i, elt in enumerate(node.elts):
            _target_slots(elt, node, i, order)
    else:
        order.append((node, parent, index))


@dataclass
class UnpackTarget:
    """A tuple target being filled by the stores that follow UNPACK_SEQUENCE / UNPACK_EX."""
    value: Any
    slots: List[Optional[ast.expr]]
    star_index: Optional[int] = None
    parent: Optional[UnpackSlot] = None
    lineno: Optional[int] = None

    def complete(self) -> bool:
        return all(s is not None for s in self.slots)

    def as_target(self) -> ast.Tuple:
        elts = []
        slots = list(self.slots)
        for i, slot in enumerate(slots):
            if i == self.star_index:
                slot = ast.Starred(value=slot, ctx=ast.Store())
            elts.append(slot)
        return ast.Tuple(elts=elts, ctx=ast.Store())


class Converted(Placeholder):
    """3.13 CONVERT_VALUE: a value with its f-string conversion, awaiting FORMAT_*."""

    def __init__(self, value, conversion: int):
        super().__init__()
        self.value = value
        self.conversion = conversion


class ExceptionValue(Placeholder):
    """The exception object pushed when a handler starts."""


class Iterator(Placeholder):
    """``iter(x)`` from GET_ITER (``aiter(x)`` from GET_AITER), consumed by FOR_ITER
    or a comprehension call."""

    def __init__(self, iterable, is_async=False):
        super().__init__()
        self.iterable = iterable
        self.is_async = is_async


class Null(Placeholder):       # (no subclasses: tested by type)
    """A value that only balances the stack (the NULL of call sequences, etc.)."""


class SavedLocal(Placeholder):
    """3.12+ inlined comprehensions save a local with LOAD_FAST_AND_CLEAR and
    store it back afterwards; that store is not source."""

    def __init__(self, name: str):
        super().__init__()
        self.name = name


class ExcInfo(Placeholder):
    """The previous exception state PUSH_EXC_INFO saves under the new one."""


class CaughtException(Placeholder):
    """The exception object a handler starts with."""


class WithExit(Placeholder):
    """The bound ``__exit__`` BEFORE_WITH leaves under the ``__enter__`` result;
    ``exit_call`` is the (name, arg) list of the ops that call it on the way out."""

    def __init__(self, manager, exit_call=()):
        super().__init__()
        self.manager = manager
        self.exit_call = list(exit_call)


class Entered(Placeholder):
    """The ``__enter__`` result; storing it gives the ``as`` target."""


class Delegated(Placeholder):
    """GET_AWAITABLE / GET_YIELD_FROM_ITER of ``value``, awaiting its YIELD_FROM:
    ``await value`` or ``yield from value``."""

    def __init__(self, value, node_type):
        super().__init__()
        self.value = value
        self.node_type = node_type


class ChainLink(Placeholder):      # (no subclasses: tested by type)
    """``a < b`` of a chained comparison whose next link is still to come."""

    def __init__(self, compare):
        super().__init__()
        self.compare = compare


class PendingNamed(Placeholder):
    """A value stored to ``targets`` while a copy stays on the stack: the start of
    ``a = b = v`` if more stores take it, ``(b := v)`` if an expression does."""

    def __init__(self, value, targets):
        super().__init__()
        self.value = value
        self.targets = targets


class TypeParamValue(Placeholder):
    """A PEP 695 type parameter being made: ``kind`` is "TypeVar", "ParamSpec" or
    "TypeVarTuple"; ``bound`` (an expression, or a tuple of constraints) and
    ``default`` as in the source."""

    def __init__(self, kind: str, name: str, bound=None, default=None):
        super().__init__()
        self.kind = kind
        self.name = name
        self.bound = bound
        self.default = default


class GenericBase(Placeholder):
    """``Generic[*type_params]``, the base the compiler adds to a generic class."""


class TypeAliasValue(Placeholder):
    """``type name[params] = value`` before its store."""

    def __init__(self, name: str, type_params, value):
        super().__init__()
        self.name = name
        self.type_params = type_params
        self.value = value
