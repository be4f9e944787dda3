"""The order in which Python evaluates a statement, and what each step may do.

Every rewrite of the readable passes moves some evaluation from one place to
another, or drops it. Whether that is allowed is decided here, once, from
the *steps* of the code involved: each operation in the order Python runs it
(the operands of a call before the call, the value of an assignment before
its targets...), with what it may do:

* ``PURE``: runs no code and reads nothing code could change: a constant, a
  plain local, a global Dynamo installed (``__compiled_fn_*``...), an
  attribute of a module Dynamo installed, an item of Dynamo's tuple of graph
  outputs (``graph_out_0[1]``) or of the ``*args`` tuple, the cell of a
  variable; a store to a temporary;
* ``QUIET``: runs no code, but reads what code may change: a cell, a global,
  ``nn.Module``'s own ``_modules``/``_parameters``/``_buffers`` dicts and
  their items; a store to one of the user's names; a call of Dynamo's
  pregraph markers (``record_pregraph_bytecode_enter``/``exit``, which only
  time Dynamo's own bytecode);
* ``CODE``: may run anything: a call, an operator, any other attribute or
  subscript, a store into an object, a ``return`` or ``raise``.

Two pieces of code *commute* (may run in either order) when neither writes a
name the other reads or writes and at least one of them is pure, or both are
quiet. A value may move to a later use when it commutes with everything
evaluated in between; into a branch only when pure.

Example::

    >>> import ast
    >>> from depyf.decompiler.readable.facts import scope_of
    >>> fn = ast.parse("def f(a):\\n    t = g.x\\n    h(a)\\n    return t").body[0]
    >>> steps = Evaluation(scope_of(fn))
    >>> value, call = steps.expression(fn.body[0].value), steps.statement(fn.body[1])
    >>> [KIND_NAMES[s.kind] for s in value], commute(value, call)
    (['quiet', 'code'], False)
"""
from __future__ import annotations

import ast
import operator
import re
from typing import Dict, FrozenSet, Iterable, List, Optional, Tuple

from .scope import DYNAMO_GLOBAL, DYNAMO_MODULE, GRAPH_OUTPUT, Scope

PURE, QUIET, CODE = 0, 1, 2
KIND_NAMES = ("pure", "quiet", "code")
#: nn.Module's own dicts: reading them (and their items) runs no code
MODULE_DICTS = frozenset(["_modules", "_parameters", "_buffers"])
#: Dynamo's markers around the bytecode that prepares a graph's inputs: they
#: time it and touch nothing the program sees, so reads that run no code may
#: move past them (a call runs quiet, ordered against every other call)
MARKERS = frozenset(["record_pregraph_bytecode_enter", "record_pregraph_bytecode_exit"])
#: the builtins dict Dynamo installs as a global (``__builtins_dict___3['print']``)
BUILTINS_DICT = re.compile(r"^__builtins_dict___\d+$")
#: displays of a fresh list, tuple, set or dict, and the types of constants,
#: whose truth is the builtin one (an object Dynamo put among the constants,
#: not yet named, may have a __bool__ of its own)
_FRESH_DISPLAYS = (ast.List, ast.Tuple, ast.Set, ast.Dict)
_PLAIN_CONSTANTS = (type(None), bool, int, float, complex, str, bytes, type(...), tuple, frozenset)
_NONE: FrozenSet[str] = frozenset()


def plain_truth(node: ast.expr) -> bool:
    """Testing the truth of ``node``'s value runs no code.

    >>> plain_truth(ast.Constant(None)), plain_truth(ast.List([], ast.Load())), plain_truth(ast.Name("a"))
    (True, True, False)
    """
    return isinstance(node, _FRESH_DISPLAYS) or (
        isinstance(node, ast.Constant) and type(node.value) in _PLAIN_CONSTANTS)


def plain_unary(node: ast.UnaryOp) -> bool:
    """``node`` runs no code: ``not`` of what :func:`plain_truth` accepts, a
    sign on a number of a builtin type, ``~`` on an int. (An object Dynamo put
    among the constants may define ``__bool__`` or ``__neg__``.)

    >>> plain_unary(ast.UnaryOp(ast.USub(), ast.Constant(1.5))), plain_unary(ast.UnaryOp(ast.Invert(), ast.Constant(1.5)))
    (True, False)
    """
    if type(node.op) is ast.Not:
        return plain_truth(node.operand)
    operand = node.operand
    if type(operand) is not ast.Constant:
        return False
    kinds = (int,) if type(node.op) is ast.Invert else (int, float, complex)
    return type(operand.value) in kinds


