"""What every readable pass is given, kept current as the passes edit.

:class:`Facts` holds one function, its name facts (:class:`~.scope.Scope`),
the steps of its code (:class:`~.effects.Evaluation`) and where each
statement and name is. It is built by one walk of the body; the passes
change the body through its edit methods (:meth:`Facts.replace`,
:meth:`Facts.remove`, :meth:`Facts.insert_before`...), which keep counts and
places current, so one walk serves a whole run of passes.

Example::

    >>> import ast
    >>> fn = ast.parse("def f(a):\\n    t = a\\n    if t:\\n        return g(t)").body[0]
    >>> facts = Facts(fn, frozenset(), {})
    >>> [type(facts.statement_of(n)).__name__ for n in facts.loads("t")]
    ['If', 'Return']
    >>> facts.site(facts.statement_of(facts.loads("t")[1])).block is fn.body[1].body
    True
"""
from __future__ import annotations

import ast
import functools
from collections import defaultdict
from typing import Collection, Dict, FrozenSet, List, Mapping, Optional, Sequence, Set, Tuple

from ..astcompat import bound_name
from .blocks import BRANCHES, NODE_FIELDS, SIMPLE, bodies, clone, header, replace_node, subnodes
from .effects import Effect, Evaluation, Step
from .scope import SCOPES, Scope, free_names, own_children


#: statements whose bodies run again and again
LOOPS = (ast.For, ast.AsyncFor, ast.While)
#: statements whose bodies an exception may leave for code that goes on
PROTECTING = tuple(getattr(ast, name) for name in ("Try", "TryStar", "With", "AsyncWith") if hasattr(ast, name))


class Site:
    """A statement's place: the block holding it and the compound statement
    owning the block (None at the function's top); its index is looked up,
    so removing and inserting statements leaves sites valid."""
    __slots__ = ("block", "owner", "stmt")

    def __init__(self, block: List[ast.stmt], owner: Optional[ast.stmt], stmt: ast.stmt):
        self.block, self.owner, self.stmt = block, owner, stmt

    @property
    def index(self) -> int:
        return self.block.index(self.stmt)     # (AST nodes equal only themselves)


