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
from typing import Dict, Iterator as Iter, List, Optional, Tuple

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
    its parts whose ids are in ``skip``; bodies of functions and lambdas run
    later and do not count. ``kids`` gives a node's parts (:func:`_children`)."""
    out = Effects()
    _effects(node, out, set(k for k in skip if k != id(node)), kids or _children)
    return out


def _effects(node, out: Effects, seen: set, kids) -> None:
    if id(node) in seen:
        return
    seen.add(id(node))
    if isinstance(node, ast.Name):
        if not isinstance(node.ctx, ast.Load):
            out.writes.add(node.id)
        return
    if isinstance(node, PendingNamed):
        out.writes.update(t.id if isinstance(t, ast.Name) else "" for t in node.targets)
        for t in node.targets:
            if not isinstance(t, ast.Name):
                out.runs_code = True
        _effects(node.value, out, seen, kids)
        return
    if isinstance(node, Placeholder):
        # A function value only evaluates its defaults; anything else is unknown.
        if type(node).__name__ != "FunctionValue":
            out.runs_code = True
        for child in kids(node):
            _effects(child, out, seen, kids)
        return
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        out.writes.add(node.name)
        out.runs_code = True
        return
    if isinstance(node, ast.Lambda):
        _effects(node.args, out, seen, kids)
        return
    if isinstance(node, ast.NamedExpr):
        out.writes.add(getattr(node.target, "id", ""))
    elif not isinstance(node, _QUIET):
        out.runs_code = True
    elif isinstance(node, ast.Delete):
        # Unbinding may run a finalizer; binding a name (Assign) is quiet.
        out.runs_code = True
    for child in kids(node):
        _effects(child, out, seen, kids)


def _children(node) -> list:
    """The ast nodes directly inside ``node`` (fields, list and tuple items)."""
    fields = _FIELDS.get(type(node)) or _fields_of(type(node))
    if fields is _NOT_A_NODE:
        return []
    out = []
    for value in (vars(node).values() if fields is _ALL_ATTRIBUTES
                  else [getattr(node, f, None) for f in fields]):
        if isinstance(value, _AST):
            out.append(value)
        elif type(value) in _SEQUENCES:
            out += [item for item in value if isinstance(item, _AST)]
    return out


_AST = ast.AST
_SEQUENCES = (list, tuple)


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
    return fields


# -- choosing and spilling -------------------------------------------------------------

def _seq(node) -> Optional[int]:
    seq = getattr(node, "_seq", None)
    if seq is None and isinstance(node, PendingNamed):
        seq = getattr(node.value, "_seq", None)
    return seq


def _older(node, time: int, chosen=(), kids=_children) -> Iter:
    """The largest parts of ``node`` evaluated before ``time`` (a spilled part
    is a temporary: nothing inside it counts)."""
    if id(node) in chosen:
        return
    seq = _seq(node)
    if seq is not None and seq < time and not isinstance(node, ast.Slice):
        yield node
        return
    for child in kids(node):
        yield from _older(child, time, chosen, kids)


def is_waiting_value(node) -> bool:
    """A stack item that is an evaluated value (not a marker such as NULL or an
    iterator a loop holds)."""
    return type(node) in AST_KINDS or not isinstance(node, Placeholder) \
        or isinstance(node, PendingNamed)


