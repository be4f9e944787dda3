"""Passes that take away what does nothing a reader could see.

Each takes the :class:`~.facts.Facts` of one function, edits its body
through them and returns whether it changed anything.
"""
from __future__ import annotations

import ast
from typing import List, Optional

from ..structure.conditionals import FLIPPED_TESTS
from .blocks import subnodes
from .effects import PURE, Step, kind_of, writes_of
from .facts import LOOPS, Facts
from .scope import DYNAMO_GLOBAL, DYNAMO_MODULE, GRAPH_OUTPUT


def drop_temporary_deletes(facts: Facts) -> bool:
    """``del`` of a temporary goes: only when the object is released changes.

    Before::                        After::

        tmp_2 = enter()                 tmp_2 = enter()
        exit(tmp_2)                     exit(tmp_2)
        del tmp_2

    Refused when the name is read after the ``del`` (the read would raise),
    when the ``del`` sits in a loop, or when no store before it surely ran.
    """
    decided = []        # (del statement, the targets it keeps): edits wait until all are decided
    for stmt in facts.statements():
        if not isinstance(stmt, ast.Delete):
            continue
        keep = [t for t in stmt.targets if not (
            isinstance(t, ast.Name) and facts.scope.is_temporary(t.id)
            and _surely_bound(facts, t.id, stmt)
            and not any(facts.order(facts.statement_of(n)) > facts.order(stmt) for n in facts.loads(t.id)))]
        if len(keep) != len(stmt.targets):
            decided.append((stmt, keep))
    for stmt, keep in decided:
        if keep:
            facts.swap(stmt, ast.Delete(targets=keep, lineno=getattr(stmt, "lineno", 1)))
        else:
            facts.remove(stmt)
    if decided:
        # a name no longer deleted has its one value again: reads through it may
        # now be told apart (m._modules['x']), in every statement's steps
        facts.edited()
    return bool(decided)


def drop_unused_nonlocals(facts: Facts) -> bool:
    """A ``nonlocal`` of a name the function neither reads nor writes goes:
    Dynamo's code for a closure keeps free variables its graph made unneeded,
    and the faithful form declares them so that the text stays a closure.

    Before::                            After::

        def wrapper(self, x):               def wrapper(self, x):
            nonlocal func                       return __compiled_fn_1(x)
            return __compiled_fn_1(x)

    A name the function stores or loads keeps its declaration.
    """
    changed = False
    for stmt in facts.statements():
        if type(stmt) is not ast.Nonlocal:
            continue
        used = [name for name in stmt.names if facts.names(name)]
        if len(used) == len(stmt.names):
            continue
        if used:
            facts.swap(stmt, ast.Nonlocal(names=used, lineno=getattr(stmt, "lineno", 1)))
        else:
            facts.remove(stmt)
        changed = True
    return changed


def _surely_bound(facts: Facts, name: str, stmt: ast.stmt) -> bool:
    """Did a store of ``name`` run before ``stmt`` on every path: a store by
    an assignment earlier in its block or in a block around it, with no loop
    around it?"""
    if facts.inside(stmt, LOOPS):
        return False
    # (block, text order of the statement holding ``stmt`` there: in one block
    # the order of two statements is that of their indices, looked up, not searched)
    before = [(site.block, facts.order(site.stmt)) for site in facts.enclosing(stmt)]
    for store in facts.stores(name):
        holder = facts.statement_of(store)
        if not (isinstance(holder, ast.Assign) and any(t is store for t in holder.targets)):
            walrus = facts.binder_of(store)
            if not (isinstance(walrus, ast.NamedExpr) and any(
                    s.node is walrus and not s.lazy for s in facts.statement_steps(holder))):
                continue        # a store in a part of an expression that may not run
        where, at = facts.site(holder).block, facts.order(holder)
        if any(where is block and at < place for block, place in before):
            return True
    return False


