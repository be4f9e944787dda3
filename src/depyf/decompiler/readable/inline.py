"""Passes that put values back into the expressions that use them."""
from __future__ import annotations

import ast

from .blocks import clone, subnodes
from .effects import CODE, Effect, may_move
from .facts import LOOPS, Facts
from .scope import DYNAMO_GLOBAL, DYNAMO_MODULE, GRAPH_OUTPUT

#: globals Dynamo calls to resume after a graph break
RESUME_CALLEE = "__resume_at_"


def propagate_copies(facts: Facts) -> bool:
    """A temporary that only ever holds a parameter nobody rebinds (or a
    global Dynamo installed or an attribute of a module it installed, or a
    constant) is written as that.

    Before::                                    After::

        stack_1 = call_size(tmp_4 := x, 0)          stack_1 = call_size(x, 0)
        g(stack_1, tmp_4)                           g(stack_1, x)
    """
    scope = facts.scope
    changed = False
    for name in sorted(scope.temporaries):
        if scope.stores[name] != 1 or scope.deletes[name] or not scope.loads[name] or GRAPH_OUTPUT.match(name):
            continue
        binding = facts.binding(name)
        if binding is None:
            continue
        value = binding.value
        if not _never_changes(facts, value) or not _reads_follow(facts, name, binding):
            continue
        for load in facts.loads(name):
            facts.replace(facts.statement_of(load), load, clone(value))
        if isinstance(binding, ast.NamedExpr):      # nobody reads it now
            facts.unwrap(facts.statement_of(binding.target), binding)
        changed = True
    return changed


def _reads_follow(facts: Facts, name: str, binding: ast.AST) -> bool:
    """Does every read of ``name`` come after its binding, which no loop
    repeats? (A read before it would raise: the copy must not hide that.)"""
    holder = binding if isinstance(binding, ast.stmt) else facts.statement_of(binding.target)
    if facts.inside(holder, LOOPS):
        return False
    at = facts.order(holder)
    for load in facts.loads(name):
        where = facts.statement_of(load)
        if where is holder:
            steps = [s.node for s in facts.statement_steps(holder)]
            if not (binding in steps and load in steps and steps.index(binding) < steps.index(load)):
                return False
        elif facts.order(where) < at:
            return False
    return True


def _never_changes(facts: Facts, node: ast.expr) -> bool:
    """A constant, a parameter nobody rebinds, a temporary bound once, a
    global Dynamo installed or an attribute of a module it installed."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Attribute):
        return (isinstance(node.value, ast.Name) and bool(DYNAMO_MODULE.match(node.value.id))
                and facts.scope.kind_of(node.value.id) == "global")
    if not isinstance(node, ast.Name):
        return False
    scope = facts.scope
    if scope.is_temporary(node.id):
        # another temporary, bound once, never deleted, read more than once (else
        # it goes into its use): it holds that one value from its binding on,
        # which comes first (the copy reads it there)
        return (scope.stores[node.id] == 1 and not scope.deletes[node.id] and scope.loads[node.id] > 1
                and facts.binding(node.id) is not None and not GRAPH_OUTPUT.match(node.id))
    if node.id in scope.params:
        return not scope.stores[node.id] and not scope.deletes[node.id] and node.id in scope.plain_locals
    return scope.kind_of(node.id) == "global" and bool(DYNAMO_GLOBAL.match(node.id))


def inline_single_use(facts: Facts) -> bool:
    """``t = value`` followed by the one use of ``t`` becomes that use of
    ``value`` when nothing between could tell the difference (see
    :func:`~.effects.may_move`); into a branch only a pure value moves.

    Before::                                    After::

        stack_0 = __compiled_fn_1
        tmp_2 = utils.enter()
        utils.exit(tmp_2)                           utils.exit(utils.enter())
        stack_1 = stack_0(a, b)                     graph_out_0 = __compiled_fn_1(a, b)
        graph_out_0 = stack_1
        stack_4 = graph_out_0[0]
        if stack_4:                                 if graph_out_0[0]:

    Dynamo's ``graph_out_N`` keeps its statement (the graph's call is the
    line to break on), and a call is not moved into the arguments of a
    resume function: the value a graph break computed keeps its own line.
    """
    scope = facts.scope
    candidates = []
    for name in scope.temporaries:
        if scope.stores[name] != 1 or scope.deletes[name] or scope.loads[name] != 1 or GRAPH_OUTPUT.match(name):
            continue
        binding = facts.binding(name)
        if isinstance(binding, ast.Assign) and len(binding.targets) == 1 and not facts.protected(binding):
            candidates.append((facts.order(binding), name, binding))
    # The last binding first: in ``a = f(); b = g(); h(a, b)`` b's move leaves a next to its use.
    candidates.sort(reverse=True)
    changed = False
    for _, name, binding in candidates:
        [use] = facts.loads(name)
        site = facts.site(binding)
        path = facts.path_to(facts.statement_of(use), site.block)
        if path is None or facts.site(path[0]).index <= site.index:
            continue
        found = facts.between(site.block, site.index + 1, path, use)
        if found is None:
            continue
        between, nested = found
        value = Effect.of(facts.statement_steps(binding)[:-1])      # (all but the store)
        if not may_move(value, between, into_branch=nested):
            continue
        if value.kind == CODE and isinstance(path[-1], ast.Return) and _is_resume_argument(path[-1], use):
            continue
        facts.move_value(binding, path[-1], use)
        changed = True
    return changed


def _is_resume_argument(stmt: ast.stmt, use: ast.Name) -> bool:
    for node in subnodes(stmt):
        if isinstance(node, ast.Call) and callee_name(node.func).startswith(RESUME_CALLEE):
            if any(arg is use or (isinstance(arg, ast.Starred) and use in subnodes(arg))
                   for arg in node.args):
                return True
    return False


def callee_name(func: ast.expr) -> str:
    """The global a call's function comes from: ``__resume_at_8_2`` for
    ``__resume_at_8_2(...)`` and for ``__resume_at_8_2(cells)(...)`` (a resume
    function with a closure is made by a call first)."""
    while isinstance(func, ast.Call):
        func = func.func
    return func.id if isinstance(func, ast.Name) else ""
