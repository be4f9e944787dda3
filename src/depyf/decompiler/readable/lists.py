"""Follow lists that live only in temporaries to what they finally hold.

Dynamo hands a graph break's live values to the resume function through
lists it builds, slices, extends and shuffles in place, all of it on the
stack. Decompiled, each step is a statement on a ``stack_N`` list. Nothing
outside the function can see these lists until they are passed on, so
their contents can be followed statement by statement (the operations are
the builtin list's own: no code runs) and each use written as the display
of what the list holds then.

Before::                                       After::

    stack_3 = [graph_out_0[1]]
    stack_2 = stack_3[0:1]
    stack_2.extend([b])
    stack_6 = [stack_2]
    stack_6[0][0:0] = [g('x')]                     item = g('x')
    stack_7 = stack_6[0]
    stack_7[1:] = [stack_7[2], stack_7[1]]
    stack_8 = [stack_7]
    stack_11 = stack_8[-1]
    del stack_8[-1]
    return f(*[[], stack_8, *stack_11])            return f(*[[], [], item, b, graph_out_0[1]])

An item is carried as its expression only when that is pure (it reads the
same later: a local, a graph output, a constant); anything else is
evaluated where it was, into a new temporary. A list passed on (not spread)
is written as a fresh display, so it must never be touched again; an item
read later must not have been rebound in between, and one that is not a
plain name is written once only. Anything else refuses the whole function,
which then stays as it was.
"""
from __future__ import annotations

import ast
from typing import Dict, List, Optional, Union

from .blocks import SIMPLE, clone, names_under, subnodes
from .effects import PURE, kind_of, reads_of, writes_of
from .facts import Facts


class Refuse(Exception):
    """A list is used in a way this pass does not follow."""


class Item:
    """A list item carried as a pure expression, with the names it reads."""
    __slots__ = ("node", "reads")

    def __init__(self, node: ast.expr, reads):
        self.node, self.reads = node, reads


class TrackedList:
    __slots__ = ("items",)

    def __init__(self, items):
        self.items = list(items)


Value = Union[Item, TrackedList]


class State:
    """What each temporary holds; items made stale by a store to a name they
    read; how often each item was written out; lists passed on."""

    def __init__(self):
        self.env: Dict[str, Value] = {}
        self.stale = set()
        self.written: Dict[int, int] = {}
        self.escaped = set()

    def copy(self) -> "State":
        memo: Dict[int, TrackedList] = {}
        out = State()
        out.env = {k: _dup(v, memo) for k, v in self.env.items()}
        out.stale = set(self.stale)
        out.written = dict(self.written)
        out.escaped = {id(memo[i]) for i in self.escaped if i in memo}
        return out


def _dup(value, memo: Dict[int, TrackedList]):
    """``value`` with each tracked list in it copied once (``memo``: id of a
    list -> its copy). (Not a closure of State.copy: one that calls itself is
    a reference cycle, left for the garbage collector.)"""
    if isinstance(value, TrackedList):
        if id(value) not in memo:
            memo[id(value)] = new = TrackedList([])
            new.items = [_dup(v, memo) for v in value.items]
        return memo[id(value)]
    return value


def follow_local_lists(facts: Facts) -> bool:
    """Rewrite ``facts.fn``'s body if every tracked list is followed; True if it changed."""
    if not any(isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
               and isinstance(s.value, ast.List) and facts.scope.is_temporary(s.targets[0].id)
               for s in facts.statements()):
        return False    # no list lives in a temporary
    try:
        walker = _Walker(facts)
        body, _ = walker.block(facts.fn.body, State())
    except Refuse:
        return False
    if not walker.changed:
        return False
    facts.fn.body[:] = body
    facts.rebuild()     # (cheaper than counting the change: the body is much shorter now)
    return True