def drop_unused_walrus(facts: Facts) -> bool:
    """``(t := value)`` where nobody reads ``t`` becomes ``value``.

    Before::                                   After::

        (tmp_1 := utils.enter)()                   utils.enter()
    """
    scope = facts.scope
    found = [(facts.statement_of(store), store) for name in list(scope.temporaries)
             if scope.stores[name] and not scope.loads[name] and not scope.deletes[name]
             for store in facts.stores(name)]
    changed = False
    for stmt, store in found:
        walrus = facts.binding(store.id)
        if isinstance(walrus, ast.NamedExpr):
            facts.unwrap(stmt, walrus)
            changed = True
    return changed


def drop_dead_stores(facts: Facts) -> bool:
    """A store to a temporary nobody reads goes; its value stays as a
    statement if evaluating it may do anything.

    Before::                        After::

        stack_8 = [[*[]]]
        stack_3 = f(x)                  f(x)
    """
    scope = facts.scope
    changed = False
    for stmt in facts.statements():
        if not isinstance(stmt, ast.Assign):
            continue
        targets = [t for t in stmt.targets if not (
            isinstance(t, ast.Name) and scope.is_temporary(t.id)
            and not scope.loads[t.id] and not scope.deletes[t.id])]
        if len(targets) == len(stmt.targets):
            continue
        changed = True
        line = getattr(stmt, "lineno", 1)
        if targets:
            facts.swap(stmt, ast.Assign(targets=targets, value=stmt.value, lineno=line))
        elif _does_nothing(facts, stmt.value):
            facts.remove(stmt)
        else:
            facts.swap(stmt, ast.Expr(value=stmt.value, lineno=line))
    return changed


def _does_nothing(facts: Facts, node: ast.expr, steps: Optional[List[Step]] = None) -> bool:
    """Pure, and surely evaluates: no name that might be unbound (only
    parameters never deleted, temporaries bound once before, Dynamo's globals
    and its graph's outputs), no attribute or item read but of what Dynamo
    made (its modules' functions, its graph's outputs). ``steps``: those of
    ``node``, where the caller has them."""
    if steps is None:
        steps = facts.steps.expression(node)
    if kind_of(steps) != PURE or writes_of(steps):
        return False
    for n in subnodes(node):
        if isinstance(n, ast.Name):
            if not ((n.id in facts.scope.params and not facts.scope.deletes[n.id])
                    or (facts.scope.is_temporary(n.id) and facts.scope.stores[n.id] == 1
                        and not facts.scope.deletes[n.id] and n in facts.loads(n.id)
                        and _surely_bound(facts, n.id, facts.statement_of(n)))
                    or (facts.scope.kind_of(n.id) == "global" and DYNAMO_GLOBAL.match(n.id))
                    or (GRAPH_OUTPUT.match(n.id) and facts.scope.kind_of(n.id) == "local")):
                return False
        elif isinstance(n, ast.Attribute):
            if not (isinstance(n.value, ast.Name) and DYNAMO_MODULE.match(n.value.id)):
                return False
        elif isinstance(n, ast.Subscript):
            if not (isinstance(n.value, ast.Name) and GRAPH_OUTPUT.match(n.value.id)):
                return False
        elif isinstance(n, ast.Lambda):
            return False
    return True


def drop_no_op_statements(facts: Facts) -> bool:
    """Expression statements that evaluate nothing that can act or fail go,
    and ``pass`` beside other statements.

    Before::                        After::

        []
        ___stack0
        pass
        return x                        return x
    """
    changed = False
    for stmt in facts.statements():
        site = facts.site(stmt)
        if isinstance(stmt, ast.Pass):
            if len(site.block) > 1:
                facts.remove(stmt)
                changed = True
        # (an expression statement's steps are its value's: kept, unlike the value's alone)
        elif isinstance(stmt, ast.Expr) and _does_nothing(facts, stmt.value, facts.statement_steps(stmt)):
            if site.owner is None and site.index == 0 and isinstance(stmt.value, ast.Constant) \
                    and isinstance(stmt.value.value, str):
                continue        # the docstring
            facts.remove(stmt)
            changed = True
    return changed


