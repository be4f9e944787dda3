"""Statements while earlier-evaluated values still wait on the stack.

Source never leaves a value on the stack across a statement; generated
bytecode does. Dynamo loads the compiled graph's function, runs bookkeeping
statements, and only then calls it::

    LOAD_GLOBAL __compiled_fn_1; PUSH_NULL          (waits)
    ...; CALL 0; STORE_FAST tmp_2                    tmp_2 = enter()
    LOAD_FAST a; LOAD_FAST b; CALL 2                 __compiled_fn_1(a, b)

Printing a waiting value where it is finally used would move its evaluation
after the statement. So before a statement is emitted, the values that must
keep their place are *spilled*: assigned to a temporary (``stack_0 = ...``)
where they were evaluated, and the temporary is used in their place. Only
what needs it is spilled: a constant, or a local the statement cannot change,
reads the same later; an expression evaluated *after* the statement's time
stays; and the parts of the statement itself evaluated before a spilled
value are spilled too, so every effect keeps its order. A value used twice
(a COPY) is spilled once, so it is evaluated once.

Example (``f`` waits while ``g()`` runs as a statement)::

    stack_0 = f
    g()
    return stack_0(x)

Ordinary compiled code never gets here: its statements start on an empty
stack, so its output is unchanged.
"""
from __future__ import annotations

import ast
import itertools
import operator
from typing import Dict, List, Optional, Tuple

from .evaluation_order import PUSH_TIMES
from .values import AST_KINDS, PendingNamed, Placeholder

#: expression nodes whose evaluation runs no user code (no call, no dunder method)
_QUIET = (ast.Constant, ast.Name, ast.Tuple, ast.List, ast.Slice, ast.expr_context,
          ast.Lambda, ast.NamedExpr, ast.Pass, ast.Break, ast.Continue, ast.Global,
          ast.Nonlocal, ast.Expr, ast.Assign, ast.Delete, ast.Return, ast.arguments, ast.arg,
          ast.keyword)


class Spills:
    """Temporaries of one code object: names no other name in it uses."""

    def __init__(self, code):
        taken = set()
        for record in _walk(code):
            for field in ("names", "varnames", "cellvars", "freevars"):
                taken.update(getattr(record, field, ()) or ())
        self.taken = taken
        self.count = itertools.count()

    def new_name(self, base: str = "") -> str:
        """``stack_N``, or ``base`` (``base_N`` when taken)."""
        if base and base not in self.taken:
            self.taken.add(base)
            return base
        while True:
            name = "%s_%d" % (base or "stack", next(self.count))
            if name not in self.taken:
                self.taken.add(name)
                return name


def _walk(code):
    if code is None:
        return
    yield code
    for const in getattr(code, "consts", ()) or ():
        if type(const).__name__ == "CodeRecord" or hasattr(const, "co_code"):
            yield from _walk(const)


def spills_of(ctx) -> Spills:
    spills = getattr(ctx, "spills", None)
    if spills is None:
        spills = ctx.spills = Spills(ctx.code)
    return spills


# -- what an expression does ---------------------------------------------------------

class Effects:
    """What evaluating some code may do: run user code, bind or unbind names."""

    def __init__(self):
        self.runs_code = False
        self.writes = set()
        #: any name may be bound (a compound statement's body)
        self.writes_all = False

    def add(self, other: "Effects") -> "Effects":
        self.runs_code |= other.runs_code
        self.writes |= other.writes
        self.writes_all |= other.writes_all
        return self


def effects(node, skip=(), kids=None) -> Effects:
    """The effects of evaluating ``node`` (a statement or expression) apart from
    its parts in ``skip``; bodies of functions and lambdas run later and do
    not count. ``kids`` keeps the parts of nodes already seen (node ->
    :func:`_children`); it is filled as the walk goes."""
    out = Effects()
    seen = set(skip)
    seen.discard(node)
    _effects(node, out, seen, {} if kids is None else kids)
    return out


def _effects(root, out: Effects, seen: set, kids: dict) -> None:
    # A loop, not recursion: the plans ask this of the statement every round.
    # What a node adds does not depend on the order nodes are met in.
    kinds = _EFFECT_KINDS
    todo = [root]
    while todo:
        node = todo.pop()
        if node in seen:
            continue
        seen.add(node)
        kind = kinds.get(type(node))
        if kind is None:
            kind = _effect_kind(type(node))
        if kind == _NAME:
            if not isinstance(node.ctx, ast.Load):
                out.writes.add(node.id)
            continue
        if kind == _NOTHING:
            continue
        if kind == _RUNS:
            out.runs_code = True
        elif kind == _PENDING:
            out.writes.update(t.id if isinstance(t, ast.Name) else "" for t in node.targets)
            for t in node.targets:
                if not isinstance(t, ast.Name):
                    out.runs_code = True
            todo.append(node.value)
            continue
        elif kind == _DEFINES:
            out.writes.add(node.name)
            out.runs_code = True
            continue
        elif kind == _LAMBDA:
            todo.append(node.args)
            continue
        elif kind == _WALRUS:
            out.writes.add(getattr(node.target, "id", ""))
        parts = kids.get(node)
        if parts is None:
            parts = kids[node] = _children(node)
        todo += parts