class Facts:
    """One function as the passes see it; ``callees`` maps a global name to
    the parameter names of the function it holds (Dynamo's resume functions),
    ``keep`` the names that are the user's."""

    def __init__(self, fn: ast.FunctionDef, keep: FrozenSet[str],
                 callees: Mapping[str, Sequence[str]]):
        self.fn, self.keep, self.callees = fn, keep, callees
        self.rebuild()

    # -- the walk ---------------------------------------------------------------------
    def rebuild(self) -> None:
        """Walk the body afresh (after a pass rewrote it wholesale)."""
        # (these tables, like those below, are keyed by the nodes themselves: an
        # AST node hashes and compares by identity, and no id() is to be made)
        self.sites: Dict[ast.stmt, Site] = {}
        #: a name's node -> the statement holding it
        self.owners: Dict[ast.Name, ast.stmt] = {}
        #: name -> its nodes, in no order a pass may depend on (edits take nodes out
        #: and add others at the end; :meth:`unwrap` leaves the value's in place)
        self.by_name: Dict[str, List[ast.Name]] = {}
        # (defaultdicts: a Counter's missing keys cost a Python call each)
        self._loads: Dict[str, int] = defaultdict(int)
        self._stores: Dict[str, int] = defaultdict(int)
        self._deletes: Dict[str, int] = defaultdict(int)
        self._every: Set[str] = set()
        self._globals: Set[str] = set()
        self._nonlocals: Set[str] = set()
        self._nested: Set[str] = set()
        self._order: Optional[Dict[ast.stmt, int]] = None
        #: how many nodes of each class the body's own code holds (but names: see
        #: by_name): a pass with nothing to work on is skipped at the cost of a look-up
        self.census: Dict[type, int] = defaultdict(int)
        #: walruses and spreads: node -> (node, the statement holding it)
        self.held: Dict[type, Dict[ast.AST, Tuple[ast.AST, ast.stmt]]] = {ast.NamedExpr: {}, ast.Starred: {}}
        #: a Name stored by an ``Assign`` or walrus -> the Assign or walrus
        self._binder: Dict[ast.Name, ast.AST] = {}
        self._statements: Optional[List[ast.stmt]] = None
        self._steps: Dict[ast.stmt, List[Step]] = {}
        self._effects: Dict[ast.stmt, Effect] = {}
        #: the steps of items (arguments, displays' items) of the statements'
        #: steps, kept across edits of other items (see Evaluation.item)
        self._item_steps: Dict[ast.AST, Tuple[bool, List[Step]]] = {}
        #: stmt -> (steps it had before values moved into it, the first step
        #: of each node there, how many of those steps are still its own)
        self._kept: Dict[ast.stmt, Tuple[List[Step], Dict[ast.AST, int], int]] = {}
        counters = {ast.Load: self._loads, ast.Store: self._stores, ast.Del: self._deletes}
        self._tables = (self.census, self.held, self._binder, self.owners, self.by_name, self._every, counters)
        self._seen: Optional[Set[ast.AST]] = set()
        self._visit(self.fn.body, None)
        self._seen = None
        self.scope = Scope(self.fn, self.keep, self._loads, self._stores, self._deletes,
                           self._nested, self._every, self._globals, self._nonlocals)
        # (the tables, not a bound method of these facts: the facts hold the
        # evaluation, and a cycle would leave the whole tree to the collector)
        self.steps = Evaluation(self.scope, functools.partial(
            _binding_value, self.scope, self.by_name, self._binder))

    def _visit(self, block: List[ast.stmt], owner: Optional[ast.stmt]) -> None:
        for stmt in block:
            self.sites[stmt] = Site(block, owner, stmt)
            if type(stmt) in _PLAIN:
                self._count(stmt, stmt)     # (what _note_statement does for it)
                continue
            self._note_statement(stmt, +1)
            if type(stmt) not in _BODILESS:
                for inner in bodies(stmt):
                    self._visit(inner, stmt)

    def _note_statement(self, stmt: ast.stmt, sign: int) -> None:
        """Count (or uncount) what ``stmt`` itself holds and binds, not its bodies."""
        if type(stmt) in _PLAIN:      # (most statements: the statement is its one part, binding no name itself)
            if sign > 0:
                self._count(stmt, stmt)
            else:
                self._uncount(stmt, stmt)
            return
        parts = header(stmt)
        if not parts or parts[0] is not stmt:
            self.census[type(stmt)] += sign     # (a simple statement is counted with its parts)
        for part in parts:
            if sign > 0:
                self._count(part, stmt)
            else:
                self._uncount(part, stmt)
        bound: List[str] = []
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.append(stmt.name)
            if sign > 0:
                self._note_nested(stmt)
        elif isinstance(stmt, ast.Global):
            self._globals.update(stmt.names)
        elif isinstance(stmt, ast.Nonlocal):
            self._nonlocals.update(stmt.names)
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            bound += [bound_name(alias) for alias in stmt.names]
        bound += [h.name for h in getattr(stmt, "handlers", None) or [] if h.name]
        for name in bound:
            self._stores[name] += sign
            self._every.add(name)

    def _count(self, root: ast.AST, stmt: ast.stmt) -> None:
        """Count the nodes under ``root``, held by ``stmt``."""
        census, held, binder, owners, by_name, every, counters = self._tables
        name_kind, constant_kind, assign_kind, named_kind, noted, scopes, fields_of = _WALK
        # A node met twice (the decompiler may share one between two places) is
        # copied, so that each place is its own: looked for on the first walk only
        # (``_seen``, the nodes met so far, is None after it; AST nodes hash and
        # compare by identity, so the set holds the nodes, not their ids: quicker).
        seen = self._seen
        todo = [root]
        pop, push = todo.pop, todo.append
        while todo:
            node = pop()
            if node is None:        # (a dict display's ``**`` entry)
                continue
            kind = type(node)
            if kind is name_kind:       # (not in the census: by_name holds the names)
                name = node.id
                counters[type(node.ctx)][name] += 1
                owners[node] = stmt
                found = by_name.get(name)
                if found is None:
                    by_name[name] = [node]
                    every.add(name)
                else:
                    found.append(node)
                continue
            census[kind] += 1
            if kind in noted:      # (one look-up for the few classes with more to note)
                if kind is constant_kind:
                    continue
                if kind in held:
                    held[kind][node] = (node, stmt)
                    if kind is named_kind:
                        binder[node.target] = node
                elif kind is assign_kind:
                    for target in node.targets:
                        if type(target) is name_kind:
                            binder[target] = node
                if kind in scopes:
                    if node is not stmt:
                        self._note_nested(node)
                    todo.extend(own_children(node))
                    continue
            for field in fields_of[kind]:
                value = getattr(node, field, None)
                if value is None:
                    continue
                if type(value) is list:
                    if seen is None:
                        todo += value
                        continue
                    for i, item in enumerate(value):
                        if item is not None:
                            if item in seen:
                                item = value[i] = clone(item)
                            seen.add(item)
                            push(item)
                else:
                    if seen is not None:
                        if value in seen:
                            value = clone(value)
                            setattr(node, field, value)
                        seen.add(value)
                    push(value)

    def _uncount(self, root: ast.AST, stmt: ast.stmt) -> None:
        """Uncount the nodes under ``root``, held by ``stmt``."""
        census, held, binder, owners, by_name, every, counters = self._tables
        name_kind, constant_kind, assign_kind, named_kind, noted, scopes, fields_of = _WALK
        todo = [root]
        pop = todo.pop
        while todo:
            node = pop()
            if node is None:
                continue
            kind = type(node)
            if kind is name_kind:
                counters[type(node.ctx)][node.id] -= 1
                found = by_name.get(node.id)
                if found is not None and node in found:     # (a node is in the list once: see _count)
                    found.remove(node)
                continue
            census[kind] -= 1
            if kind in noted:
                if kind is constant_kind:
                    continue
                if kind in held:
                    held[kind].pop(node, None)
                    if kind is named_kind:
                        binder.pop(node.target, None)
                elif kind is assign_kind:
                    for target in node.targets:
                        binder.pop(target, None)
                if kind in scopes:
                    todo.extend(own_children(node))
                    continue
            for field in fields_of[kind]:
                value = getattr(node, field, None)
                if value is None:
                    continue
                if type(value) is list:
                    todo += value
                else:
                    todo.append(value)

    def _note_nested(self, scope_node: ast.AST) -> None:
        """A nested scope: the names it takes from here are cells if local
        here, and no new name may be one of them."""
        free = free_names(scope_node)
        self._nested |= free
        self._every |= free

    # -- where things are ---------------------------------------------------------------
    def binder_of(self, store: ast.Name):
        """The ``Assign`` (``store`` one of its targets) or walrus that stores ``store``, or None."""
        return self._binder.get(store)

    def binding(self, name: str):
        """The ``Assign`` (``name`` one of its targets) or walrus that is the one
        store of ``name``, or None."""
        return _binding(self.by_name, self._binder, name)

    def site(self, stmt: ast.stmt) -> Site:
        return self.sites[stmt]

    def statement_of(self, node: ast.Name) -> ast.stmt:
        return self.owners[node]

    def names(self, name: str) -> List[ast.Name]:
        return self.by_name.get(name, [])

    def loads(self, name: str) -> List[ast.Name]:
        return [n for n in self.by_name.get(name, ()) if isinstance(n.ctx, ast.Load)]

    def stores(self, name: str) -> List[ast.Name]:
        return _stores(self.by_name, name)

    def statements(self) -> List[ast.stmt]:
        """Every statement of the body (nested bodies included), in text order
        (a copy: the caller may edit as it goes)."""
        if self._statements is None:
            self._statements = self._all_statements()
        return list(self._statements)

    def _all_statements(self) -> List[ast.stmt]:
        out: List[ast.stmt] = []
        _collect(self.fn.body, out)
        return out

    def order(self, stmt: ast.stmt) -> int:
        """Position of ``stmt`` in text order."""
        if self._order is None:
            self._order = {s: i for i, s in enumerate(self.statements())}
        return self._order[stmt]

    def enclosing(self, stmt: ast.stmt) -> List[Site]:
        """The site of ``stmt``, then those of the statements around it, outwards."""
        out = []
        site = self.sites.get(stmt)
        while site is not None:
            out.append(site)
            site = self.sites.get(site.owner) if site.owner is not None else None
        return out

    def inside(self, stmt: ast.stmt, kinds) -> bool:
        """Is ``stmt`` in a body of a statement of one of ``kinds``?"""
        site = self.sites.get(stmt)
        while site is not None and site.owner is not None:     # (the owners of :meth:`enclosing`)
            if isinstance(site.owner, kinds):
                return True
            site = self.sites.get(site.owner)
        return False

    def protected(self, stmt: ast.stmt) -> bool:
        """Is ``stmt`` inside a ``try`` or ``with`` (whose handler or exit may see
        what ran before an exception: nothing there may move)?"""
        return self.inside(stmt, PROTECTING)

    def path_to(self, stmt: ast.stmt, block: List[ast.stmt]) -> Optional[List[ast.stmt]]:
        """The statements from one directly in ``block`` down to ``stmt``
        (``[stmt]`` when ``stmt`` is in ``block``); None when ``stmt`` is not
        inside ``block`` or is reached through a body other than an ``if``'s."""
        path = [stmt]
        site = self.site(stmt)
        while site.block is not block:
            owner = site.owner
            if owner is None or not isinstance(owner, BRANCHES):
                return None
            path.append(owner)
            site = self.site(owner)
        path.reverse()
        return path

    def statement_steps(self, stmt: ast.stmt) -> List[Step]:
        """The steps of ``stmt``, kept until an edit of it or of a statement
        in it. (A step's kind may also depend on the one binding of a
        temporary it reads; the passes drop or change a binding only once
        nobody reads its name, or keep its value.)"""
        steps = self._steps.get(stmt)
        if steps is None:
            evaluation = self.steps
            evaluation.memo = self._item_steps
            try:
                steps = self._steps[stmt] = evaluation.statement(stmt)
            finally:
                evaluation.memo = None
        return steps

    def edited(self, stmt: Optional[ast.stmt] = None) -> None:
        """Forget what an edit of ``stmt`` (None: of anything) may have
        changed; passes that change nodes in place, without the edit methods,
        call it."""
        self._item_steps.clear()        # (which items changed is not known)
        self._edited(stmt)

    def _edited(self, stmt: Optional[ast.stmt]) -> None:
        """:meth:`edited` for the edit methods, which know what they changed:
        the items they edited inside are forgotten by :meth:`_replaced`."""
        self._statements = None
        self._order = None
        if stmt is None:
            self._steps.clear()
            self._effects.clear()
            self._kept.clear()
            return
        self._changed(stmt)

    def _changed(self, stmt: Optional[ast.stmt]) -> None:
        """Forget the steps (and effects) of ``stmt`` and of the statements around it."""
        steps, effects, kept, sites = self._steps, self._effects, self._kept, self.sites
        while stmt is not None:
            steps.pop(stmt, None)
            effects.pop(stmt, None)
            kept.pop(stmt, None)
            site = sites.get(stmt)
            stmt = site.owner if site is not None else None

    def steps_before(self, stmt: ast.stmt, node: ast.AST) -> Optional[List[Step]]:
        """``prefix(self.statement_steps(stmt), node)``, without evaluating
        ``stmt`` again where values moved into it only after ``node``: a
        graph call's arguments are moved into it from the last one back, and
        what runs before an argument is what ran before it then."""
        kept = self._kept.get(stmt)
        if kept is not None:
            steps, first, limit = kept
            at = first.get(node)
            if at is not None and at < limit:
                # (a node's steps come after those of the nodes under it: the
                # steps before ``limit`` belong to nothing the moves changed)
                return None if steps[at].lazy else steps[:at]
        return prefix(self.statement_steps(stmt), node)

    def statement_effect(self, stmt: ast.stmt) -> Effect:
        """:class:`Effect` of ``stmt``'s steps (forgotten with them)."""
        effect = self._effects.get(stmt)
        if effect is None:
            effect = self._effects[stmt] = Effect.of(self.statement_steps(stmt))
        return effect

    def between(self, block: List[ast.stmt], start: int, path: List[ast.stmt],
                node: ast.AST) -> Optional[Tuple[Effect, bool]]:
        """(effect, nested): what runs after ``block[start - 1]`` and before
        ``node`` is evaluated, ``node`` being reached through ``path`` (see
        :meth:`path_to`); ``nested`` when that is inside a branch. None when
        ``node`` is not evaluated exactly once there (a short-circuit
        operand, a lambda's body)."""
        first = self.site(path[0]).index
        effect = self.statement_effect
        parts = [effect(stmt) for stmt in block[start:first]]
        for outer, inner in zip(path, path[1:]):
            parts.append(Effect.of(self.steps.expression(outer.test)))
            site = self.site(inner)
            parts += [effect(stmt) for stmt in site.block[:site.index]]
        before = self.steps_before(path[-1], node)
        if before is None:
            return None
        parts.append(Effect.of(before))
        return Effect.union(parts), len(path) > 1

    # -- edits that keep the facts current ------------------------------------------------
    def _replaced(self, stmt: ast.stmt, old: ast.AST, new: ast.AST) -> None:
        """Put ``new`` where ``old`` is in ``stmt``, and forget the steps of
        the items it is inside of (the others' stay right)."""
        around = replace_node(stmt, old, new)
        if around is None:
            raise ValueError("node not in its statement")
        forget = self._item_steps.pop
        for node in around:
            forget(node, None)

    def replace(self, stmt: ast.stmt, old: ast.expr, new: ast.expr) -> None:
        """Put ``new`` where ``old`` is in ``stmt``'s own expressions."""
        self._replaced(stmt, old, new)
        self._uncount(old, stmt)
        self._count(new, stmt)
        self._changed(stmt)

    def unwrap(self, stmt: ast.stmt, walrus: ast.NamedExpr) -> None:
        """``(t := value)`` in ``stmt``'s own expressions becomes ``value``: only
        the walrus and its target are uncounted, the value's nodes staying in
        the same statement (what :meth:`replace` would uncount and count again)."""
        self._replaced(stmt, walrus, walrus.value)
        self._uncount(walrus.target, stmt)
        self.census[ast.NamedExpr] -= 1
        self.held[ast.NamedExpr].pop(walrus, None)
        self._binder.pop(walrus.target, None)
        self._changed(stmt)

    def move_value(self, binding: ast.Assign, stmt: ast.stmt, use: ast.Name) -> None:
        """``binding`` (``t = value``) goes, its value taking the place of
        ``use`` (the one read of ``t``) in ``stmt``: the value's names change
        statement, nothing else about them does (so only the binding's own
        target, the read and the ``Assign`` are uncounted)."""
        value = binding.value
        fresh, kept = self._steps.get(stmt), self._kept.get(stmt)
        self._replaced(stmt, use, value)
        site = self.site(binding)
        site.block.pop(site.index)
        self._uncount(use, stmt)
        for target in binding.targets:
            self._uncount(target, binding)
            self._binder.pop(target, None)
        self.census[ast.Assign] -= 1
        # the value's nodes now belong to ``stmt``
        owners, held = self.owners, self.held
        todo = [value]
        while todo:
            node = todo.pop()
            if node is None:
                continue
            kind = type(node)
            if kind is ast.Name:
                owners[node] = stmt
                continue
            if kind in held:
                held[kind][node] = (node, stmt)
            if kind in _SCOPE_KINDS:
                todo.extend(own_children(node))
                continue
            for field in NODE_FIELDS[kind]:
                child = getattr(node, field, None)
                if type(child) is list:
                    todo += child
                elif child is not None:
                    todo.append(child)
        self._edited(binding)
        self.sites.pop(binding, None)
        self._changed(stmt)
        # The steps before the read the value took the place of are still
        # ``stmt``'s (see steps_before).
        if fresh is not None:
            kept = (fresh, _first_steps(fresh), len(fresh))
        if kept is not None and kept[1].get(use) is not None:
            self._kept[stmt] = (kept[0], kept[1], min(kept[2], kept[1][use]))

    def remove(self, stmt: ast.stmt) -> None:
        """Take simple statement ``stmt`` out of its block (``pass`` if it was alone)."""
        site = self.site(stmt)
        block = site.block
        block.pop(site.index)
        self._forget(stmt)
        if not block:
            self.insert(block, 0, ast.Pass(lineno=getattr(stmt, "lineno", 1)), site.owner)

    def _forget(self, stmt: ast.stmt) -> None:
        self._note_statement(stmt, -1)
        for inner in bodies(stmt):
            for s in inner:
                self._forget(s)
        self._edited(stmt)
        self.sites.pop(stmt, None)

    def insert(self, block: List[ast.stmt], at: int, stmt: ast.stmt, owner: Optional[ast.stmt]) -> None:
        block.insert(at, stmt)
        self.sites[stmt] = Site(block, owner, stmt)
        self._note_statement(stmt, +1)
        self._edited(stmt)

    def insert_before(self, anchor: ast.stmt, stmt: ast.stmt) -> None:
        site = self.site(anchor)
        self.insert(site.block, site.index, stmt, site.owner)

    def swap(self, old: ast.stmt, new: ast.stmt) -> None:
        """Put simple statement ``new`` in the place of ``old``."""
        site = self.site(old)
        at = site.index
        site.block.pop(at)
        self._forget(old)
        self.insert(site.block, at, new, site.owner)

    def own_expression_nodes(self, stmt: ast.stmt):
        """The nodes of ``stmt``'s own expressions (not its bodies', not nested scopes')."""
        for part in header(stmt):
            todo = [part]
            while todo:
                node = todo.pop()
                yield node
                if isinstance(node, SCOPES) and node is not stmt:
                    continue
                todo.extend(_children(node))


