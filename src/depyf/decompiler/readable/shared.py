"""Passes for values Dynamo computes once and uses several times
(``COPY``/``DUP_TOP``, decompiled as ``(t := value)`` and later reads of ``t``)."""
from __future__ import annotations

import ast
from typing import Optional, Set

from .blocks import clone, subnodes
from .effects import CODE, MODULE_DICTS, NOTHING, Effect, commute, is_dict_of_module
from .facts import Facts, first_step_of


def is_module_object(node: ast.expr, varargs: Optional[str] = None) -> bool:
    """A name, an item of the frame's ``*args`` tuple named ``varargs``
    (``args[0]``: a wrapper's module), or a submodule read from
    ``_modules``: ``self._modules['norm']``."""
    if isinstance(node, ast.Name):
        return True
    if (varargs is not None and isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)
            and node.value.id == varargs and isinstance(node.slice, ast.Constant)
            and type(node.slice.value) is int):
        return True
    return (isinstance(node, ast.Subscript) and _is_str(node.slice)
            and _module_dict(node.value, varargs) == "_modules")


def _module_dict(node: ast.expr, varargs: Optional[str] = None):
    """Which of a module object's own dicts ``node`` reads (``m._modules``,
    ``m.__dict__['_modules']``), or None."""
    if isinstance(node, ast.Attribute) and node.attr in MODULE_DICTS and is_module_object(node.value, varargs):
        return node.attr
    if is_dict_of_module(node) and is_module_object(node.value.value, varargs):
        return node.slice.value
    return None


def is_module_dict_read(node: ast.expr, varargs: Optional[str] = None) -> bool:
    """``m._parameters``, ``m._parameters['weight']``, ``m._modules['norm']``...
    of a module object ``m`` (see :func:`is_module_object`): reads the
    contract lets repeat."""
    if _module_dict(node, varargs) is not None:
        return True
    return isinstance(node, ast.Subscript) and _is_str(node.slice) and _module_dict(node.value, varargs) is not None