class _Walker:
    def __init__(self, facts: Facts):
        self.facts = facts
        self.changed = False
        # the names each statement of the body mentions, and those it stores or
        # deletes, its nested statements' included
        # (keyed by the statements themselves, which hash by identity)
        names: Dict[ast.stmt, set] = {}
        writes: Dict[ast.stmt, set] = {}
        owners = facts.owners
        for name, nodes in facts.by_name.items():
            for node in nodes:
                key = owners[node]      # (facts.statement_of(node))
                names.setdefault(key, set()).add(name)
                if not isinstance(node.ctx, ast.Load):
                    writes.setdefault(key, set()).add(name)
        for stmt in reversed(facts.statements()):       # nested statements before their owner
            site = facts.site(stmt)
            if site.owner is not None:
                names.setdefault(site.owner, set()).update(names.get(stmt, ()))
                writes.setdefault(site.owner, set()).update(writes.get(stmt, ()))
        self._names, self._writes = names, writes
        self._known = set(facts.statements())

    # -- blocks --------------------------------------------------------------------------
    def block(self, stmts: List[ast.stmt], state: State):
        """(new statements, state after, or None if control never leaves the end)."""
        out: List[ast.stmt] = []
        followed = set()
        for i, stmt in enumerate(stmts):
            if state is None:
                # unreachable: left as it is, but it must not use what was followed
                if self._mentions_tracked(stmts[i:], followed):
                    raise Refuse("unreachable code")
                out.extend(stmts[i:])
                break
            followed = set(state.env)
            state = self.statement(stmt, state, out)
        if not out:
            out.append(ast.Pass(lineno=getattr(stmts[0], "lineno", 1) if stmts else 1))
        return out, state

    def statement(self, stmt: ast.stmt, state: State, out: List[ast.stmt]) -> Optional[State]:
        if isinstance(stmt, ast.If):
            return self.if_statement(stmt, state, out)
        if isinstance(stmt, (ast.Assign, ast.Expr, ast.Delete)) and self.list_operation(stmt, state, out):
            self.changed = True
            return state
        if not isinstance(stmt, SIMPLE) or isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if self._mentions_tracked([stmt], state.env):
                raise Refuse("a followed list in a %s" % type(stmt).__name__)
            self._after_writes(self._written_by(stmt), state)
            out.append(stmt)
            return state
        new = self.rewrite_uses(stmt, state)
        written = self._written_by(new)
        self._after_writes(written, state)
        for target in written:
            state.env.pop(target, None)
        out.append(new)
        if isinstance(new, (ast.Return, ast.Raise)):
            return None
        return state

    def if_statement(self, stmt: ast.If, state: State, out: List[ast.stmt]) -> Optional[State]:
        test = self.rewrite_expression(stmt.test, state)
        self._after_writes(self._written_by(ast.Expr(value=test)), state)
        before = self.changed
        self.changed = False
        body, body_state = self.block(stmt.body, state.copy())
        orelse, else_state = self.block(stmt.orelse, state.copy()) if stmt.orelse else ([], state.copy())
        inner_changed, self.changed = self.changed, before or self.changed
        new = ast.If(test=test, body=body, orelse=orelse, lineno=getattr(stmt, "lineno", 1))
        if hasattr(stmt, "_at"):
            new._at = stmt._at      # (its jumps, for the line map: decompiler/line_map.py)
        out.append(new)
        if body_state is not None and else_state is not None:
            if inner_changed or self._mentions_tracked([stmt], state.env):
                raise Refuse("followed lists differ where two branches join")
            return else_state
        return body_state if body_state is not None else else_state

    # -- list operations -------------------------------------------------------------------
    def list_operation(self, stmt: ast.stmt, state: State, out: List[ast.stmt]) -> bool:
        """Handle ``stmt`` if it only builds or changes followed lists."""
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if isinstance(target, ast.Name) and self.facts.scope.is_temporary(target.id):
                if not self._is_list_expression(stmt.value, state):
                    return False
                value = self.value(stmt.value, state, out)
                state.env[target.id] = value
                return True
            if isinstance(target, ast.Subscript) and self._is_list_expression(target.value, state, lists_only=True):
                if not self._is_list_display(stmt.value, state):
                    return False
                items = self.value(stmt.value, state, out).items     # the value runs first
                owner = self.value(target.value, state, out)
                key = _index(target.slice)
                if isinstance(key, slice):
                    owner.items[key] = items
                else:
                    raise Refuse("an item assigned from a list")
                return True
            return False
        if isinstance(stmt, ast.Expr):
            call = stmt.value
            if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                    and call.func.attr in ("extend", "append") and len(call.args) == 1 and not call.keywords
                    and self._is_list_expression(call.func.value, state, lists_only=True)):
                owner = self.value(call.func.value, state, out)
                if call.func.attr == "extend":
                    if not self._is_list_display(call.args[0], state):
                        raise Refuse("extend with something else than a list")
                    owner.items.extend(self.value(call.args[0], state, out).items)
                else:
                    owner.items.append(self.item(call.args[0], state, out))
                return True
            if self._is_list_expression(call, state) and self._quiet(call, state):
                return True     # a followed list or a fresh display, evaluated for nothing
            return False
        if isinstance(stmt, ast.Delete) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if isinstance(target, ast.Subscript) and self._is_list_expression(target.value, state, lists_only=True):
                owner = self.value(target.value, state, out)
                key = _index(target.slice)
                try:
                    del owner.items[key]
                except IndexError:
                    raise Refuse("del of an item not there")
                return True
        return False

    def _is_list_expression(self, node: ast.expr, state: State, lists_only: bool = False) -> bool:
        """Is ``node`` a followed temporary, a constant index or slice of one (or of a display),
        or a display this pass can follow?"""
        if isinstance(node, ast.Name):
            held = state.env.get(node.id)
            return held is not None and (isinstance(held, TrackedList) or not lists_only)
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            # (of a display too: Dynamo picks the last frame's list out of ``[stack_2][-1]``)
            owner = node.value
            return _index(node.slice) is not None and (
                self._is_list_expression(owner, state, True)
                or (isinstance(owner, ast.List) and self._is_list_display(owner, state)))
        if isinstance(node, ast.List) and isinstance(node.ctx, ast.Load):
            return not lists_only and self._is_list_display(node, state)
        return False

    def _is_list_display(self, node: ast.expr, state: State) -> bool:
        if isinstance(node, ast.Name) or isinstance(node, ast.Subscript):
            return self._is_list_expression(node, state, lists_only=True)
        if not (isinstance(node, ast.List) and isinstance(node.ctx, ast.Load)):
            return False
        for elt in node.elts:
            if isinstance(elt, ast.Starred):
                if not self._is_list_display(elt.value, state):
                    return False
            elif not isinstance(elt, ast.Constant) and not self._is_list_expression(elt, state) \
                    and not names_under(elt).isdisjoint(state.env):
                return False
        return True

    def _quiet(self, node: ast.expr, state: State) -> bool:
        return all(isinstance(e, ast.Starred) or self._is_list_expression(e, state)
                   or kind_of(self.facts.steps.expression(e)) == PURE
                   for e in (node.elts if isinstance(node, ast.List) else []))

    def value(self, node: ast.expr, state: State, out: List[ast.stmt]) -> Value:
        """What a list expression evaluates to (new lists for displays and slices)."""
        if isinstance(node, ast.Name):
            held = state.env[node.id]
            if isinstance(held, TrackedList) and id(held) in state.escaped:
                raise Refuse("a list used after it was passed on")
            return held
        if isinstance(node, ast.Subscript):
            owner = self.value(node.value, state, out)
            if not isinstance(owner, TrackedList):
                raise Refuse("an item of an item")
            key = _index(node.slice)
            try:
                got = owner.items[key]
            except IndexError:
                raise Refuse("an index out of range")
            return TrackedList(got) if isinstance(key, slice) else got
        items: List[Value] = []
        for elt in node.elts:
            if isinstance(elt, ast.Starred):
                items.extend(self.value(elt.value, state, out).items)
            else:
                items.append(self.item(elt, state, out))
        return TrackedList(items)

    def item(self, node: ast.expr, state: State, out: List[ast.stmt]) -> Value:
        """A list item: followed if it is a list expression, carried if pure,
        else evaluated here into a new temporary."""
        if self._is_list_expression(node, state):
            return self.value(node, state, out)
        if not isinstance(node, ast.Constant) and not names_under(node).isdisjoint(state.env):
            raise Refuse("a followed list inside an item")
        steps = self.facts.steps.expression(node)
        if kind_of(steps) == PURE and not writes_of(steps):
            return Item(node, reads_of(steps))
        name = self.facts.scope.fresh("item")
        out.append(ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=node,
                              lineno=getattr(node, "lineno", 1)))
        return Item(ast.Name(id=name, ctx=ast.Load()), frozenset([name]))

    # -- uses in other statements ---------------------------------------------------------------
    def rewrite_uses(self, stmt: ast.stmt, state: State) -> ast.stmt:
        if not self._mentions_tracked([stmt], state.env):
            return stmt
        for node in subnodes(stmt):
            if isinstance(node, ast.Name) and node.id in state.env and not isinstance(node.ctx, ast.Load):
                if not (isinstance(stmt, ast.Assign) and node in stmt.targets):
                    raise Refuse("a followed list stored into")
        new = clone(stmt)
        self.changed = True
        return _Materialize(self, state).visit(new)

    def rewrite_expression(self, node: ast.expr, state: State) -> ast.expr:
        if names_under(node).isdisjoint(state.env):
            return node
        self.changed = True
        return _Materialize(self, state).visit(clone(node))

    def written(self, value: Value, state: State) -> ast.expr:
        """``value`` as an expression at a use: an item's expression, or a list's display."""
        if isinstance(value, Item):
            if id(value) in state.stale:
                raise Refuse("an item's names were rebound before its use")
            count = state.written[id(value)] = state.written.get(id(value), 0) + 1
            if count > 1 and not isinstance(value.node, (ast.Name, ast.Constant)):
                raise Refuse("an item used twice")
            return clone(value.node)
        if id(value) in state.escaped:
            raise Refuse("a list passed on twice")
        state.escaped.add(id(value))
        return ast.List(elts=[self.written(v, state) for v in value.items], ctx=ast.Load())

    def _written_by(self, stmt: ast.stmt):
        """The names ``stmt`` stores or deletes."""
        if stmt in self._known:
            return self._writes.get(stmt, ())
        return {node.id for node in subnodes(stmt) if type(node) is ast.Name and type(node.ctx) is not ast.Load}

    def _after_writes(self, writes, state: State) -> None:
        if not writes:
            return
        for value in _all_items(state):
            if value.reads & writes:
                state.stale.add(id(value))

    def _mentions_tracked(self, stmts, names) -> bool:
        for stmt in stmts:
            if stmt in self._known:
                if not self._names.get(stmt, set()).isdisjoint(names):
                    return True
            elif not names_under(stmt).isdisjoint(names):
                return True
        return False