def _collect(block: List[ast.stmt], out: List[ast.stmt]) -> None:
    """Add the statements of ``block``, each followed by those of its bodies, to ``out``."""
    for stmt in block:
        out.append(stmt)
        if type(stmt) not in _BODILESS:
            for inner in bodies(stmt):
                _collect(inner, out)


def _stores(by_name: Dict[str, List[ast.Name]], name: str) -> List[ast.Name]:
    """:meth:`Facts.stores` from the table it reads."""
    return [n for n in by_name.get(name, ()) if isinstance(n.ctx, ast.Store)]


def _binding(by_name: Dict[str, List[ast.Name]], binder: Dict[ast.Name, ast.AST], name: str):
    """:meth:`Facts.binding` from the tables it reads."""
    stores = _stores(by_name, name)
    return binder.get(stores[0]) if len(stores) == 1 else None


def _binding_value(scope: Scope, by_name: Dict[str, List[ast.Name]], binder: Dict[ast.Name, ast.AST],
                   name: str) -> Optional[ast.expr]:
    """The value of the one store of ``name`` (``name = v`` or ``(name := v)``),
    if it is stored once and never deleted: what the facts' evaluation asks
    (see :meth:`Facts.rebuild`)."""
    if scope.stores[name] != 1 or scope.deletes[name]:
        return None
    binding = _binding(by_name, binder, name)
    return binding.value if binding is not None else None