class _Plan:
    def __init__(self, ctx, stmt, trees: List, time: int):
        self.ctx = ctx
        self.stmt = stmt
        self.trees = trees
        self.time = time
        #: id -> (node, temporary name)
        self.chosen: Dict[int, Tuple[object, str]] = {}
        self._shared: Optional[Dict[int, object]] = None
        self._kids: Dict[int, list] = {}

    def kids(self, node) -> list:
        """:func:`_children` of ``node``, worked out once a plan: its rounds walk
        the statement and the waiting values several times over, and these do
        not change while it chooses."""
        found = self._kids.get(id(node))
        if found is None:
            found = self._kids[id(node)] = _children(node)
        return found

    def pure(self, node, eff: Effects) -> bool:
        """Evaluating ``node`` before or after ``eff`` gives the same value, with no
        effect of its own that ``eff`` could observe."""
        if isinstance(node, ast.Constant) or getattr(node, "_spill_temp", False):
            return True
        if not (eff.runs_code or eff.writes or eff.writes_all):
            return True         # nothing happens in between
        if isinstance(node, ast.Name):
            return isinstance(node.ctx, ast.Load) and not eff.writes_all \
                and node.id not in eff.writes \
                and (_fast_local(self.ctx, node.id) or not eff.runs_code)
        if isinstance(node, (ast.Tuple, ast.List)) and not eff.writes_all:
            # A fresh display nobody else holds (shared ones are spilled first;
            # code not seen yet may still share it)
            return all(self.pure(e, eff) for e in node.elts)
        if isinstance(node, ast.Slice):
            return all(p is None or self.pure(p, eff) for p in (node.lower, node.upper, node.step))
        return False

    def effects_between(self, lo: int, hi: Optional[int]) -> Effects:
        """Effects of the statement (when ``hi`` is None) and of the spilled values
        evaluated in (lo, hi)."""
        key = (lo, hi)
        eff = self._between.get(key)
        if eff is not None:
            return eff
        eff = Effects()
        if hi is None:
            eff.add(self._effects_of(self.stmt))
            if isinstance(self.stmt, _Anything):
                eff.runs_code = eff.writes_all = True
        for node, _ in self.chosen.values():
            seq = _seq(node)
            if seq is not None and seq > lo and (hi is None or seq < hi):
                eff.add(self._effects_of(node))
        self._between[key] = eff
        return eff

    def _effects_of(self, node) -> Effects:
        found = self._effects.get(id(node))
        if found is None:
            found = self._effects[id(node)] = effects(node, self.chosen, self.kids)
        return found

    def shared(self) -> Dict[int, object]:
        """The nodes that occur more than once in the statement and the waiting
        values, by id (the trees do not change while rounds choose)."""
        if self._shared is None:
            counts: Dict[int, int] = {}
            nodes: Dict[int, object] = {}
            for tree in [self.stmt] + self.trees:
                _count(tree, counts, nodes, self.kids)
            self._shared = {key: nodes[key] for key, n in counts.items() if n > 1}
        return self._shared

    def choose_round(self) -> List:
        # What the statement and the spilled values do depends on what is spilled
        # (a temporary does nothing): known afresh each round, asked many times in one.
        self._between: Dict[tuple, Effects] = {}
        self._effects: Dict[int, Effects] = {}
        new = []
        # A value used twice is evaluated once: in its own temporary.
        for key, node in self.shared().items():
            if key not in self.chosen and _seq(node) is not None \
                    and not (isinstance(node, (ast.Constant, ast.Name))
                             and self.pure(node, self.effects_between(_seq(node), None))):
                new.append(node)
        if new:
            return new
        # Waiting values the statement (or a later spilled value) would disturb.
        for tree in self.trees:
            for node in _older(tree, self.time, self.chosen, self.kids):
                if id(node) not in self.chosen and not _inert(node) and not self.pure(
                        node, self.effects_between(_seq(node), None)):
                    new.append(node)
        if new:
            return new
        # Parts of the statement, or of a spilled value, evaluated before an
        # earlier-printed spilled value.
        order = sorted(self.chosen.values(), key=lambda p: _seq(p[0]))
        printed = [(self.stmt, None)] + [(n, _seq(n)) for n, _ in order]
        for node, seq in printed:
            before = [_seq(n) for n, _ in order if seq is None or _seq(n) < seq]
            if not before:
                continue
            threshold = max(before)
            for child in self.kids(node):
                for part in _older(child, threshold, self.chosen, self.kids):
                    if id(part) not in self.chosen and not self.pure(
                            part, self.effects_between(_seq(part), seq)):
                        new.append(part)
        return new


def _shares_a_part(stmt) -> bool:
    """Some node (with an evaluation time) occurs twice in ``stmt``: the only
    case :meth:`_Plan.choose_round` acts on when no value waits. (It asks this
    of every ``if`` test: a loop, not _count's recursion.)"""
    seen = set()
    todo = [stmt]
    while todo:
        node = todo.pop()
        key = id(node)
        if key in seen:
            if _seq(node) is not None:
                return True
            continue
        seen.add(key)
        if type(node) not in _NO_TIMED_PARTS:
            todo += _children(node)
    return False


#: nodes nothing inside of has an evaluation time (a name's only child is its
#: context, which is never pushed): the shared-part test need not look inside
_NO_TIMED_PARTS = frozenset({ast.Name, ast.Constant})


def _count(node, counts, nodes, kids=_children):
    pending = [node]
    while pending:
        node = pending.pop()
        key = id(node)
        if key in counts:
            counts[key] += 1
            continue        # its parts were counted the first time
        counts[key] = 1
        nodes[key] = node
        pending.extend(kids(node))


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