class _Materialize(ast.NodeTransformer):
    """Each followed expression in a statement written as what it holds."""

    def __init__(self, walker: _Walker, state: State):
        self.walker, self.state = walker, state

    def _followed(self, node) -> bool:
        return isinstance(getattr(node, "ctx", None), ast.Load) and \
            self.walker._is_list_expression(node, self.state) and not isinstance(node, ast.List)

    def generic_visit(self, node):
        for field, old in ast.iter_fields(node):
            if isinstance(old, list):
                new_items = []
                for item in old:
                    if (isinstance(item, ast.Starred) and isinstance(item.ctx, ast.Load)
                            and self._followed(item.value)
                            and isinstance(node, (ast.Call, ast.List, ast.Tuple))):
                        value = self.walker.value(item.value, self.state, [])
                        if isinstance(value, TrackedList):
                            # spread: the list's items, the list itself not passed on
                            new_items.append(ast.Starred(value=ast.List(
                                elts=[self.walker.written(v, self.state) for v in value.items],
                                ctx=ast.Load()), ctx=ast.Load()))
                            continue
                    new_items.append(self.visit(item) if isinstance(item, ast.AST) else item)
                old[:] = new_items
            elif isinstance(old, ast.AST):
                setattr(node, field, self.visit(old))
        return node

    def visit(self, node):
        if isinstance(node, ast.expr) and self._followed(node):
            return self.walker.written(self.walker.value(node, self.state, []), self.state)
        return self.generic_visit(node)


def _all_items(state: State):
    seen = set()
    todo = list(state.env.values())
    while todo:
        value = todo.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, Item):
            yield value
        else:
            todo.extend(value.items)


def _index(node: ast.expr):
    """A constant index or slice (``1``, ``-1``, ``0:2``, ``1:``), or None."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and \
            isinstance(node.operand, ast.Constant) and type(node.operand.value) is int:
        return -node.operand.value
    if isinstance(node, ast.Slice) and node.step is None:
        bounds = []
        for bound in (node.lower, node.upper):
            if bound is None or (isinstance(bound, ast.Constant) and bound.value is None):
                bounds.append(None)
                continue
            value = _index(bound)
            if not isinstance(value, int):
                return None
            bounds.append(value)
        return slice(*bounds)
    return None

