"""Python that behaves like bytecode no source produced: the unstructured fallback.

When the structured decompiler cannot shape a code object (Dynamo's output keeps
values on the stack across jumps, shuffles them with SWAP/COPY, shares tails;
or a construct is not structured yet), :func:`fallback_body` still gives a
function body that returns the same results, has the same side effects in the
same order and raises the same exceptions.

The idea is a small interpreter written out as source. The ops are cut into
*nodes*: straight runs of ops entered with a known stack *shape*. Values that
live on the stack across nodes sit in temporaries named by depth (``__s0``,
``__s1``...); inside a node the ordinary expression builder
(:class:`~depyf.decompiler.expressions.StackMachine`) turns ops into
expressions, and a node ends by storing what is left on the stack into the
depth temporaries and naming the next node in ``__state``. A ``while True``
loop with one ``if __state == N`` per node dispatches. An op covered by an
exception handler puts its node inside ``try: ... except BaseException as __e:``
whose clause moves the exception where the handler expects it and continues at
the handler's node. Nodes reached from one place only are written out inline,
so straight code, if/else and simple handlers read as ordinary Python.

Worked example (on 3.11)::

    def f(a):
        try:
            return g(a)
        except ValueError as e:
            return e

becomes roughly::

    def f(a):
        try:
            return g(a)
        except BaseException as __e:
            __x0 = __e
            if isinstance(__x0, ValueError):
                e = __x0
                ...

Some stack values are not values at all: the NULL beside a callable, the
saved exception state PUSH_EXC_INFO keeps, 3.8's "return address" of a
``finally`` block. They are tracked statically as *marks*, part of the node's
shape, so code after them is specialised to them and no run-time value is
needed. 3.8-3.10's block stack (SETUP_FINALLY, POP_BLOCK, the "except handler"
block) is tracked the same way, with the exact semantics of each version's
opcodes rather than a structural rewrite, so no construct needs a pattern.

Evaluation order: the stack machine keeps expressions lazy. A lazy value with
possible side effects is written to a temporary before any statement runs
while it waits on the stack, before stack shuffles would reorder or copy it,
and at the end of a node, so effects happen in the order the ops ran.

Known gaps (documented rather than emulated): inside handler code that is not
written inline under its ``except`` clause, ``sys.exc_info()`` and implicit
exception chaining do not see the handled exception; re-raising adds this
frame to the traceback once more; ``locals()`` shows the temporaries; a
``with`` on an object lacking ``__enter__`` raises AttributeError where 3.11+
raises TypeError; cell variables of 3.12+ inlined comprehensions share one cell.
"""
from __future__ import annotations

import ast
import copy
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from ..bytecode.decode import decode
from ..bytecode.normalize import PASSES, _PASS_FUNCS, remove_ops, to_ops
from .expressions import Context, DecompileFailure, StackMachine, _CodeConst, _definition, _same
from .values import (BuildClass, ClassValue, Converted, FunctionValue, ImportFromValue,
                     ImportValue, InPlace, Iterator, Null, Placeholder)

CO_NEWLOCALS = 0x2
CO_GENERATOR = 0x20
CO_COROUTINE = 0x80
CO_ASYNC_GENERATOR = 0x200

#: normalising passes that reshape control flow for the structurer without
#: keeping each op's exact meaning; the fallback needs exact meaning.
STRUCTURAL_PASSES = frozenset({"block_stack_handlers"})

#: passes known to keep each op's meaning (a test checks every pass is in one set)
SEMANTIC_PASSES = frozenset({
    "rename", "binary_ops", "compare_ops", "split_superinstructions", "fold_kwnames",
    "drop_noise", "call_ex_plain", "call_ex_null", "null_before_global",
    "null_after_global", "method_loads", "drop_qualname", "make_function_flags",
    "fold_function_attributes", "drop_end_for", "drop_end_for_pop",
    "short_circuit_jumps", "intrinsics", "class_deref"})