def flatten_star_displays(facts: Facts) -> bool:
    """``*[a, b]`` spread into a call or a display is written ``a, b``:
    iterating a fresh list or tuple runs no code.

    Before::                            After::

        f(*[[], x, *[y, z]])                f([], x, y, z)
    """
    changed = False
    holders = {id(stmt): stmt for _, stmt in facts.held[ast.Starred].values()}
    for stmt in holders.values():
        here = False
        for node in facts.own_expression_nodes(stmt):
            if isinstance(node, ast.Call):
                items = node.args
            elif isinstance(node, (ast.List, ast.Tuple, ast.Set)) and isinstance(node.ctx if hasattr(
                    node, "ctx") else ast.Load(), ast.Load):
                items = node.elts
            else:
                continue
            flat = _flatten(items, facts)
            if flat is not None:
                items[:] = flat     # the same nodes but the spread displays: the facts hold
                here = True
        if here:
            facts.edited(stmt)
            changed = True
    return changed


def _flatten(items: List[ast.expr], facts: Facts):
    if not any(isinstance(i, ast.Starred) and isinstance(i.value, (ast.List, ast.Tuple)) for i in items):
        return None
    out = []
    for item in items:
        if isinstance(item, ast.Starred) and isinstance(item.value, (ast.List, ast.Tuple)):
            facts.census[ast.Starred] -= 1
            facts.census[type(item.value)] -= 1
            facts.held[ast.Starred].pop(item, None)
            out.extend(_flatten(item.value.elts, facts) or item.value.elts)
        else:
            out.append(item)
    return out


def declare_unbound_cells(facts: Facts) -> bool:
    """``if False: b = d = None`` (which only makes the names locals, so a
    nested function's use of them makes them cells) is written as what it
    is, a declaration at the top: ``b: object``. Neither runs any code.

    Before::                        After::

                                        b: object
                                        d: object
        return x                        return x
        if False:
            b = d = None
    """
    changed = False
    for stmt in facts.statements():
        if not (isinstance(stmt, ast.If) and isinstance(stmt.test, ast.Constant)
                and stmt.test.value is False and not stmt.orelse and len(stmt.body) == 1):
            continue
        assign = stmt.body[0]
        scope = facts.scope
        if not (isinstance(assign, ast.Assign) and isinstance(assign.value, ast.Constant)
                and all(isinstance(t, ast.Name) and t.id not in scope.globals and t.id not in scope.nonlocals
                        for t in assign.targets)):
            continue        # (an annotation may not name a global or nonlocal)
        line = getattr(stmt, "lineno", 1)
        body = facts.fn.body
        at = 1 if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str) else 0
        for target in reversed(assign.targets):
            facts.insert(body, at, ast.AnnAssign(
                target=ast.Name(id=target.id, ctx=ast.Store()), annotation=ast.Name(id="object", ctx=ast.Load()),
                value=None, simple=1, lineno=line), None)
        facts.remove(stmt)
        changed = True
    return changed


def fold_negated_tests(fn: ast.FunctionDef) -> None:
    """``not a is b`` is written ``a is not b`` (``in`` likewise): the same
    test, which 3.14's Dynamo spells with a jump on true after ``is``.

    Before::                            After::

        if not value is None:               if value is not None:
            f(value)                            f(value)

    (After the other passes: it changes no name, value or statement.)
    """
    for node in ast.walk(fn):
        for name, value in ast.iter_fields(node):
            if isinstance(value, list):
                value[:] = [_folded(v) for v in value]
            elif isinstance(value, ast.expr):
                setattr(node, name, _folded(value))


def _folded(node):
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) \
            and isinstance(node.operand, ast.Compare) and len(node.operand.ops) == 1 \
            and type(node.operand.ops[0]) in FLIPPED_TESTS:
        test = node.operand
        return ast.copy_location(ast.Compare(left=test.left, ops=[FLIPPED_TESTS[type(test.ops[0])]()],
                                             comparators=test.comparators), node)
    return node