#: what evaluating a node of a type does by itself, beside its parts
_QUIET_PARTS, _RUNS, _NAME, _NOTHING, _PENDING, _DEFINES, _LAMBDA, _WALRUS = range(8)
_EFFECT_KINDS: Dict[type, int] = {}


def _effect_kind(kind: type) -> int:
    """What _EFFECT_KINDS keeps for ``kind``: asked once a type, not of every node."""
    if issubclass(kind, ast.Name):
        found = _NAME       # binds when stored or deleted
    elif kind is ast.Constant:
        found = _NOTHING
    elif issubclass(kind, PendingNamed):
        found = _PENDING
    elif issubclass(kind, Placeholder):
        # A function value only evaluates its defaults; anything else is unknown.
        found = _QUIET_PARTS if kind.__name__ == "FunctionValue" else _RUNS
    elif issubclass(kind, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        found = _DEFINES
    elif issubclass(kind, ast.Lambda):
        found = _LAMBDA     # only its defaults now
    elif issubclass(kind, ast.NamedExpr):
        found = _WALRUS
    elif not issubclass(kind, _QUIET) or issubclass(kind, ast.Delete):
        # Unbinding may run a finalizer; binding a name (Assign) is quiet.
        found = _RUNS
    else:
        found = _QUIET_PARTS
    _EFFECT_KINDS[kind] = found
    return found


def _children(node) -> list:
    """The ast nodes directly inside ``node`` (fields, list and tuple items)."""
    kind = type(node)
    try:
        values_of = _VALUES[kind]
    except KeyError:
        values_of = _values_of(kind)
    if values_of is None:
        return []
    out = []
    try:
        values = values_of(node)
    except AttributeError:      # a list field the node was made without
        values = [getattr(node, f, None) for f in _FIELDS[kind]]
    else:
        if kind in _ONE_FIELD:
            values = (values,)      # (the attrgetter gave the field's value itself)
    for value in values:
        # (lists first: a failing isinstance looks up the value's __class__)
        kind = type(value)
        if kind is list or kind is tuple:
            for item in value:
                if isinstance(item, _AST):
                    out.append(item)
        elif isinstance(value, _AST):
            out.append(value)
    return out


_AST = ast.AST
_NO_PARTS = ()


# Per node type, the fields _children reads: spilling walks the statement and
# the waiting values several times a round, and asking ``isinstance`` and
# ``_fields`` anew of every node was a fifth of Dynamo-code decompiling.
_FIELDS: Dict[type, object] = {}
_NOT_A_NODE = ("<not a node>",)
_ALL_ATTRIBUTES = ("<vars>",)       # a Placeholder keeps its parts as attributes
#: fields that never hold a node in any ast version (names, flags), and
#: contexts, which are no values: a Name has no parts
_NO_NODE_FIELDS = frozenset({"ctx", "id", "attr", "arg", "module", "level", "conversion",
                             "simple", "is_async", "type_comment", "kind"})


def _fields_of(kind: type):
    """What _FIELDS keeps for ``kind``: never empty (a node without fields, a
    context say, has nothing inside, like a value that is no node). A load or
    store context is no value (never pushed, timed or spilled), and a
    constant holds none: leaving them out spares the walks a call for almost
    every name."""
    if issubclass(kind, Placeholder):
        fields = _ALL_ATTRIBUTES
    elif issubclass(kind, ast.AST) and not issubclass(kind, ast.Constant):
        fields = tuple(f for f in kind._fields if f not in _NO_NODE_FIELDS) or _NOT_A_NODE
    else:
        fields = _NOT_A_NODE
    _FIELDS[kind] = fields
    if fields is _NOT_A_NODE:
        _LEAF_KINDS.add(kind)
    return fields


#: the types _fields_of found to have no parts (a set: one look-up per node)
_LEAF_KINDS: set = set()


#: per node type, what reads the values of its _FIELDS (None: it has no parts);
#: an attrgetter reads them all in one call
_VALUES: Dict[type, object] = {}
#: the types of _VALUES with one field (List, Attribute...): their attrgetter
#: gives the value itself, not a tuple
_ONE_FIELD: set = set()


def _values_of(kind: type):
    fields = _FIELDS.get(kind) or _fields_of(kind)
    if fields is _NOT_A_NODE:
        values_of = None
    elif fields is _ALL_ATTRIBUTES:
        values_of = _attributes
    elif len(fields) == 1:
        values_of = operator.attrgetter(fields[0])
        _ONE_FIELD.add(kind)
    else:
        values_of = operator.attrgetter(*fields)
    _VALUES[kind] = values_of
    return values_of


def _attributes(node):
    return vars(node).values()


# -- choosing and spilling -------------------------------------------------------------

#: the first of a pair (a sort key)
_first = operator.itemgetter(0)


def _seq(node) -> Optional[int]:
    seq = getattr(node, "_seq", None)
    if seq is None and isinstance(node, PendingNamed):
        seq = getattr(node.value, "_seq", None)
    return seq


def _older(roots: list, time: int, chosen, kids: dict) -> list:
    """The largest parts of ``roots`` (each whole, in turn) evaluated before
    ``time``, in evaluation order, each with its time (a spilled part is a
    temporary: nothing inside it counts). ``kids`` holds the parts of every
    node inside (:meth:`_Plan._index`)."""
    out = []
    todo = roots[::-1]
    while todo:
        node = todo.pop()
        if node in chosen:
            continue
        seq = getattr(node, "_seq", None)
        # (type tests: PendingNamed and Slice have no subclasses, and a failing
        # isinstance costs a look-up of the node's __class__)
        if seq is None and type(node) is PendingNamed:
            seq = getattr(node.value, "_seq", None)
        if seq is not None and seq < time and type(node) is not ast.Slice:
            out.append((node, seq))
        else:
            todo += reversed(kids[node])
    return out


def is_waiting_value(node) -> bool:
    """A stack item that is an evaluated value (not a marker such as NULL or an
    iterator a loop holds)."""
    return type(node) in AST_KINDS or not isinstance(node, Placeholder) \
        or isinstance(node, PendingNamed)


class _Plan:
    """What to spill before ``stmt`` at ``time`` while ``trees`` wait: rounds of
    :meth:`choose_round` until one finds nothing (:func:`_settle`)."""

    def __init__(self, ctx, stmt, trees: List, time: int):
        self.ctx = ctx
        self.stmt = stmt
        self.trees = trees
        self.time = time
        #: spilled value -> its temporary's name, in the order chosen (:meth:`choose`)
        self.chosen: Dict[object, str] = {}
        #: node -> its :func:`_children`, for every node of the statement and
        #: the waiting values, in the order met (depth first): the rounds walk
        #: them several times over, and they do not change while it chooses.
        #: (Nodes are keys as themselves: the stack machine's values and their
        #: parts are ast nodes, which hash and compare as objects, and asking
        #: a dict for one costs less than for its id, a new int each time.)
        self.kids: Dict[object, list] = {}
        #: the nodes met more than once there
        self._again: set = set()
        #: those nodes, in the order first met
        self.shared: List = self._index()
        #: node -> (its effects, the nodes its walk met or skipped)
        self._effects: Dict[object, tuple] = {}
        #: the values chosen since the last round began
        self._fresh: List = []
        #: (time, spilled value), in time order (equal times in the order
        #: chosen); kept up to date by :meth:`_new_round`
        self._order: List[tuple] = []
        self._latest = -1
        #: the times of the spilled values in the order chosen (up to date as _order)
        self._times: List[int] = []
        #: the waiting values :meth:`_disturbed_values` last found undisturbed
        #: (constants and temporaries apart), with their times, and how many
        #: values were spilled then; None before it first looks
        self._calm: Optional[List[tuple]] = None
        self._calm_at = 0
        #: node -> its :meth:`_earliest`
        self._earliest_of: Dict[object, float] = {}

    def choose(self, node, name: str) -> None:
        """Spill ``node`` into the temporary ``name``."""
        self.chosen[node] = name
        self._fresh.append(node)

    def spilled(self) -> List[tuple]:
        """(time, spilled value) of every value chosen, in evaluation order."""
        self._new_round()
        return self._order

    def only_lone_values(self, nodes) -> bool:
        """Every node of ``nodes`` is a waiting value met once: it is no part of
        any node met (it would have been met a second time as one)."""
        again = self._again
        roots = set(self.trees)
        return all(node in roots and node not in again for node in nodes)

    def pure(self, node, eff: Effects) -> bool:
        """Evaluating ``node`` before or after ``eff`` gives the same value, with no
        effect of its own that ``eff`` could observe."""
        # (Type tests, not isinstance: no class derives from these node types,
        # and a failing isinstance costs a look-up of the node's __class__.)
        kind = type(node)
        if kind is ast.Constant or getattr(node, "_spill_temp", False):
            return True
        if not (eff.runs_code or eff.writes or eff.writes_all):
            return True         # nothing happens in between
        if kind is ast.Name:
            return type(node.ctx) is ast.Load and not eff.writes_all \
                and node.id not in eff.writes \
                and (_fast_local(self.ctx, node.id) or not eff.runs_code)
        if (kind is ast.Tuple or kind is ast.List) and not eff.writes_all:
            # A fresh display nobody else holds (shared ones are spilled first;
            # code not seen yet may still share it)
            return all(self.pure(e, eff) for e in node.elts)
        if kind is ast.Slice:
            return all(p is None or self.pure(p, eff) for p in (node.lower, node.upper, node.step))
        return False

    def effects_between(self, lo: int, hi: Optional[int]) -> Effects:
        """Effects of the statement (when ``hi`` is None) and of the spilled values
        evaluated in (lo, hi)."""
        if hi is None and lo >= self._latest:
            return self._statement_effects()    # (no spilled value after lo)
        key = (lo, hi)
        eff = self._between.get(key)
        if eff is not None:
            return eff
        eff = Effects()
        if hi is None:
            eff.add(self._statement_effects())
        for seq, node in self._order:
            if seq > lo and (hi is None or seq < hi):
                eff.add(self._effects_of(node))
        self._between[key] = eff
        return eff

    def _statement_effects(self) -> Effects:
        eff = self._between.get(None)
        if eff is None:
            eff = self._between[None] = Effects().add(self._effects_of(self.stmt))
            if isinstance(self.stmt, _Anything):
                eff.runs_code = eff.writes_all = True
        return eff

    def _effects_of(self, node) -> Effects:
        """:func:`effects` of ``node`` apart from the spilled values; kept from
        round to round while the walk that found it met none of the values
        spilled since."""
        found = self._effects.get(node)
        if found is None:
            out = Effects()
            seen = set(self.chosen)
            seen.discard(node)
            _effects(node, out, seen, self.kids)
            found = self._effects[node] = (out, seen)
        return found[0]

    def _new_round(self) -> None:
        """What the statement and the spilled values do depends on what is spilled
        (a temporary does nothing): effects whose walk met a value spilled in the
        last round are worked out again, and the new values take their place in
        :attr:`_order`."""
        self._between: Dict[object, Effects] = {}
        fresh = self._fresh
        if not fresh:
            return
        self._fresh = []
        self._effects = {node: found for node, found in self._effects.items()
                         if found[1].isdisjoint(fresh)}
        # (a stable sort of the list in order chosen, the new values last: equal
        # times keep the order chosen)
        times = [_seq(node) for node in fresh]
        self._times += times
        self._order += zip(times, fresh)
        self._order.sort(key=_first)
        self._latest = self._order[-1][0]

    def _index(self) -> List:
        """Fills :attr:`kids`; returns the nodes met more than once, in the order
        first met (the statement's, then each waiting value's, depth first)."""
        kids = self.kids
        leaves = _LEAF_KINDS
        again = self._again
        for root in [self.stmt] + self.trees:
            pending = [root]
            while pending:
                node = pending.pop()
                if node in kids:
                    again.add(node)
                    continue        # its parts were met the first time
                if type(node) in leaves:
                    kids[node] = _NO_PARTS   # (names and constants, most nodes: no call)
                else:
                    parts = kids[node] = _children(node)
                    pending += parts
        return [node for node in kids if node in again] if again else []

    def choose_round(self) -> List:
        """The values to spill that the values chosen so far show: the first of
        the three kinds below found (the next round sees them spilled)."""
        self._new_round()
        if self._settled():
            return self._parts_before()
        return self._shared_values() or self._disturbed_values() or self._parts_before()

    def _settled(self) -> bool:
        """Whether :meth:`_shared_values` and :meth:`_disturbed_values` would find
        nothing now, known from the last time the latter looked (the last
        round of most plans, which finds nothing, asks this).

        No shared value is waiting to be spilled but constants and temporaries
        (which it never spills). The waiting values it will look at are among
        those it looked at last time: spilling more only cuts its walk short
        (:func:`_older`). Those it did not spill then were pure across the
        effects after them; the effects of the statement and of the values
        spilled then can only have shrunk since (what a walk skips does
        nothing), and :meth:`pure` holds for fewer effects where it held for
        more. So each is still pure unless a value spilled since was evaluated
        after it (then :meth:`_disturbed_values` asks again), or it is pure
        whatever runs after it (:data:`_WORST`)."""
        if self._calm is None:
            return False
        chosen = self.chosen
        for node in self.shared:
            if node not in chosen and _seq(node) is not None and not _inert(node):
                return False
        since = max(self._times[self._calm_at:], default=-1)
        for node, seq in self._calm:
            if seq < since and node not in chosen and not self._pure_anyway(node):
                return False
        return True

    def _pure_anyway(self, node) -> bool:
        """:meth:`pure` for any effects the statement and the spilled values may
        have (:data:`_WORST`), unless the statement is code not seen yet, which
        may bind any name."""
        return not isinstance(self.stmt, _Anything) and self.pure(node, _WORST)

    def _shared_values(self) -> List:
        """A value used twice is evaluated once: in its own temporary."""
        chosen = self.chosen
        new = []
        for node in self.shared:
            if node not in chosen:
                seq = _seq(node)
                if seq is not None and not (type(node) in _CONSTANT_OR_NAME
                                            and self.pure(node, self.effects_between(seq, None))):
                    new.append(node)
        return new

    def _disturbed_values(self) -> List:
        """Waiting values the statement (or a later spilled value) would disturb."""
        latest = self._latest
        new = []
        calm = []
        for node, seq in _older(self.trees, self.time, self.chosen, self.kids):
            if type(node) is ast.Constant or getattr(node, "_spill_temp", False):
                continue        # (_inert inlined)
            if seq < latest and self._pure_anyway(node) \
                    or self.pure(node, self.effects_between(seq, None)):
                # (the first: the effects of the spilled values after it need
                # not be worked out)
                calm.append((node, seq))
            else:
                new.append(node)
        self._calm = calm
        self._calm_at = len(self._times)
        return new

    def _parts_before(self) -> List:
        """Parts of the statement, or of a spilled value, evaluated before an
        earlier-printed spilled value: the latest one evaluated before it."""
        chosen = self.chosen
        kids = self.kids
        new = []
        for node, seq, threshold in self._printed():
            if self._earliest(node) >= threshold:
                continue        # (no part of it that old: known without a walk)
            for part, time in _older(kids[node], threshold, chosen, kids):
                if not self.pure(part, self.effects_between(time, seq)):
                    new.append(part)
        return new

    def _earliest(self, node) -> float:
        """The earliest time of a part of ``node`` (:data:`_NEVER` if none has
        one), apart from constants and temporaries and what is inside a spilled
        value: :meth:`_parts_before` spills no other part. Kept for the later
        rounds: spilling more only hides more parts, so it stays a bound."""
        found = self._earliest_of.get(node)
        if found is None:
            found = _NEVER
            kids = self.kids
            chosen = self.chosen
            todo = list(kids[node])
            while todo:
                part = todo.pop()
                if part in chosen:
                    continue
                seq = getattr(part, "_seq", None)
                # (_inert inlined: the times met go down as the walk goes in)
                if seq is not None and seq < found and type(part) is not ast.Constant \
                        and not getattr(part, "_spill_temp", False):
                    found = seq
                todo += kids[part]
            self._earliest_of[node] = found
        return found

    def _printed(self):
        """(node, its time, threshold) for the statement (time None) and each
        spilled value in evaluation order, where some spilled value was evaluated
        before it: the threshold is the latest such time."""
        order = self._order
        if not order:
            return
        yield self.stmt, None, self._latest
        below = None        # the latest time before the current one
        last = None
        for seq, node in order:
            if last is not None and seq != last:
                below = last
            last = seq
            if below is not None:
                yield node, seq, below


class _PlainPlan(_Plan):
    """A plan without the shortcuts: every round asks whether a shared or waiting
    value must be spilled afresh (no :meth:`_settled`), works out the effects
    after a waiting value (no :meth:`_pure_anyway`), and walks every printed
    value for parts evaluated too early (no :meth:`_earliest`)."""

    def _settled(self) -> bool:
        return False

    def _pure_anyway(self, node) -> bool:
        return False

    def _earliest(self, node) -> float:
        return -1


#: the earliest time of a node with no timed part: later than any
_NEVER = float("inf")


class _AllNames:
    """The names bound by code that may bind any of them."""

    def __contains__(self, name) -> bool:
        return True


def _worst() -> Effects:
    """Effects that run code and bind every name, but not as a body not seen yet
    does (``writes_all``): :meth:`_Plan.pure` of a value holds for these only
    if it holds for any effects of the statement and spilled values but a
    compound statement's (which alone set ``writes_all``). It cannot hold less
    for fewer effects: each effect can only make a value impure."""
    eff = Effects()
    eff.runs_code = True
    eff.writes = _AllNames()
    return eff


#: (see _worst)
_WORST = _worst()
#: node types a shared value is left in place as (when nothing disturbs it)
_CONSTANT_OR_NAME = frozenset({ast.Constant, ast.Name})


def _shares_a_part(stmt) -> bool:
    """Some node (with an evaluation time) occurs twice in ``stmt``: the only
    case :meth:`_Plan.choose_round` acts on when no value waits. A temporary
    or a constant does not count: it reads the same wherever it is (Dynamo's
    statements use their temporaries more than once: ``stack_7[0:] =
    [stack_7[1], stack_7[0]]``). (It asks this of every ``if`` test: a loop,
    not recursion.)"""
    return _repeated([stmt], _inert)


def _repeated(roots: list, alike) -> bool:
    """Some node with an evaluation time occurs twice in ``roots``, apart from
    those for which ``alike(node)`` (their copies read the same)."""
    seen = set()
    todo = list(roots)
    while todo:
        node = todo.pop()
        if node in seen:
            if _seq(node) is not None and not alike(node):
                return True
            continue
        seen.add(node)
        if type(node) not in _NO_TIMED_PARTS:
            todo += _children(node)
    return False


#: nodes nothing inside of has an evaluation time (a name's only child is its
#: context, which is never pushed): the shared-part test need not look inside
_NO_TIMED_PARTS = frozenset({ast.Name, ast.Constant})


class _Anything(ast.stmt):
    """Stands for code not seen yet (the branches of an ``if``): it may run any
    code and bind any name."""
    _fields = ("value",)

    def __init__(self, value):
        super().__init__()
        self.value = value


def spill_before_branches(m, test) -> List[ast.stmt]:
    """Like :func:`spill`, before a compound statement whose ``test`` is evaluated
    first and whose bodies, not yet read, may do anything: waiting values used
    inside them would otherwise be evaluated after the test."""
    if m.multi:
        m.flush_multi()
    if not (m.copied or m._any_waiting()):
        return []       # (what spill would find, known without its work: most ifs)
    return spill(m, _Anything(test))


def spill_before_block(m) -> List[ast.stmt]:
    """Like :func:`spill_before_branches`, before a compound statement that
    evaluates nothing before its body (a ``try``): values waiting on the stack
    that the body could change are evaluated first, into temporaries.

    >>> from depyf.decompiler.expressions import Context, StackMachine
    >>> m = StackMachine(Context.for_tests())
    >>> m.push(ast.Call(ast.Name("f", ast.Load()), [], []))
    >>> [ast.unparse(s) for s in spill_before_block(m)], ast.unparse(m.stack[0])
    (['stack_0 = f()'], 'stack_0')
    """
    return spill_before_branches(m, ast.Constant(None))


#: ops that may build the targets of a tuple assignment between its stores, with
#: how many stack items each takes that must not be the assignment's values
#: (the targets of ``a[i], a[i + 1] = a[i + 1], a[i]`` are whole expressions,
#: evaluated left to right between the stores)
_TARGET_OPS = {"LOAD_FAST": 0, "LOAD_NAME": 0, "LOAD_GLOBAL": 0, "LOAD_DEREF": 0,
               "LOAD_CLASSDEREF": 0, "LOAD_CONST": 0, "LOAD_ATTR": 1, "BINARY_SUBSCR": 2,
               "BINARY_SLICE": 3, "BINARY_OP": 2, "COMPARE_OP": 2, "IS_OP": 2,
               "CONTAINS_OP": 2, "UNARY_NEGATIVE": 1, "UNARY_POSITIVE": 1, "UNARY_NOT": 1,
               "UNARY_INVERT": 1,
               "STORE_FAST": 0, "STORE_NAME": 0, "STORE_GLOBAL": 0, "STORE_DEREF": 0,
               "STORE_ATTR": 1, "STORE_SUBSCR": 2, "STORE_SLICE": 3, "UNPACK_SEQUENCE": 0,
               "UNPACK_EX": 0}
#: ... and those that take as many items as their argument says
_TARGET_OPS_BY_ARG = frozenset({"BUILD_SLICE", "BUILD_TUPLE", "BUILD_LIST", "BUILD_SET"})


def continues_multi(m, op) -> bool:
    """Whether ``op`` can belong to the tuple assignment whose first stores ``m``
    has taken: it loads or stores a target, without using a waiting value."""
    if op.name in _TARGET_OPS_BY_ARG:
        takes = op.arg
    else:
        takes = _TARGET_OPS.get(op.name)
    if takes is None:
        return False
    values = {id(v) for v in getattr(m, "multi_values", ())}
    return not any(id(v) in values for v in m.stack[len(m.stack) - takes:]) if takes else True


def spill(m, stmt, time: Optional[int] = None, waiting=None) -> List[ast.stmt]:
    """Spill what must be evaluated before ``stmt`` (the machine ``m`` is about to
    emit it at ``time``, by default now); returns the assignments, in evaluation
    order, to emit before it. The stack, ``stmt`` and the list ``waiting`` (values
    off the stack that wait too) then use the temporaries."""
    waiting = waiting if waiting is not None else []
    trees = m.waiting() + list(waiting)
    if _undisturbed(m, stmt, trees):
        return []
    if time is None:
        time = next(PUSH_TIMES)
    plan = _Plan(m.ctx, stmt, trees, time)
    _settle(plan, lambda: spills_of(m.ctx).new_name())
    if not plan.chosen:
        return []
    order = plan.spilled()
    temps = _temporaries(plan, order)
    _put_temporaries(plan, temps, m.stack, waiting)
    line = getattr(stmt, "lineno", None)
    return [_assignment(m, node, plan.chosen[node], line) for _, node in order]


def plan_spills(m, stmt, time: int, waiting=(), exhaustive: bool = False,
                before_branches: bool = False) -> list:
    """The values :func:`spill` would spill before ``stmt``, in the order it names
    their temporaries, spilling nothing; its plan runs even where spill knows
    without one that there is nothing to spill. ``exhaustive``: a plan without
    the shortcuts that carry what earlier rounds found (every round asks all
    it asks afresh): the reference the tests hold the shortcuts to.
    ``before_branches``: ``stmt`` is the test of :func:`spill_before_branches`.

    >>> from depyf.decompiler.expressions import Context, StackMachine
    >>> m = StackMachine(Context.for_tests())
    >>> m.push(ast.Call(ast.Name("f", ast.Load()), [], []))
    >>> [ast.unparse(v) for v in plan_spills(m, ast.Expr(ast.Call(ast.Name("g", ast.Load()), [], [])), 10**9)]
    ['f()']
    """
    if before_branches:
        stmt = _Anything(stmt)
    plan = (_PlainPlan if exhaustive else _Plan)(m.ctx, stmt, m.waiting() + list(waiting), time)
    names = itertools.count()
    _settle(plan, lambda: "t%d" % next(names))
    return list(plan.chosen)


def _settle(plan: _Plan, new_name) -> None:
    """Runs the rounds of ``plan`` until one finds nothing, choosing what each
    finds under a name from ``new_name()``."""
    while True:
        new = plan.choose_round()
        if not new:
            return
        for node in new:
            if node not in plan.chosen:
                plan.choose(node, new_name())


def _temporaries(plan: _Plan, order) -> Dict[object, ast.Name]:
    """Each spilled value -> the temporary that stands for it."""
    temps = {}
    for seq, node in order:
        temp = ast.Name(plan.chosen[node], _LOAD)
        temp._seq = seq
        temp._spill_temp = True
        temps[node] = temp
    return temps


def _put_temporaries(plan: _Plan, temps: Dict[object, ast.Name], stack: list, waiting: list) -> None:
    """The temporaries in place of the values they stand for, in the statement,
    the waiting values, and the lists ``stack`` and ``waiting``."""
    # Every node of the statement and the waiting values is in the plan's
    # index: only those holding a spilled value change. A waiting value met
    # once, as a value, is in none (most of those spilled): no search.
    kids = plan.kids
    if not plan.only_lone_values(temps):
        apart = temps.keys().isdisjoint
        for node, parts in kids.items():
            if parts and not apart(parts):
                _replace_parts(node, temps, [])
    # Other stack items (markers, what the enclosing code left) are walked.
    seen = None
    for values in (stack, waiting):
        for i, value in enumerate(values):
            if value in temps:
                values[i] = temps[value]
            elif value not in kids:
                if seen is None:
                    seen = set(kids)
                _replace_in(value, temps, seen)


def _assignment(m, node, name: str, line: Optional[int]) -> ast.Assign:
    """``name = node`` (``name = target = value`` for a pending assignment),
    at the line of ``node`` or else ``line``."""
    targets = [ast.Name(name, _STORE)]
    value = node
    if isinstance(node, PendingNamed):
        targets += node.targets
        value = node.value
    assign = ast.Assign(targets, m.value(value))
    assign.lineno = getattr(node, "lineno", None) or line
    return assign


#: contexts of the temporaries (one of each serves every name, as ast.parse's trees share them)
_LOAD = ast.Load()
_STORE = ast.Store()


def _undisturbed(m, stmt, trees) -> bool:
    """Whether none of the rounds of :meth:`_Plan.choose_round` would find
    anything, known without a plan: every waiting value is a constant, a
    temporary, or a local ``stmt`` does not bind (typical of Dynamo's code
    once its early values are temporaries), and nothing is used twice."""
    locals_read = []
    for tree in trees:
        kind = type(tree)
        if kind is ast.Constant or getattr(tree, "_spill_temp", False):
            continue        # (_inert inlined: every statement asks of every waiting value)
        if kind is not ast.Name or type(tree.ctx) is not ast.Load:
            return _does_nothing(stmt) and not _shared_value(stmt, trees)
        locals_read.append(tree.id)
    if m.copied and _shares_a_part(stmt):
        return False
    if not locals_read:
        return True
    if isinstance(stmt, _Anything):
        return False
    if not all(_fast_local(m.ctx, name) for name in locals_read):
        return False
    eff = effects(stmt)
    return not eff.writes_all and not any(name in eff.writes for name in locals_read)


def _does_nothing(stmt) -> bool:
    """Running ``stmt`` neither runs code nor binds a name: no waiting value can
    tell whether it was evaluated before or after (Dynamo's ``[]`` and
    ``stack_3`` statements, the POP_TOPs of what it built: a third of its
    plans found nothing to spill)."""
    # (:func:`effects`, stopping at the first effect: most statements asked
    # here bind or call at their top)
    kinds = _EFFECT_KINDS
    todo = [stmt]
    while todo:
        node = todo.pop()
        kind = kinds.get(type(node))
        if kind is None:
            kind = _effect_kind(type(node))
        if kind == _NAME:
            if not isinstance(node.ctx, ast.Load):
                return False
        elif kind == _LAMBDA:
            todo.append(node.args)
        elif kind == _QUIET_PARTS:
            todo += _children(node)
        elif kind != _NOTHING:
            return False
    return True


def _shared_value(stmt, trees) -> bool:
    """A value that :meth:`_Plan.choose_round` spills because it occurs twice in
    ``stmt`` and ``trees`` whatever the statement does (a constant or a name
    reads the same twice when nothing happens in between)."""
    return _repeated([stmt, *trees], _constant_or_name)


def _constant_or_name(node) -> bool:
    return isinstance(node, (ast.Constant, ast.Name))


def _fast_local(ctx, name: str) -> bool:
    """``name`` is a plain local of the function (no cell): only a statement
    binding it changes it, never code it calls."""
    code = ctx.code
    if code is None or ctx.kind in ("module", "class"):
        return False
    return name in (code.varnames or ()) and name not in (code.cellvars or ()) \
        and name not in (code.freevars or ())


def _inert(node) -> bool:
    """A value no statement can change: a constant or a temporary."""
    return type(node) is ast.Constant or getattr(node, "_spill_temp", False)


def _replace_in(root, mapping, seen) -> None:
    """Puts the temporaries of ``mapping`` (node -> the temporary that stands for
    it) in place of those nodes everywhere inside ``root``; the nodes in
    ``seen`` are done."""
    todo = [root]
    while todo:
        node = todo.pop()
        if node not in seen:
            seen.add(node)
            _replace_parts(node, mapping, todo)


def _replace_parts(node, mapping, todo: list) -> None:
    """Puts the temporaries of ``mapping`` in place of the parts of ``node`` they
    stand for; the other parts that are nodes go onto ``todo``."""
    kind = type(node)
    fields = _FIELDS.get(kind) or _fields_of(kind)
    if fields is _NOT_A_NODE:
        return
    if fields is _ALL_ATTRIBUTES:
        pairs = list(vars(node).items())
    else:
        try:
            values = (_VALUES.get(kind) or _values_of(kind))(node)
        except AttributeError:      # a list field the node was made without
            pairs = [(f, getattr(node, f, None)) for f in fields]
        else:
            pairs = zip(fields, (values,) if kind in _ONE_FIELD else values)
    # (only nodes are asked of ``mapping``: a list may hold anything)
    for name, value in pairs:
        if isinstance(value, _AST):
            if value in mapping:
                setattr(node, name, mapping[value])
            else:
                todo.append(value)
        elif isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, _AST):
                    if item in mapping:
                        value[i] = mapping[item]
                    else:
                        todo.append(item)
        elif isinstance(value, tuple):
            if any(isinstance(item, _AST) and item in mapping for item in value):
                setattr(node, name, tuple(mapping[item] if isinstance(item, _AST) and item in mapping
                                          else item for item in value))
            for item in value:
                if isinstance(item, _AST) and item not in mapping:
                    todo.append(item)


def drops_out(stmt) -> bool:
    """``stack_0`` alone as a statement: the POP_TOP of a value that was used
    (and spilled) elsewhere, which evaluates nothing."""
    return isinstance(stmt, ast.Expr) and getattr(stmt.value, "_spill_temp", False)