#: more nodes than this means the shapes do not settle (malformed bytecode)
NODE_LIMIT = 20000


def fallback_body(code, failure=None, on_failure=None) -> List[ast.stmt]:
    """The body of ``code`` (a CodeRecord) as Python that behaves like its bytecode.

    ``failure`` says why the structured decompiler gave up (quoted in the
    output); ``on_failure`` is passed on to nested code objects. Raises
    :class:`DecompileFailure` only for bytecode this module cannot express.
    """
    from .functions import CodeDecompiler
    kind = code_kind(code)
    decompiler = CodeDecompiler(code, kind, on_failure)
    body = Translator(code, kind, decompiler.nested).body()
    body = decompiler.declarations() + body
    note = ast.Expr(value=ast.Constant(value="depyf: unstructured fallback (%s)"
                                       % (failure or "requested")))
    # Second, never first: a leading string would become the docstring.
    body.insert(1, note)
    return body


def code_kind(code) -> str:
    """``"module"``, ``"class"`` (a class body) or ``"function"``."""
    if code.name == "<module>":
        return "module"
    if not code.flags & CO_NEWLOCALS:
        return "class"
    return "function"


# -- preparing the ops ---------------------------------------------------------------

def prepare_ops(code):
    """Decode and normalise ``code`` keeping each op's exact meaning, then fuse
    the ``await``/``yield from`` loops into single ops."""
    bc = decode(code)
    func = to_ops(bc)
    for name in PASSES[bc.table.version]:
        if name not in STRUCTURAL_PASSES:
            _PASS_FUNCS[name](func, bc.table)
    func.reindex()
    fuse_suspensions(func)
    func.reindex()
    return func


#: the op that produces what a ``yield from`` loop sends into -> the fused op
_SUSPEND_PRODUCERS = {"GET_AWAITABLE": "AWAIT", "GET_YIELD_FROM_ITER": "YIELD_FROM_ITER",
                      "GET_ANEXT": "ANEXT_AWAIT"}


def fuse_suspensions(func) -> None:
    """``GET_AWAITABLE; LOAD_CONST None; <send loop>`` -> ``AWAIT`` (likewise
    ``yield from`` and ``async for``'s ``__anext__``).

    The loop is ``YIELD_FROM`` up to 3.10; from 3.11 it is
    ``L: SEND E; YIELD_VALUE; JUMP L; [CLEANUP_THROW...]; E: [END_SEND]``.
    Written out as ``await x`` / ``yield from x`` it keeps ``send``, ``throw``
    and ``close`` delegation exactly, which a hand-written loop would not.
    """
    ops = func.ops
    doomed = []
    for i, op in enumerate(ops):
        span = _suspension_span(ops, i)
        if span is None:
            continue
        producer = ops[i - 2]
        if producer.name not in _SUSPEND_PRODUCERS or _targeted(ops, span, producer):
            continue
        producer.name = _SUSPEND_PRODUCERS[producer.name]
        doomed.extend(span)
    remove_ops(func, doomed)


def _suspension_span(ops, i):
    """The ops of the loop whose SEND/YIELD_FROM is ``ops[i]``, with its LOAD_CONST."""
    op = ops[i]
    if i < 2 or ops[i - 1].name != "LOAD_CONST" or ops[i - 1].arg is not None:
        return None
    if op.name == "YIELD_FROM":
        return [ops[i - 1], op]
    if op.name != "SEND" or op.target is None:
        return None
    end = op.target.index
    body = ops[i + 1:end]
    if not body or body[0].name != "YIELD_VALUE" or any(
            o.name not in ("YIELD_VALUE", "JUMP", "CLEANUP_THROW") for o in body):
        return None
    span = [ops[i - 1], op] + body
    if end < len(ops) and ops[end].name == "END_SEND":
        span.append(ops[end])
    return span