def is_dict_of_module(node: ast.expr) -> bool:
    """``m.__dict__['_modules']`` (or ``_parameters``, ``_buffers``): the
    spelling of ``m._modules`` Dynamo uses where ``m`` has attributes of its own."""
    return (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute)
            and node.value.attr == "__dict__" and isinstance(node.slice, ast.Constant)
            and node.slice.value in MODULE_DICTS)


class Step:
    """One operation: the node it belongs to, its kind, the names it reads
    and writes, whether it leaves the block (``return``, ``raise``) and
    whether it runs only sometimes (``lazy``: a branch, an operand that
    short-circuits)."""
    __slots__ = ("node", "kind", "reads", "writes", "exits", "lazy")

    # (``lazy`` third: most steps are made with node, kind and lazy only, by position, which is quicker)
    def __init__(self, node, kind, lazy=False, reads=_NONE, writes=_NONE, exits=False):
        self.node, self.kind, self.reads, self.writes = node, kind, reads, writes
        self.exits, self.lazy = exits, lazy

    def __repr__(self):
        return "Step(%s %s%s%s)" % (type(self.node).__name__, KIND_NAMES[self.kind],
                                    " reads %s" % sorted(self.reads) if self.reads else "",
                                    " writes %s" % sorted(self.writes) if self.writes else "")


_KIND, _READS, _WRITES = (operator.attrgetter(name) for name in ("kind", "reads", "writes"))


def kind_of(steps: Iterable[Step]) -> int:
    kind = PURE     # (the strongest kind, PURE for none: a loop, with no generator to make)
    for step in steps:
        if step.kind > kind:
            kind = step.kind
    return kind


def reads_of(steps: Iterable[Step]) -> FrozenSet[str]:
    return frozenset(n for s in steps for n in s.reads)


def writes_of(steps: Iterable[Step]) -> FrozenSet[str]:
    return frozenset(n for s in steps for n in s.writes)


class Effect:
    """What some code may do, summed up from its steps: the strongest kind,
    the names read and written. Effects add up with ``|``."""
    __slots__ = ("kind", "reads", "writes", "empty")

    def __init__(self, kind: int = PURE, reads: FrozenSet[str] = _NONE, writes: FrozenSet[str] = _NONE,
                 empty: bool = True):
        self.kind, self.reads, self.writes, self.empty = kind, reads, writes, empty

    @classmethod
    def of(cls, steps: Iterable[Step]) -> "Effect":
        steps = steps if type(steps) is list else list(steps)
        if not steps:
            return cls()
        # (the loops in C: what runs before a graph call's last arguments is
        # hundreds of steps, asked for each argument moved into it)
        return cls(max(map(_KIND, steps)), _NONE.union(*map(_READS, steps)),
                   _NONE.union(*map(_WRITES, steps)), False)

    @classmethod
    def union(cls, effects: Iterable["Effect"]) -> "Effect":
        """``a | b | ...`` in one merge: a chain of ``|`` copies the names
        gathered so far at each step, which grows with the square of the
        code between a value and its use.

        >>> quiet, reads_b = Effect.of([Step(None, QUIET)]), Effect.of([Step(None, PURE, reads=frozenset("b"))])
        >>> both = Effect.union([quiet, NOTHING, reads_b])
        >>> KIND_NAMES[both.kind], sorted(both.reads)
        ('quiet', ['b'])
        """
        kind, reads, writes, empty = PURE, set(), set(), True
        for effect in effects:
            if effect.empty:
                continue
            empty = False
            if effect.kind > kind:
                kind = effect.kind
            if effect.reads:
                reads |= effect.reads
            if effect.writes:
                writes |= effect.writes
        return cls(kind, frozenset(reads), frozenset(writes), empty)

    def __or__(self, other: "Effect") -> "Effect":
        if other.empty:
            return self
        if self.empty:
            return other
        return Effect(max(self.kind, other.kind), self.reads | other.reads, self.writes | other.writes, False)


NOTHING = Effect()