def scope_of(fn: ast.FunctionDef, keep: Collection[str] = ()) -> Scope:
    """The name facts of ``fn`` alone, for a question that needs no edits after.

    >>> fn = ast.parse("def f(a):\\n    t = a\\n    return t").body[0]
    >>> sorted(scope_of(fn).temporaries), scope_of(fn, keep={"t"}).temporaries
    (['t'], set())
    """
    return Facts(fn, frozenset(keep), {}).scope


_SCOPE_KINDS = frozenset(SCOPES)
_NAME, _CONSTANT, _ASSIGN, _NAMED_EXPR = ast.Name, ast.Constant, ast.Assign, ast.NamedExpr
#: the classes :meth:`Facts._count` notes more of than their count and children
_NOTED = frozenset([_CONSTANT, _ASSIGN, _NAMED_EXPR, ast.Starred]) | _SCOPE_KINDS
#: what the walks of :meth:`Facts._count` and ``_uncount`` look up, taken into locals at once
_WALK = (_NAME, _CONSTANT, _ASSIGN, _NAMED_EXPR, _NOTED, _SCOPE_KINDS, NODE_FIELDS)
#: statements without bodies (:data:`~.blocks.SIMPLE`), for a look-up by class
_BODILESS = frozenset(SIMPLE)
#: statements that are their own one part (:func:`~.blocks.header`) and bind no name but in it
_PLAIN = frozenset([ast.Assign, ast.Expr, ast.Return, ast.Delete, ast.AugAssign, ast.AnnAssign,
                    ast.Raise, ast.Assert, ast.Pass, ast.Break, ast.Continue])
def _children(node: ast.AST) -> List[ast.AST]:
    out = []
    for name in NODE_FIELDS[type(node)]:
        value = getattr(node, name, None)
        if value is None:
            continue
        if type(value) is list:
            out += [item for item in value if item is not None]
        else:
            out.append(value)
    return out


def _first_steps(steps: List[Step]) -> Dict[ast.AST, int]:
    """Each node -> the index of its first step in ``steps``."""
    first: Dict[ast.AST, int] = {}
    for i in range(len(steps) - 1, -1, -1):
        first[steps[i].node] = i
    return first


def prefix(steps: List[Step], node: ast.AST) -> Optional[List[Step]]:
    """The steps before ``node``'s own step; None when ``node`` has none or
    runs lazily."""
    for i, step in enumerate(steps):
        if step.node is node:
            return None if step.lazy else steps[:i]
    return None


def first_step_of(steps: List[Step], node: ast.AST) -> Optional[int]:
    """Index of the first step evaluating part of ``node`` (its subtree), or None."""
    nodes = set(subnodes(node))
    for i, step in enumerate(steps):
        if step.node in nodes:
            return i
    return None