def _targeted(ops, span, producer) -> bool:
    """Whether code outside the loop jumps into it (then it is not an idiom)."""
    inside = {id(o) for o in span}
    for o in ops:
        if id(o) in inside or o.name == "CLEANUP_THROW":
            continue
        if o.target is not None and id(o.target) in inside and o.target is not span[-1]:
            # the CLEANUP_THROW block's JUMP to END_SEND is part of the idiom
            if not (o.name == "JUMP" and span[-1].name == "END_SEND"):
                return True
    return False


def leaders(ops) -> set:
    """Indices where a node must start: jump and handler targets."""
    out = {0}
    for op in ops:
        if op.target is not None:
            out.add(op.target.index)
        if op.handler is not None:
            out.add(op.handler.target.index)
    return out


# -- names ----------------------------------------------------------------------------

class Names:
    """Temporaries that collide with nothing the code object names.

    Every temporary starts with two underscores; inside a class body Python
    mangles them consistently, so that is harmless. A builtin the code shadows
    (a local called ``type``...) is reached through ``__import__('builtins')``.
    """

    def __init__(self, code):
        self.taken = set(code.varnames) | set(code.cellvars) | set(code.freevars) | set(code.names)
        self.mine: List[str] = []
        self.memo: Dict[object, str] = {}
        self.count = 0
        self.prologue: List[ast.stmt] = []

    def fresh(self, base: str) -> str:
        name = "__" + base
        while name in self.taken:
            name += "_"
        self.taken.add(name)
        self.mine.append(name)
        return name

    def named(self, key, base: str) -> str:
        if key not in self.memo:
            self.memo[key] = self.fresh(base)
        return self.memo[key]

    def slot(self, k: int) -> str:
        return self.named(("slot", k), "s%d" % k)

    def temp(self) -> str:
        self.count += 1
        return self.fresh("t%d" % self.count)

    def holder(self, target_index: int) -> str:
        """Where the exception caught for the handler at ``target_index`` is kept."""
        return self.named(("holder", target_index), "x%d" % len(
            [k for k in self.memo if isinstance(k, tuple) and k[0] == "holder"]))

    def builtin(self, name: str) -> ast.expr:
        if name not in self.taken:
            return load(name)
        if "__import__" in self.taken:
            raise DecompileFailure("builtins %s and __import__ are both shadowed" % name)

        def rebind():
            alias = self.fresh("b_" + name)
            module = call(load("__import__"), ast.Constant(value="builtins"))
            self.prologue.append(assign(alias, ast.Attribute(value=module, attr=name,
                                                             ctx=ast.Load())))
            return alias
        if ("builtin", name) not in self.memo:
            self.memo[("builtin", name)] = rebind()
        return load(self.memo[("builtin", name)])


def sanitize(name: str) -> str:
    """A name the code uses that is not an identifier (``.0``) as one."""
    if name.isidentifier():
        return name
    return "__dot_" + "".join(c if c.isalnum() or c == "_" else "_" for c in name.lstrip("."))


# -- small ast helpers -------------------------------------------------------------------

def load(name: str) -> ast.Name:
    return ast.Name(id=name, ctx=ast.Load())


def store_name(name: str) -> ast.Name:
    return ast.Name(id=name, ctx=ast.Store())


def assign(name: str, value: ast.expr) -> ast.Assign:
    return ast.Assign(targets=[store_name(name)], value=value)


def call(func: ast.expr, *args: ast.expr) -> ast.Call:
    return ast.Call(func=func, args=list(args), keywords=[])


def attr(value: ast.expr, name: str) -> ast.Attribute:
    return ast.Attribute(value=value, attr=name, ctx=ast.Load())


def const(value) -> ast.Constant:
    return ast.Constant(value=value)