def _effect(code) -> Effect:
    return code if isinstance(code, Effect) else Effect.of(code)


def commute(a, b) -> bool:
    """May ``a`` and ``b`` (steps, or their :class:`Effect`) run in either
    order with the same effects?

    >>> commute([Step(None, CODE)], [Step(None, PURE, reads=frozenset("x"))])
    True
    >>> commute([Step(None, CODE)], [Step(None, QUIET)])
    False
    """
    a, b = _effect(a), _effect(b)
    if a.empty or b.empty:
        return True
    if a.writes & (b.reads | b.writes) or b.writes & a.reads:
        return False
    return a.kind == PURE or b.kind == PURE or (a.kind == QUIET and b.kind == QUIET)


def may_move(value, between, into_branch: bool = False) -> bool:
    """May ``value`` be evaluated after ``between`` instead of before it
    (in a branch that may not run, if ``into_branch``)? Either may be steps
    or an :class:`Effect`."""
    value = _effect(value)
    if into_branch and value.kind != PURE:
        return False
    return commute(value, between)


class Evaluation:
    """The steps of statements and expressions of one function (one short
    method per node, like ``ast``'s unparser)."""

    def __init__(self, scope: Scope, resolve=None):
        self.scope = scope
        #: name -> the one value a temporary is ever bound to (or None)
        self.resolve = resolve or (lambda name: None)
        self._names: Dict[str, FrozenSet[str]] = {}     # name -> frozenset([name]), made once
        # name -> (kind, names) of a read of it: made once, as a name's kind stays
        # what it is for the scope's life (:meth:`~.scope.Scope.fresh` makes local
        # only a name nobody here uses, or one already local)
        self._reads: Dict[str, Tuple[int, FrozenSet[str]]] = {}
        self._modules: Dict[str, bool] = {}     # name -> is_dynamo_module(name), likewise
        #: item -> (lazy, its steps): the steps of a call's arguments and a
        #: display's items, remembered while this is set (see :meth:`item`)
        self.memo: Optional[Dict[ast.AST, Tuple[bool, List[Step]]]] = None
        cls = type(self)
        if cls._EXPRESSIONS is None:
            cls._EXPRESSIONS, cls._STATEMENTS = {}, {}
            for attr in dir(cls):
                node_class = getattr(ast, attr[2:], None) if attr[:2] in ("e_", "s_") else None
                if isinstance(node_class, type):
                    (cls._EXPRESSIONS if attr[0] == "e" else cls._STATEMENTS)[node_class] = getattr(cls, attr)
        # (the tables as attributes of the instance: the quickest look-up)
        self._expressions, self._statements = cls._EXPRESSIONS, cls._STATEMENTS

    #: node class -> its method, filled at the first use
    _EXPRESSIONS: Optional[Dict[type, object]] = None
    _STATEMENTS: Optional[Dict[type, object]] = None

    def one(self, name: str) -> FrozenSet[str]:
        names = self._names.get(name)
        if names is None:
            names = self._names[name] = frozenset([name])
        return names

    def base(self, node: ast.expr) -> ast.expr:
        """What an attribute's or item's object is, for telling its kind: the
        value of a walrus, the one value a temporary holds."""
        if not isinstance(node, (ast.NamedExpr, ast.Name)):
            return node         # (the loop's first round, without the loop: most objects)
        for _ in range(8):
            if isinstance(node, ast.NamedExpr):
                node = node.value
            elif isinstance(node, ast.Name) and self.scope.is_temporary(node.id):
                bound = self.resolve(node.id)
                if bound is None:
                    return node
                node = bound
            else:
                return node
        return node

    # -- entry points --------------------------------------------------------------
    def statement(self, stmt: ast.stmt) -> List[Step]:
        out: List[Step] = []
        self._statements.get(type(stmt), Evaluation._s_unknown)(self, stmt, out, False)
        return out

    def block(self, stmts: Iterable[ast.stmt], lazy: bool = False) -> List[Step]:
        out: List[Step] = []
        table = self._statements
        for stmt in stmts:
            table.get(type(stmt), Evaluation._s_unknown)(self, stmt, out, lazy)
        return out

    def expression(self, node: ast.expr, lazy: bool = False) -> List[Step]:
        out: List[Step] = []
        self.e(node, out, lazy)
        return out

    # -- expressions ---------------------------------------------------------------------
    def e(self, node, out: List[Step], lazy: bool) -> None:
        if node is not None:
            self._expressions.get(type(node), Evaluation._e_unknown)(self, node, out, lazy)

    def item(self, node, out: List[Step], lazy: bool) -> None:
        """:meth:`e` of an argument or a display's item, remembered in
        :attr:`memo` where one is set. A graph call takes a model's hundreds
        of parameters; the passes move each into it in turn, and each move
        asks for the call's steps again: the items not moved are looked up,
        not evaluated again. Whoever edits under an item forgets it (and the
        items around it): :meth:`~.facts.Facts.replace` and its kin do."""
        memo = self.memo
        if memo is None or type(node) is ast.Constant:     # (a constant has no steps)
            self.e(node, out, lazy)
            return
        hit = memo.get(node)
        if hit is not None and hit[0] == lazy:
            out += hit[1]
            return
        steps: List[Step] = []
        self.e(node, steps, lazy)
        memo[node] = (lazy, steps)
        out += steps

    def _e_unknown(self, node, out, lazy):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.e(child, out, lazy)
        out.append(Step(node, CODE, lazy))

    def e_Constant(self, node, out, lazy):
        pass

    def e_Name(self, node, out, lazy):
        name = node.id
        if isinstance(node.ctx, ast.Load):
            read = self._reads.get(name)
            if read is None:
                kind = self.scope.kind_of(name)
                pure = kind == "local" or (kind == "global" and DYNAMO_GLOBAL.match(name))
                read = self._reads[name] = (PURE if pure else QUIET, self.one(name))
            out.append(Step(node, read[0], lazy, read[1]))      # (reads)
        else:
            self.store(node, name, out, lazy)

    def store(self, node, name: str, out, lazy) -> None:
        kind = PURE if self.scope.is_temporary(name) else QUIET
        out.append(Step(node, kind, lazy, _NONE, self.one(name)))     # (writes)

    def e_Attribute(self, node, out, lazy):
        self.e(node.value, out, lazy)
        if not isinstance(node.ctx, ast.Load):
            out.append(Step(node, CODE, lazy))
            return
        base = self.base(node.value)
        if isinstance(base, ast.Name) and self.is_dynamo_module(base.id):
            kind = PURE
        elif node.attr in MODULE_DICTS:
            kind = QUIET
        elif node.attr == "__closure__" and isinstance(base, ast.Lambda):
            kind = PURE         # the decompiler's spelling of a cell: (lambda: x).__closure__[0]
        else:
            kind = CODE
        out.append(Step(node, kind, lazy))

    def e_Subscript(self, node, out, lazy):
        if is_dict_of_module(node):
            # m.__dict__['_modules']: the module's own dict, read without running code
            self.e(node.value.value, out, lazy)
            out.append(Step(node, QUIET if isinstance(node.ctx, ast.Load) else CODE, lazy))
            return
        self.e(node.value, out, lazy)
        self.e(node.slice, out, lazy)
        out.append(Step(node, self.subscript_kind(node) if isinstance(node.ctx, ast.Load) else CODE, lazy))

    def subscript_kind(self, node: ast.Subscript) -> int:
        key = node.slice
        if not isinstance(key, ast.Constant):
            return CODE
        if isinstance(node.value, ast.Name):
            name = node.value.id
            if type(key.value) is int and self.scope.kind_of(name) == "local" and (
                    GRAPH_OUTPUT.match(name) or name == self.scope.plain_varargs()):
                return PURE     # an item of a tuple only this frame holds
            if BUILTINS_DICT.match(name) and type(key.value) is str:
                return QUIET
        base = self.base(node.value)
        if is_dict_of_module(base) and type(key.value) is str:
            return QUIET
        if isinstance(base, ast.Attribute):
            if base.attr in MODULE_DICTS and type(key.value) is str:
                return QUIET
            if base.attr == "__closure__" and isinstance(base.value, ast.Lambda) and key.value == 0:
                return PURE
        return CODE

    def e_Call(self, node, out, lazy):
        self.e(node.func, out, lazy)
        for arg in node.args:
            self.item(arg, out, lazy)
        for kw in node.keywords:
            self.item(kw.value, out, lazy)
            if kw.arg is None:
                out.append(Step(kw, CODE, lazy))      # ** reads a mapping's keys
        out.append(Step(node, QUIET if self.is_marker(node.func) else CODE, lazy))

    def is_marker(self, func: ast.expr) -> bool:
        """Is ``func`` one of Dynamo's pregraph markers (:data:`MARKERS`)?"""
        return (isinstance(func, ast.Attribute) and func.attr in MARKERS and isinstance(func.value, ast.Name)
                and self.is_dynamo_module(func.value.id))

    def is_dynamo_module(self, name: str) -> bool:
        """Is ``name`` a module alias Dynamo installed (a global ``__import_*``)?"""
        found = self._modules.get(name)
        if found is None:
            found = self._modules[name] = bool(DYNAMO_MODULE.match(name)) and self.scope.kind_of(name) == "global"
        return found

    def e_Starred(self, node, out, lazy):
        self.e(node.value, out, lazy)
        if isinstance(node.ctx, ast.Load) and not isinstance(node.value, (ast.List, ast.Tuple)):
            out.append(Step(node, CODE, lazy))     # iterating it may run code

    def e_List(self, node, out, lazy):
        if not isinstance(node.ctx, ast.Load):
            self.unpack(node, out, lazy)
            return
        for elt in node.elts:
            self.item(elt, out, lazy)

    e_Tuple = e_List

    def unpack(self, node, out, lazy):
        out.append(Step(node, CODE, lazy))         # iterating the value may run code
        for elt in node.elts:
            self.e(elt.value if isinstance(elt, ast.Starred) else elt, out, lazy)

    def e_Set(self, node, out, lazy):
        for elt in node.elts:
            self.item(elt, out, lazy)
        if not all(isinstance(e, ast.Constant) for e in node.elts):
            out.append(Step(node, CODE, lazy))     # hashing

    def e_Dict(self, node, out, lazy):
        for key, value in zip(node.keys, node.values):
            self.e(key, out, lazy)
            self.item(value, out, lazy)
        if not all(isinstance(k, ast.Constant) and type(k.value) in (str, int) for k in node.keys):
            out.append(Step(node, CODE, lazy))

    def e_Slice(self, node, out, lazy):
        self.e(node.lower, out, lazy)
        self.e(node.upper, out, lazy)
        self.e(node.step, out, lazy)

    def e_NamedExpr(self, node, out, lazy):
        self.e(node.value, out, lazy)
        self.store(node, node.target.id, out, lazy)

    def e_BinOp(self, node, out, lazy):
        self.e(node.left, out, lazy)
        self.e(node.right, out, lazy)
        out.append(Step(node, CODE, lazy))

    def e_UnaryOp(self, node, out, lazy):
        self.e(node.operand, out, lazy)
        if not plain_unary(node):
            out.append(Step(node, CODE, lazy))

    def e_BoolOp(self, node, out, lazy):
        self.e(node.values[0], out, lazy)
        for value in node.values[1:]:
            self.e(value, out, True)
        # the truth of each value but the last is taken: of a constant or a
        # fresh display it runs no code
        if not all(plain_truth(value) for value in node.values[:-1]):
            out.append(Step(node, CODE, lazy))

    def e_Compare(self, node, out, lazy):
        self.e(node.left, out, lazy)
        for i, value in enumerate(node.comparators):
            self.e(value, out, lazy or i > 0)
        out.append(Step(node, CODE, lazy))

    def e_IfExp(self, node, out, lazy):
        self.e(node.test, out, lazy)
        self.e(node.body, out, True)
        self.e(node.orelse, out, True)
        out.append(Step(node, CODE, lazy))

    def e_Lambda(self, node, out, lazy):
        for default in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
            self.e(default, out, lazy)

    def _comprehension(self, node, out, lazy):
        self.e(node.generators[0].iter, out, lazy)
        out.append(Step(node, CODE, lazy))

    e_ListComp = e_SetComp = e_DictComp = e_GeneratorExp = _comprehension

    # -- statements ---------------------------------------------------------------------
    def _s_unknown(self, node, out, lazy):
        """A statement with a body: what its parts may do, all of it lazy."""
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.e(child, out, lazy)
        inner: List[ast.stmt] = []
        for field in ("body", "orelse", "finalbody"):
            inner.extend(getattr(node, field, None) or [])
        for handler in getattr(node, "handlers", None) or []:
            if handler.type is not None:
                self.e(handler.type, out, True)
            if handler.name:
                self.store(handler, handler.name, out, True)
            inner.extend(handler.body)
        for case in getattr(node, "cases", None) or []:
            inner.extend(case.body)
        for item in getattr(node, "items", None) or []:
            self.e(item.context_expr, out, lazy)
            if item.optional_vars is not None:
                self.target(item.optional_vars, out, lazy)
        out.append(Step(node, CODE, lazy))
        out.extend(self.block(inner, lazy=True))

    def s_Expr(self, node, out, lazy):
        self.e(node.value, out, lazy)

    def s_Assign(self, node, out, lazy):
        self.e(node.value, out, lazy)
        for target in node.targets:
            self.target(target, out, lazy)

    def target(self, node, out, lazy):
        if isinstance(node, ast.Name):
            self.store(node, node.id, out, lazy)
        elif isinstance(node, (ast.List, ast.Tuple)):
            out.append(Step(node, CODE, lazy))
            for elt in node.elts:
                self.target(elt.value if isinstance(elt, ast.Starred) else elt, out, lazy)
        elif isinstance(node, ast.Starred):
            self.target(node.value, out, lazy)
        else:
            self.e(node, out, lazy)         # an attribute or item: a CODE step of its own

    def s_AugAssign(self, node, out, lazy):
        target = node.target
        if isinstance(target, ast.Name):
            self.e(ast.Name(id=target.id, ctx=ast.Load()), out, lazy)
        else:
            self.e(target.value, out, lazy)
            if isinstance(target, ast.Subscript):
                self.e(target.slice, out, lazy)
        self.e(node.value, out, lazy)
        out.append(Step(node, CODE, lazy))
        if isinstance(target, ast.Name):
            self.store(target, target.id, out, lazy)
        else:
            out.append(Step(target, CODE, lazy))

    def s_AnnAssign(self, node, out, lazy):
        if node.value is not None:
            self.e(node.value, out, lazy)
            self.target(node.target, out, lazy)
        elif not isinstance(node.target, ast.Name):
            out.append(Step(node, CODE, lazy))

    def s_Delete(self, node, out, lazy):
        for target in node.targets:
            if isinstance(target, ast.Name):
                self.store(target, target.id, out, lazy)
            else:
                self.target(target, out, lazy)

    def s_Return(self, node, out, lazy):
        self.e(node.value, out, lazy)
        out.append(Step(node, CODE, lazy, exits=True))

    def s_Raise(self, node, out, lazy):
        self.e(node.exc, out, lazy)
        self.e(node.cause, out, lazy)
        out.append(Step(node, CODE, lazy, exits=True))

    def s_Break(self, node, out, lazy):
        out.append(Step(node, CODE, lazy, exits=True))

    s_Continue = s_Break

    def s_Pass(self, node, out, lazy):
        pass

    s_Global = s_Nonlocal = s_Pass

    def s_FunctionDef(self, node, out, lazy):
        for part in node.decorator_list + node.args.defaults + [
                d for d in node.args.kw_defaults if d is not None]:
            self.e(part, out, lazy)
        if node.decorator_list or any(a.annotation is not None for a in ast.walk(node.args)
                                      if isinstance(a, ast.arg)) or node.returns is not None:
            out.append(Step(node, CODE, lazy))
        self.store(node, node.name, out, lazy)

    s_AsyncFunctionDef = s_FunctionDef

    def s_While(self, node, out, lazy):
        # the test runs again and again: nothing in it runs exactly once
        self.e(node.test, out, True)
        out.append(Step(node, CODE, lazy))
        out.extend(self.block(node.body, lazy=True))
        out.extend(self.block(node.orelse, lazy=True))

    def s_For(self, node, out, lazy):
        self.e(node.iter, out, lazy)
        out.append(Step(node, CODE, lazy))        # iterating may run code
        self.target(node.target, out, True)
        out.extend(self.block(node.body, lazy=True))
        out.extend(self.block(node.orelse, lazy=True))

    s_AsyncFor = s_For

    def s_If(self, node, out, lazy):
        self.e(node.test, out, lazy)
        out.extend(self.block(node.body, lazy=True))
        out.extend(self.block(node.orelse, lazy=True))