def _is_str(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is str


def repeat_module_dict_reads(facts: Facts) -> bool:
    """A shared read of a module's own dicts is read again at each use, when
    no code runs in between (the contract lets these reads repeat).

    Before::                                        After::

        p = (t := (m := self._modules)['norm']          p = self._modules['norm']._parameters['weight']
             ._parameters)['weight']
        q = t['bias']                                   q = self._modules['norm']._parameters['bias']
        r = (u := m['qkv']._parameters)['weight']       r = self._modules['qkv']._parameters['weight']
    """
    changed = False
    while True:     # a read through another shared one qualifies once that one is repeated
        progress = False
        for walrus, stmt in reversed(_walruses(facts)):     # inner ones first
            progress = _repeat(facts, walrus, stmt) or progress
        if not progress:
            return changed
        changed = True


def _repeat(facts: Facts, walrus: ast.NamedExpr, stmt: ast.stmt) -> bool:
    """Repeat the read of one walrus at each use it may be repeated at, and
    drop the walrus once nobody reads it."""
    if facts.protected(stmt):
        return False
    name = walrus.target.id
    if not (facts.scope.is_temporary(name) and facts.scope.stores[name] == 1
            and is_module_dict_read(walrus.value, facts.scope.plain_varargs())
            and not any(isinstance(n, ast.NamedExpr) for n in subnodes(walrus.value))):
        return False
    changed = False
    reads = Effect.of(facts.steps.expression(walrus.value))
    # In text order, so that what runs between the walrus and each use is
    # summed up once along its block (a model's submodule dict read is used
    # by each of its hundreds of parameters).
    uses = sorted(facts.loads(name), key=lambda use: facts.order(facts.statement_of(use)))
    along = _Along(facts, facts.site(stmt).block, facts.site(stmt).index + 1)
    for use in uses:
        between = _after_walrus(facts, stmt, walrus, use, along)
        if between is None or between.kind == CODE or not commute(reads, between):
            continue
        facts.replace(facts.statement_of(use), use, clone(walrus.value))
        changed = True
    if not facts.scope.loads[name]:
        facts.unwrap(stmt, walrus)
        changed = True
    return changed


class _Along:
    """The effect of a block's statements from ``start`` up to a place that
    only moves on: each statement is added once, when the place passes it
    (after any edit of it: a use is edited only once its place is reached)."""

    def __init__(self, facts: Facts, block, start: int):
        self.facts, self.block, self.end = facts, block, start
        self.effect = NOTHING

    def up_to(self, end: int) -> Optional[Effect]:
        """The effect of ``block[start:end]``; None where ``end`` is behind."""
        if end < self.end:
            return None
        effect = self.facts.statement_effect
        self.effect = Effect.union([self.effect] + [effect(s) for s in self.block[self.end:end]])
        self.end = end
        return self.effect


def _after_walrus(facts: Facts, stmt: ast.stmt, walrus: ast.NamedExpr, use: ast.Name, along: _Along):
    """The steps after ``walrus`` stores and before ``use`` is read, when
    ``use`` comes later in ``stmt``'s block (or in ``stmt`` itself); else None.
    ``along``: the effect of ``stmt``'s block after it, so far (uses come in
    text order)."""
    own = facts.statement_steps(stmt)
    at = next((i for i, s in enumerate(own) if s.node is walrus), None)
    if at is None or own[at].lazy:
        return None
    use_stmt = facts.statement_of(use)
    if use_stmt is stmt:
        after = own[at + 1:]
        end = next((i for i, s in enumerate(after) if s.node is use), None)
        return None if end is None or after[end].lazy else Effect.of(after[:end])
    site = facts.site(stmt)
    path = facts.path_to(use_stmt, site.block)
    if path is None or facts.site(path[0]).index <= site.index:
        return None
    if len(path) > 1:
        return None         # (in a branch: not repeated there)
    # (Facts.between's sum, made along the block: uses come in text order,
    # so ``ranged`` is None for none of them)
    ranged = along.up_to(facts.site(use_stmt).index)
    before = facts.steps_before(use_stmt, use)
    if ranged is None or before is None:
        return None
    return Effect.union([Effect.of(own[at + 1:]), ranged, Effect.of(before)])


def _walruses(facts: Facts):
    """(walrus, its statement), in text order: by statement, then in the
    order of a walk of the statement (a walrus holding another first)."""
    found = list(facts.held[ast.NamedExpr].values())
    # (the walk orders the walruses of one statement: only a statement holding several needs it)
    holding: Set[ast.stmt] = set()
    several: Set[ast.stmt] = set()
    for _, stmt in found:
        (several if stmt in holding else holding).add(stmt)
    place = {node: i for stmt in several for i, node in enumerate(subnodes(stmt))}
    found.sort(key=lambda pair: (facts.order(pair[1]), place.get(pair[0], 0)))
    return found


def hoist_shared_walrus(facts: Facts) -> bool:
    """``(t := value)`` whose ``t`` is read again becomes a statement
    ``t = value`` of its own before the one that held it, when nothing
    evaluated before it in that statement minds the new order.

    Before::                                        After::

        (t := fn._forward_hooks)[get(t, 0)] = 1         t = fn._forward_hooks
                                                        t[get(t, 0)] = 1
    """
    changed = False
    while _hoist_some(facts):       # a hoisted value may hold another shared one
        changed = True
    return changed


def _hoist_some(facts: Facts) -> bool:
    changed = False
    for walrus, stmt in _walruses(facts):
        name = walrus.target.id
        if not (facts.scope.is_temporary(name) and facts.scope.stores[name] == 1
                and facts.scope.loads[name]):
            continue
        if not isinstance(stmt, _HOISTABLE) or facts.protected(stmt):
            continue        # (a loop's header runs again and again; a body is not a place)
        steps = facts.statement_steps(stmt)      # (an if's test comes first, its bodies after)
        start = first_step_of(steps, walrus)
        end = next((i for i, s in enumerate(steps) if s.node is walrus), None)
        if end is None or steps[end].lazy:
            continue
        start = end if start is None else start
        if not commute(steps[start:end + 1], steps[:start]):
            continue
        value = walrus.value
        facts.replace(stmt, walrus, ast.Name(id=name, ctx=ast.Load()))
        facts.insert_before(stmt, ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=value,
                                             lineno=getattr(stmt, "lineno", 1)))
        changed = True
    return changed


#: statements a value in whose expression can be evaluated just before them instead
_HOISTABLE = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return, ast.Delete, ast.If, ast.Raise)