def mentions(node, name: str, seen=None) -> bool:
    """Whether ``node`` (an expression, placeholder or list of them) reads ``name``."""
    if seen is None:
        seen = set()
    if id(node) in seen:
        return False
    seen.add(id(node))
    if isinstance(node, ast.Name):
        return node.id == name
    if isinstance(node, Mark):
        return node.name == name
    if isinstance(node, (list, tuple)):
        return any(mentions(n, name, seen) for n in node)
    if isinstance(node, (ast.AST, Placeholder)) or hasattr(node, "__dict__"):
        return any(mentions(v, name, seen) for v in vars(node).values()
                   if isinstance(v, (ast.AST, list, tuple, Placeholder)))
    return False


# -- marks: stack values that are known statically --------------------------------------

class Mark(Placeholder):
    """A stack slot whose meaning is static (part of a node's shape).

    kinds: ``lasti`` (3.11+ handler's offset), ``prev`` (the exception state
    PUSH_EXC_INFO saved; ``name`` holds the previous exception or None),
    ``old`` (3.8-3.10's saved exception triple, ``index`` 0..2 = tb, value,
    type), ``exc``/``exctype``/``exctb`` (the caught exception, its type and
    traceback, kept in the variable ``name``), ``addr`` (3.8 CALL_FINALLY's
    return address, ``index`` the op), ``saved`` (3.12 LOAD_FAST_AND_CLEAR's
    saved local: ``name`` holds it, ``index`` is the local's name).
    """

    def __init__(self, kind: str, name: Optional[str] = None, index=None):
        super().__init__()
        self.kind = kind
        self.name = name
        self.index = index

    @property
    def key(self):
        return ("mark", self.kind, self.name, self.index)

    def as_expr(self, names: Names) -> ast.expr:
        """The run-time value this slot stands for, when an op uses it as one."""
        held = load(self.name) if self.name else const(None)
        if self.kind in ("exc", "saved"):
            return held
        if self.kind == "exctype":
            return call(names.builtin("type"), held)
        if self.kind == "exctb":
            return attr(held, "__traceback__")
        if self.kind == "prev":
            return held
        if self.kind == "old":
            if self.name is None:
                return const(None)
            return [attr(held, "__traceback__"), held,
                    call(names.builtin("type"), held)][self.index]
        if self.kind == "addr":
            return const(self.index)
        return const(None)     # lasti: only RERAISE reads it, for line numbers


class CellName(ast.Name):
    """LOAD_CLOSURE's value: a Name, but it names the cell (``__classcell__`` stores)."""


# -- the node graph ------------------------------------------------------------------------

@dataclass(eq=False)
class Block:
    """One entry of 3.8-3.10's block stack: ``F`` a SETUP_FINALLY-style block
    (handler ``target``, stack ``level``), ``X`` an "except handler" block
    (``level``, and ``prev`` the exception it will restore)."""
    kind: str
    level: int
    target: Optional[int] = None
    prev: Optional[str] = None

    @property
    def key(self):
        return (self.kind, self.level, self.target, self.prev)


@dataclass(eq=False)
class Node:
    key: tuple                       # (start op, shape, blocks, current exception)
    serial: int
    body: List[ast.stmt] = field(default_factory=list)
    #: key of the handler node exceptions go to (None: unprotected)
    guard: Optional[tuple] = None
    handler_body: List[ast.stmt] = field(default_factory=list)
    preds: list = field(default_factory=list)     # (node, "normal"|"exception")
    #: the exception current while this node's code runs
    body_exc: Optional[str] = None
    host: Optional["Node"] = None    # set when written inline at its only predecessor
    number: int = -1

    @property
    def start(self) -> int:
        return self.key[0]


class Goto(ast.stmt):
    """Continue at ``target`` (resolved by the layout into inline code or ``__state = N``)."""
    _fields = ()

    def __init__(self, target: Node, kind: str):
        super().__init__()
        self.target = target
        self.kind = kind


class Exit(ast.stmt):
    """Leave the dispatch loop (a module or class body's return)."""
    _fields = ()