#: ops that may build the targets of a tuple assignment between its stores, with
#: how many stack items each takes that must not be the assignment's values
_TARGET_OPS = {"LOAD_FAST": 0, "LOAD_NAME": 0, "LOAD_GLOBAL": 0, "LOAD_DEREF": 0,
               "LOAD_CLASSDEREF": 0, "LOAD_CONST": 0, "LOAD_ATTR": 1, "BINARY_SUBSCR": 2,
               "STORE_FAST": 0, "STORE_NAME": 0, "STORE_GLOBAL": 0, "STORE_DEREF": 0,
               "STORE_ATTR": 1, "STORE_SUBSCR": 2, "STORE_SLICE": 3, "UNPACK_SEQUENCE": 0,
               "UNPACK_EX": 0}


def continues_multi(m, op) -> bool:
    """Whether ``op`` can belong to the tuple assignment whose first stores ``m``
    has taken: it loads or stores a target, without using a waiting value."""
    if op.name == "BUILD_SLICE":
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
    from .expressions import _PUSHES, finish
    if time is None:
        time = next(_PUSHES)
    plan = _Plan(m.ctx, stmt, trees, time)
    while True:
        new = plan.choose_round()
        if not new:
            break
        for node in new:
            if id(node) not in plan.chosen:
                plan.chosen[id(node)] = (node, spills_of(m.ctx).new_name())
    if not plan.chosen:
        return []
    mapping = {}
    for key, (node, name) in plan.chosen.items():
        temp = ast.Name(id=name, ctx=ast.Load())
        temp._seq = _seq(node)
        temp._spill_temp = True
        mapping[key] = temp
    order = sorted(plan.chosen.values(), key=lambda p: _seq(p[0]))
    seen = set()
    for node, _ in order:
        _replace_in(node, mapping, seen)
    _replace_in(stmt, mapping, seen)
    for values in (m.stack, waiting):
        for i, value in enumerate(values):
            if id(value) in mapping:
                values[i] = mapping[id(value)]
            else:
                _replace_in(value, mapping, seen)
    out = []
    line = getattr(stmt, "lineno", None)
    for node, name in order:
        targets = [ast.Name(id=name, ctx=ast.Store())]
        value = node
        if isinstance(node, PendingNamed):
            targets += node.targets
            value = node.value
        assign = ast.Assign(targets=targets, value=finish(m, value))
        assign.lineno = getattr(node, "lineno", None) or line
        out.append(assign)
    return out


def _undisturbed(m, stmt, trees) -> bool:
    """Whether none of the rounds of :meth:`_Plan.choose_round` would find
    anything, known without a plan: every waiting value is a constant, a
    temporary, or a local ``stmt`` does not bind (typical of Dynamo's code
    once its early values are temporaries), and nothing is used twice."""
    locals_read = []
    for tree in trees:
        if _inert(tree):
            continue
        if type(tree) is not ast.Name or type(tree.ctx) is not ast.Load:
            return False
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
    return isinstance(node, ast.Constant) or getattr(node, "_spill_temp", False)


def _replace_in(node, mapping, seen) -> None:
    if id(node) in seen:
        return
    seen.add(id(node))
    fields = _FIELDS.get(type(node)) or _fields_of(type(node))
    if fields is _NOT_A_NODE:
        return
    if fields is _ALL_ATTRIBUTES:
        fields = list(vars(node).items())
    else:
        fields = [(f, getattr(node, f, None)) for f in fields]
    for name, value in fields:
        if isinstance(value, ast.AST):
            if id(value) in mapping:
                setattr(node, name, mapping[id(value)])
            else:
                _replace_in(value, mapping, seen)
        elif isinstance(value, list):
            for i, item in enumerate(value):
                if id(item) in mapping:
                    value[i] = mapping[id(item)]
                elif isinstance(item, ast.AST):
                    _replace_in(item, mapping, seen)
        elif isinstance(value, tuple) and any(id(item) in mapping for item in value):
            setattr(node, name, tuple(mapping.get(id(item), item) for item in value))
            for item in value:
                if id(item) not in mapping and isinstance(item, ast.AST):
                    _replace_in(item, mapping, seen)
        elif isinstance(value, tuple):
            for item in value:
                if isinstance(item, ast.AST):
                    _replace_in(item, mapping, seen)


def drops_out(stmt) -> bool:
    """``stack_0`` alone as a statement: the POP_TOP of a value that was used
    (and spilled) elsewhere, which evaluates nothing."""
    return isinstance(stmt, ast.Expr) and getattr(stmt.value, "_spill_temp", False)
