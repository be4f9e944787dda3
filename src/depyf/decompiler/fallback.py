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

Worked example (3.11 bytecode, the fallback forced)::

    def f(a):
        try:
            return g(a)
        except ValueError as e:
            return e

becomes::

    def f(a):
        __b_isinstance = __import__('builtins').isinstance
        __b_BaseException = __import__('builtins').BaseException
        __state = 0
        'depyf: unstructured fallback (...)'
        try:
            try:
                return g(a)
            except __b_BaseException as __e:
                __x0 = __e                              # the handler's exception
                try:
                    if __b_isinstance(__x0, ValueError):
                        e = __x0
                        __x0 = None                     # dropped when the bytecode drops it
                        __s0 = e                        # the return value waits on the stack
                        __state = 1
                    else:
                        raise                           # RERAISE: the handled exception
                except __b_BaseException as __e:
                    __x1 = __e
                    __x0 = None
                    __state = 2
            if __state == 1:
                e = None
                del e
                return __s0
            if __state == 2:
                __t1 = __x1.__context__, __x1.__traceback__
                try:
                    raise __x1                          # re-raised, chaining left as it was
                finally:
                    __x1.__context__, __x1.__traceback__ = __t1
        finally:
            __s0 = __t1 = __x0 = __x1 = None            # no frame kept alive by a traceback

(``while True:`` appears only when some transfer goes backwards; builtins the
generated code calls come from the builtins module, as a parameter called
``next`` would otherwise capture ``next``.)

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

Exception state: each node runs with one exception "being handled"; code that
runs while the bytecode handles exception ``e`` is written inside an
``except`` clause of ``e`` (inline, or by raising ``e`` again and restoring its
``__context__`` and traceback), so ``sys.exc_info()``, bare ``raise`` and
implicit chaining see what they would.

Known differences (documented rather than emulated): on 3.8-3.10 a re-raised
exception's traceback shows this frame once more; ``locals()`` shows the
temporaries; a read of an unbound local may fail a little later than in the
bytecode (still within the same straight run of ops); the cell variables of
3.12+ inlined comprehensions share the enclosing function's cell; a PEP 695
bound or constraint is evaluated when its type variable is made, not lazily;
a generic ``type`` alias in unstructured code is refused (a stub says so).
"""
from __future__ import annotations

import ast
import copy
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from ..bytecode.decode import decode
from ..bytecode.edits import remove_ops
from ..bytecode.normalize import PASS_FUNCTIONS, PASSES, to_ops
from ..bytecode.versions import get_table
from .astcompat import child_nodes
from .cfg import build_cfg
from .expressions import Context, StackMachine, CodeConst, definition, same_target
from .failure import DecompileFailure
from .objects import CellRef
from .values import (BuildClass, ClassValue, Converted, FunctionValue, ImportFromValue,
                     ImportValue, InPlace, Iterator, Null, Placeholder)

CO_NEWLOCALS = 0x2
CO_GENERATOR = 0x20
CO_COROUTINE = 0x80
CO_ASYNC_GENERATOR = 0x200

#: normalising passes that reshape control flow for the structurer without
#: keeping each op's exact meaning (the fallback needs exact meaning)
STRUCTURAL_PASSES = frozenset({
    "block_stack_handlers", "exc_info_shuffles", "finally_to_py39", "chained_comparisons",
    "send_loops", "merge_copied_exits", "merge_copied_tails",
    "backward_conditional_jumps", "doubled_returns", "closing_jumps_back", "adjacent_jumps",
    "dead_loop_tails",
    # an op only the structurer reads (the loop head a NOP marks)
    "nested_loop_tops",
    # a rotated loop's bottom test dropped: the fallback keeps the compiler's layout
    "unrotated_loops",
    # a run moved next to the one jump into it (generated code's): layout only
    "jumps_into_dead_code",
    # a false `a` of `a and b or c` tested twice: __bool__ would run twice
    "unthread_short_circuits", "unthread_short_circuit_pops",
    # the global AssertionError is not always the builtin one
    "assertion_error_loads",
    # 3.10's MATCH_CLASS/MATCH_KEYS in the 3.11 shape (the fallback reads them as they are)
    "match_results",
    # an async for header folded into one op with no handler
    "async_for_loops",
    # the set of annotations run is filled at run time: the fallback keeps it
    "annotation_marks",
    # reads the handler form that block_stack_handlers makes
    "unthread_with_exits", "copied_with_exits",
    # blocks moved or merged for the structurer (same meaning, other layout)
    "comprehension_cleanups_out_of_line", "except_star_handlers"})

#: passes known to keep each op's meaning: the only ones the fallback runs, so a
#: new pass is left out until someone files it here or above (a test checks)
SEMANTIC_PASSES = frozenset({
    "rename", "binary_ops", "compare_ops", "split_superinstructions", "fold_kwnames",
    "closure_loads",
    "drop_noise", "drop_generator_prologue", "call_ex_plain", "call_ex_null",
    "null_before_global", "null_after_global", "method_loads", "drop_qualname", "make_function_flags",
    "fold_function_attributes", "drop_end_for", "drop_end_for_pop",
    "short_circuit_jumps", "intrinsics", "class_deref", "drop_generator_wrapper",
    "drop_async_gen_wrap",
    # these only label RETURN_VALUEs for the structurer
    "explicit_returns", "copied_returns", "copied_loop_returns",
    # a constant pushed and popped at once: nothing happens either way
    "popped_branch_constants",
    # a jump retargeted to the jump back it was threaded through: the same place
    "unthread_continues", "unthread_if_ends", "unthread_or_jumps",
    # change no op, only record layout facts
    "cold_handlers", "dead_ways_out", "else_after_handlers", "jumps_to_line_nops",
    "try_line_nops", "while_true_lines",
    # a value's bool() spelt as two nots; a jump's own truth test dropped
    "bool_conversions",
    # up to 3.10's stack shuffles spelt as 3.11's COPY and SWAP (the same stack
    # effect); 3.14's spellings of 3.13's ops: the same values, stack and calls
    "stack_copies",
    "small_ints", "common_constants", "call_ex_kwargs_slot", "with_specials",
    # 3.15's iterator pairs as 3.14's single items (the same values, one slot fewer)
    "iterator_pairs",
    # only a flag kept for the structurer (the fallback writes its imports with it)
    "lazy_imports",
    # the check that the name is still the builtin, and the loop run if it is,
    # compute what the call computes
    "inlined_builtin_calls",
    # a comparison's bool negated, and the jump on it inverted
    "unfolded_not_jumps"})

#: more nodes than this means the shapes do not settle (malformed bytecode)
NODE_LIMIT = 20000


def fallback_body(code, failure=None, on_failure=None, forced=None) -> List[ast.stmt]:
    """The body of ``code`` (a CodeRecord) as Python that behaves like its bytecode.

    ``failure`` says why the structured decompiler gave up (quoted in the
    output); ``on_failure`` and ``forced`` (the records whose structured form
    is refused: :class:`~depyf.decompiler.functions.CodeDecompiler`) are
    passed on to nested code objects. The caller adds the
    ``global``/``nonlocal`` declarations. Raises :class:`DecompileFailure`
    only for bytecode this module cannot express.
    """
    from .functions import CodeDecompiler
    kind = code_kind(code)
    class_name = enclosing_class(code)
    decompiler = CodeDecompiler(code, kind, on_failure, class_name, forced)
    translator = Translator(code, kind, decompiler.nested, class_name)
    body = translator.body()
    note = ast.Expr(value=ast.Constant(value="depyf: unstructured fallback (%s)"
                                       % (failure or "requested")))
    # Right after `__state = 0`: never first, where a string would be the docstring.
    body.insert(translator.note_index, note)
    return body


def enclosing_class(code) -> Optional[str]:
    """The class whose name private names in ``code`` are mangled with: a class
    body's own name, else the innermost class in the qualified name (3.11+
    records it: in ``C.m.<locals>.g`` a name before ``<locals>`` is a function)."""
    if code_kind(code) == "class":
        return code.name
    parts = (getattr(code, "qualname", "") or "").split(".")[:-1]
    while parts:
        if parts[-1] == "<locals>":
            del parts[-2:]
            continue
        return parts[-1]
    return None


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
        if name in SEMANTIC_PASSES:
            PASS_FUNCTIONS[name](func, bc.table)
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


# -- names ----------------------------------------------------------------------------

class Names:
    """Temporaries that collide with nothing the code object names.

    Every temporary starts with two underscores; inside a class body Python
    mangles them consistently, so that is harmless. Builtins the generated
    code calls are reached so that no user name can stand in for them.
    """

    def __init__(self, code, bound=(), kind: str = "function"):
        #: a class body's namespace may be a metaclass's mapping (Enum's): there
        #: temporaries are dunder names, which such mappings leave alone
        self.suffix = "__" if kind == "class" else ""
        self.kind = kind
        self.taken = set(code.varnames) | set(code.cellvars) | set(code.freevars) | set(code.names)
        #: names that may hold something else than the builtin of that name
        self.shadowing = set(code.varnames) | set(code.cellvars) | set(code.freevars) | set(bound)
        self.taken_by_me = set()
        #: temporaries holding run-time values; holders keep caught exceptions
        self.values = set()
        self.holders = set()
        self.memo: Dict[object, str] = {}
        self.count = 0
        self.prologue: List[ast.stmt] = []

    def fresh(self, base: str) -> str:
        name = "__" + base
        while name + self.suffix in self.taken:
            name += "_"
        name += self.suffix
        self.taken.add(name)
        self.taken_by_me.add(name)
        return name

    def named(self, key, base: str) -> str:
        if key not in self.memo:
            self.memo[key] = self.fresh(base)
        return self.memo[key]

    def slot(self, k: int) -> str:
        name = self.named(("slot", k), "s%d" % k)
        self.values.add(name)
        return name

    def temp(self) -> str:
        self.count += 1
        name = self.fresh("t%d" % self.count)
        self.values.add(name)
        return name

    def holder(self, target_index: int) -> str:
        """Where the exception caught for the handler at ``target_index`` is kept."""
        name = self.named(("holder", target_index), "x%d" % len(self.holders))
        self.holders.add(name)
        self.values.add(name)
        return name

    def builtin(self, name: str) -> ast.expr:
        """A builtin the generated code needs. A module body reaches it by name
        unless the module binds that name; a function or class body may sit in
        a function that binds it (a parameter called ``next``), or in a module
        that does, so it takes it from the builtins module once, up front."""
        if self.kind == "module" and name not in self.shadowing:
            return load(name)

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
    incoming: list = field(default_factory=list)  # the Gotos that lead here
    #: the exception current while this node's code runs
    body_exc: Optional[str] = None
    host: Optional["Node"] = None    # set when written inline at its only predecessor
    host_kind: str = ""
    guard_holder: Optional[str] = None
    #: whether any op of the node can raise (else it may sit under any handler)
    may_raise: bool = False
    #: whether a handler node is written inline in this node's except clause
    hosts_handlers: bool = False
    number: int = -1

    @property
    def start(self) -> int:
        return self.key[0]

    @property
    def preds(self) -> list:
        return [(g.source, g.kind) for g in self.incoming]


class Goto(ast.stmt):
    """Continue at ``target`` (resolved by the layout into inline code or
    ``__state = N``); ``kind`` is "normal", or "exception" for a handler's entry."""
    _fields = ()

    def __init__(self, source: Node, target: Node, kind: str):
        super().__init__()
        self.source = source
        self.target = target
        self.kind = kind
        target.incoming.append(self)

    def retarget(self, target: Node) -> None:
        self.target.incoming.remove(self)
        self.target = target
        target.incoming.append(self)


class Exit(ast.stmt):
    """Leave the dispatch loop (a module or class body's return)."""
    _fields = ()


class Reraise(ast.stmt):
    """Raise a caught exception again, as RERAISE does: its ``__context__`` and
    traceback stay as they were (a plain ``raise e`` would chain it to the
    exception being handled and add a traceback entry). ``holder`` names the
    variable holding it, when one does."""
    _fields = ()

    def __init__(self, exc: Optional[ast.expr], holder: Optional[str]):
        super().__init__()
        self.exc = exc
        self.holder = holder


class ImportAttr(Placeholder):
    """IMPORT_FROM on a module that is already a plain value."""

    def __init__(self, module: ast.expr, name: str):
        super().__init__()
        self.module = module
        self.name = name


_UNSET = object()


class Translator:
    """Discovers the nodes of one code object and lays them out as statements."""

    def __init__(self, code, kind: str, nested, class_name: Optional[str] = None):
        self.code = code
        self.kind = kind
        self.func = prepare_ops(code)
        self.ops = self.func.ops
        self.ctx = Context(code, _strict_lambdas(nested), "function", class_name)
        self.ctx.implicit_returns = set()
        self.names = Names(code, _bound_names(self.ops), kind)
        #: where a node must start: the blocks entered by a jump or a handler
        self.leaders = {b.start for b in build_cfg(self.ops).entered_blocks()}
        self.nodes: Dict[tuple, Node] = {}
        self.order: List[Node] = []
        self.statics: Dict[tuple, object] = {}
        #: temporaries a module or class body must keep (a type alias reads them later)
        self.keep = set()
        cells = set(code.cellvars) | set(code.freevars)
        self.fast_locals = set(code.varnames) - cells if kind == "function" else set()
        self.table = get_table(code.version)
        self.async_generator = bool(code.flags & CO_ASYNC_GENERATOR)
        self.wrappers = {i for i, op in enumerate(self.ops[:-1])
                         if op.name == "STOPITERATION_ERROR" and self.ops[i + 1].name == "RERAISE"}

    def body(self) -> List[ast.stmt]:
        self.node((0, (), (), None))
        k = 0
        while k < len(self.order):
            NodeBuilder(self, self.order[k]).build()
            k += 1
        out = Layout(self).statements()
        if _may_hold_odd_names(self.code, self.ops):
            for stmt in out:
                _sanitize_names(stmt)
        return out

    def node(self, key: tuple) -> Node:
        node = self.nodes.get(key)
        if node is None:
            if len(self.order) >= NODE_LIMIT:
                raise DecompileFailure("stack shapes do not settle (more than %d nodes)"
                                       % NODE_LIMIT)
            node = Node(key, len(self.order), body_exc=key[3])
            self.nodes[key] = node
            self.order.append(node)
        return node

    # -- stack values ---------------------------------------------------------------

    def static_key(self, item) -> Optional[tuple]:
        """The shape entry of a statically known stack value, else None."""
        if isinstance(item, Mark):
            return item.key
        if isinstance(item, Null):
            return ("null",)
        if isinstance(item, BuildClass):
            return ("buildclass",)
        if isinstance(item, CodeConst) or (isinstance(item, FunctionValue)
                                            and not item.code.flags & CO_NEWLOCALS):
            # a code constant, or a class body waiting for __build_class__ (by
            # code object, so a loop that makes one each time settles)
            key = ("static", type(item).__name__, id(item.code))
            self.statics.setdefault(key, item)
            return key
        return None

    def entry_item(self, k: int, desc):
        if desc == "v":
            return load(self.names.slot(k))
        if desc[0] == "mark":
            return Mark(desc[1], desc[2], desc[3])
        if desc[0] == "null":
            return Null()
        if desc[0] == "buildclass":
            return BuildClass()
        return self.statics[desc]

    def null_name(self) -> str:
        """A sentinel object: "no value" (exhausted iterator, unbound local)."""
        if ("null",) not in self.names.memo:
            name = self.names.named(("null",), "null")
            self.names.prologue.append(assign(name, call(self.names.builtin("object"))))
        return self.names.memo[("null",)]

    def is_pure(self, item) -> bool:
        """Evaluating ``item`` later, or twice, gives the same value and no effects."""
        if isinstance(item, (Mark, Null, BuildClass, CodeConst, ast.Constant, CellRef)):
            return True
        if isinstance(item, FunctionValue):
            return not item.code.flags & CO_NEWLOCALS
        if type(item) is ast.Name:
            return item.id in self.names.taken_by_me or item.id in self.fast_locals or (
                self.kind == "class" and item.id in _CLASS_CELLS)
        if isinstance(item, ast.Slice):
            return all(p is None or self.is_pure(p) for p in (item.lower, item.upper, item.step))
        return False


def _strict_lambdas(nested):
    """The decompiler's ``nested``, refusing a lambda whose body it could not
    write as one expression (it would give a lambda that raises; here the
    function becomes a ``def`` instead)."""
    def strict(value, how):
        node = nested(value, how)
        if how == "lambda" and _raises_not_implemented(node.body):
            raise DecompileFailure("lambda body is not one expression")
        return node
    return strict


def _raises_not_implemented(expr) -> bool:
    """``(_ for _ in ()).throw(NotImplementedError(...))``: a body the decompiler gave up on."""
    return (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute)
            and expr.func.attr == "throw" and isinstance(expr.func.value, ast.GeneratorExp)
            and len(expr.args) == 1 and isinstance(expr.args[0], ast.Call)
            and isinstance(expr.args[0].func, ast.Name)
            and expr.args[0].func.id == "NotImplementedError")


def _bound_names(ops) -> set:
    """Names the code itself binds (a module defining ``len`` shadows the builtin)."""
    return {op.arg for op in ops if op.name in ("STORE_NAME", "STORE_GLOBAL", "DELETE_NAME",
                                                 "DELETE_GLOBAL")
            and isinstance(op.arg, str)}


def _may_hold_odd_names(code, ops) -> bool:
    """Whether a fallback body of ``code`` (its ``ops``) can hold a name that is
    not an identifier, i.e. :func:`_sanitize_names` has something to do (most
    code has none, and walking every tree cost a fifth of the fallback's time).
    Its names and variables, and those of the code it nests (lambdas,
    comprehensions, the arguments of what it defines), are what the tree names;
    the temporaries are identifiers; only a type alias names a constant.

    >>> from depyf.bytecode import as_record
    >>> _may_hold_odd_names(as_record(compile("f(lambda x: x)", "<s>", "exec")), [])
    False
    >>> _may_hold_odd_names(as_record(compile("f(x for x in y)", "<s>", "exec")), [])   # .0
    True
    """
    for op in ops:
        if op.name == "INTRINSIC_1" and op.arg == "INTRINSIC_TYPEALIAS":
            return True
    for c in code.walk():
        for group in (c.names, c.varnames, c.cellvars, c.freevars):
            for name in group:
                if not name.isidentifier():
                    return True
    return False


def _sanitize_names(tree) -> None:
    """Names that are not identifiers (``.0``, ``.generic_base``) as identifiers,
    in this scope: the code, and what functions and classes defined here
    evaluate here (defaults, bases, decorators); their bodies did their own."""
    todo = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Name):
            node.id = sanitize(node.id)
        elif isinstance(node, ast.arg):
            node.arg = sanitize(node.arg)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            todo.extend(c for c in child_nodes(node) if not isinstance(c, ast.stmt))
            if not isinstance(node, ast.ClassDef):
                _sanitize_parameters_in_body(node)
        else:
            todo.extend(child_nodes(node))


def _sanitize_parameters_in_body(fn) -> None:
    """A def the structured decompiler wrote inside a fallback body (3.14's
    lazily evaluated ``.format`` functions) uses its odd parameters by their
    own names: where its parameters are renamed, its body follows."""
    odd = {a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs
           if not a.arg.isidentifier()}
    if not odd:
        return
    for stmt in fn.body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and node.id in odd:
                node.id = sanitize(node.id)


# -- building one node ------------------------------------------------------------------

#: ops that cannot raise: they never decide which handler covers a node (what
#: they evaluate was built by earlier ops of the node, under its handler)
NEUTRAL = frozenset({
    "JUMP", "NOP", "POP_TOP", "LOAD_CONST", "PUSH_NULL", "SWAP", "COPY", "POP_EXCEPT", "POP_BLOCK",
    "SETUP_FINALLY", "BEGIN_FINALLY", "LOAD_CLOSURE", "STORE_FAST", "PUSH_EXC_INFO",
    "RETURN_VALUE"})

#: neutral ops that only push a value
_PLAIN_PUSHES = frozenset({"LOAD_CONST", "PUSH_NULL", "LOAD_CLOSURE"})

HANDLERS: Dict[str, object] = {}


def handles(*names):
    """Register a rule ``fn(builder, op) -> ended`` for op names (unlisted ops go
    to the StackMachine)."""
    def register(fn):
        for name in names:
            HANDLERS[name] = fn
        return fn
    return register


class NodeBuilder:
    """Runs the ops of one node from its entry shape, writing its statements."""

    def __init__(self, t: Translator, node: Node):
        self.t = t
        self.node = node
        self.names = t.names
        start, shape, blocks, cur_exc = node.key
        self.m = StackMachine(t.ctx, [t.entry_item(k, d) for k, d in enumerate(shape)])
        self.blocks = [Block(*b) for b in blocks]
        self.cur_exc = cur_exc
        self.out = node.body
        self.i = start
        self.op = None
        self.guard = _UNSET
        self.guard_prefix: list = []
        self.live = self.holders_in_use()
        #: locals stored by this node so far (reading them cannot fail), and those
        #: a store may leave unbound (an inlined comprehension's restored local)
        self.stored = set()
        self.maybe_unbound = set()

    @property
    def stack(self) -> list:
        return self.m.stack

    # -- caught exceptions no longer needed ------------------------------------------

    def holders_in_use(self) -> set:
        """Exception holders the state still refers to (stack marks, the current
        exception, saved states of handler blocks)."""
        if not self.names.holders:
            return set()
        used = {x.name for x in self.stack if isinstance(x, Mark) and x.name}
        used.update(b.prev for b in self.blocks if b.prev)
        if self.cur_exc:
            used.add(self.cur_exc)
        return used & self.names.holders

    def release_holders(self) -> None:
        """Drop a caught exception once the bytecode would have: kept in a local
        past that, it and its traceback (this frame) would keep each other alive."""
        if not self.live and not self.names.holders:
            return
        now = self.holders_in_use()
        for name in sorted(self.live - now):
            if mentions(self.stack, name):
                now.add(name)
            else:
                self.emit(assign(name, const(None)))
        self.live = now

    # -- the loop -------------------------------------------------------------------

    def build(self) -> None:
        ops = self.t.ops
        start = self.i
        while True:
            if self.i >= len(ops):
                raise DecompileFailure("control runs past the last op")
            op = ops[self.i]
            if self.i != start and self.i in self.t.leaders:
                self.fall(self.i)
                break
            if not self.neutral(op):
                if not self.same_guard(op, start):
                    self.fall(self.i)
                    break
                self.node.may_raise = True
            if self.i != start and self.pushes_for_next_handler():
                self.fall(self.i)
                break
            self.op = op
            handled = self.cur_exc
            if self.step(op):
                break
            self.track_locals(op)
            self.release_holders()
            if self.cur_exc != handled:
                # code runs with one exception being handled per node
                if self.i != start:
                    self.fall(self.i + 1)
                    break
                self.node.body_exc = self.cur_exc
            if self.guard_moved():
                self.fall(self.i + 1)
                break
            self.i += 1
        self.close_guard()

    def same_guard(self, op, start) -> bool:
        """Whether ``op`` may join this node: same handler (the first such op sets it)."""
        state = self.handler_state(op)
        if self.guard is _UNSET:
            if not self.stable(state):
                if self.i == start:
                    raise DecompileFailure("handler depth above the stack at offset %d"
                                           % op.offset)
                return False
            self.open_guard(state)
            return True
        return state == self.guard_state

    def neutral(self, op) -> bool:
        """Whether ``op`` cannot raise (then it does not decide the handler): the
        NEUTRAL ops, and reading or deleting a local this node has just stored."""
        if op.name in NEUTRAL:
            return True
        return op.name in ("LOAD_FAST", "DELETE_FAST") and op.arg in self.stored

    def track_locals(self, op) -> None:
        if op.name == "STORE_FAST" and op.arg not in self.maybe_unbound:
            self.stored.add(op.arg)
        elif op.name in ("DELETE_FAST", "LOAD_FAST_AND_CLEAR"):
            self.stored.discard(op.arg)

    def pushes_for_next_handler(self) -> bool:
        """Whether this op starts plain pushes for an op under another handler
        (``LOAD_CONST None`` x3 before a ``with`` exit call): they go with it."""
        ops, k = self.t.ops, self.i
        if self.guard is _UNSET or ops[k].name not in _PLAIN_PUSHES:
            return False
        while k < len(ops) and ops[k].name in _PLAIN_PUSHES and (
                k == self.i or k not in self.t.leaders):
            k += 1
        if k >= len(ops) or k in self.t.leaders or ops[k].name in NEUTRAL:
            return False
        return self.handler_state(ops[k]) != self.guard_state

    def step(self, op) -> bool:
        """Run one op; True when it ends the node."""
        rule = HANDLERS.get(op.name)
        if rule is None:
            self.delegate(op)
            return False
        return bool(rule(self, op))

    # -- handlers covering the node ----------------------------------------------------

    def handler_state(self, op):
        """Where an exception raised by ``op`` goes, in this state (None: nowhere)."""
        h = op.handler
        if h is not None:
            if h.target.index in self.t.wrappers:
                return None     # 3.12+'s StopIteration guard: Python adds it itself
            return ("table", h.target.index, h.depth, h.lasti, self.cur_exc)
        for j in range(len(self.blocks) - 1, -1, -1):
            block = self.blocks[j]
            if block.kind == "F":
                restored = [b.prev for b in self.blocks[j + 1:] if b.kind == "X"]
                prev = restored[0] if restored else self.cur_exc
                return ("legacy", block.target, block.level, prev,
                        tuple(b.key for b in self.blocks[:j]))
        return None

    def stable(self, state) -> bool:
        """The slots a handler keeps must hold their entry values (named by depth)."""
        if state is None:
            return True
        depth = state[2]
        if len(self.stack) < depth:
            return False
        return all(self.is_settled(k, item) for k, item in enumerate(self.stack[:depth]))

    def open_guard(self, state) -> None:
        self.guard_state = state
        if state is None:
            self.guard = None
            return
        kind, target, depth = state[:3]
        self.guard_prefix = list(self.stack[:depth])
        shape = tuple(self.desc(k, x) for k, x in enumerate(self.guard_prefix))
        holder = self.names.holder(target)
        if kind == "table":
            lasti = (Mark("lasti").key,) if state[3] else ()
            key = (target, shape + lasti + (Mark("exc", holder).key,), (), state[4])
        else:
            prev, below = state[3], state[4]
            saved = tuple(Mark("old", prev, k).key for k in range(3))
            caught = (Mark("exctb", holder).key, Mark("exc", holder).key,
                      Mark("exctype", holder).key)
            key = (target, shape + saved + caught, below + (Block("X", depth, None, prev).key,),
                   holder)
        self.guard = key
        self.guard_holder = holder

    def guard_moved(self) -> bool:
        """Whether the last op changed a slot the handler keeps (then the node ends)."""
        if not self.guard:
            return False
        prefix = self.guard_prefix
        return len(self.stack) < len(prefix) or any(
            a is not b for a, b in zip(self.stack, prefix))

    def close_guard(self) -> None:
        if self.guard is _UNSET or self.guard is None:
            self.node.guard = None
            return
        self.node.guard = self.guard
        self.node.guard_holder = self.guard_holder
        target = self.t.node(self.guard)
        caught = self.names.named(("caught",), "e")
        self.node.handler_body = [assign(self.guard_holder, load(caught)),
                                  Goto(self.node, target, "exception")]

    # -- stack values -------------------------------------------------------------------

    def pop(self):
        if not self.stack:
            raise DecompileFailure("stack underflow at offset %d" % self.op.offset)
        return self.stack.pop()

    def push(self, item) -> None:
        self.stack.append(item)

    def need(self, n: int) -> None:
        if len(self.stack) < n:
            raise DecompileFailure("stack underflow at offset %d" % self.op.offset)

    def is_static(self, item) -> bool:
        return isinstance(item, (Mark, Null, BuildClass, CodeConst)) or (
            isinstance(item, FunctionValue) and not item.code.flags & CO_NEWLOCALS)

    def is_settled(self, k: int, item) -> bool:
        """In the form a node boundary needs: static, or named by its depth."""
        return self.is_static(item) or (type(item) is ast.Name
                                        and item.id == self.names.slot(k))

    def desc(self, k: int, item):
        if self.is_static(item):
            return self.t.static_key(item)
        if not self.is_settled(k, item):
            raise DecompileFailure("internal: unsettled slot %d" % k)
        return "v"

    def emit(self, stmt: ast.stmt) -> None:
        if self.op is not None and self.op.line is not None \
                and getattr(stmt, "lineno", None) is None:
            stmt.lineno = self.op.line
        self.out.append(stmt)

    def emit_all(self, stmts) -> None:
        for stmt in stmts:
            self.emit(stmt)

    def protected_depth(self) -> int:
        return len(self.guard_prefix) if self.guard else 0

    def home(self, k: int, keep=()) -> str:
        """Where to put the value of slot ``k``: its depth name when nothing else
        still reads that name, else a fresh temporary."""
        name = self.names.slot(k)
        if k < self.protected_depth():
            return self.names.temp()
        others = [x for j, x in enumerate(self.stack) if j != k] + list(keep)
        if mentions(others, name):
            return self.names.temp()
        return name

    def materialize(self, k: int, keep=()) -> None:
        """Evaluate slot ``k`` now into a name (its effects happen here)."""
        name = self.home(k, keep)
        self.evaluate(self.stack[k], name)
        self.stack[k] = load(name)

    def flush(self, keep=(), writes=(), upto: Optional[int] = None) -> None:
        """Evaluate, in stack order, every waiting value with possible effects (and
        reads of names about to be written), so a statement can run after them."""
        upto = len(self.stack) if upto is None else upto
        for k in range(upto):
            item = self.stack[k]
            if not self.t.is_pure(item) or (type(item) is ast.Name and item.id in writes):
                self.materialize(k, keep)

    def discard_stack(self, keep=()) -> None:
        """Run the effects of values a return or raise leaves behind."""
        for item in self.stack:
            if not self.t.is_pure(item):
                self.emit(ast.Expr(value=self.expr_of(item)))
        self.stack.clear()

    def ensure_pure(self, k: int) -> None:
        """Make stack item ``k`` (negative: from the top) safe to read twice."""
        index = len(self.stack) + k if k < 0 else k
        if not self.t.is_pure(self.stack[index]):
            self.flush(upto=index + 1)

    # -- turning stack values into expressions ---------------------------------------------

    def expr_of(self, item) -> ast.expr:
        """``item`` as an expression (placeholders that need statements get a temporary)."""
        if isinstance(item, Mark):
            return item.as_expr(self.names)
        if isinstance(item, FunctionValue):
            try:
                return self.m.value(item)
            except DecompileFailure:
                pass
        if isinstance(item, (InPlace, ClassValue, FunctionValue, ImportFromValue, ImportAttr)):
            name = self.names.temp()
            self.evaluate(item, name)
            return load(name)
        if isinstance(item, ImportValue):
            return self.import_call(item)
        if isinstance(item, Iterator):
            return call(self.names.builtin("iter"), self.expr_of(item.iterable))
        if isinstance(item, Converted):
            func = {ord("s"): "str", ord("r"): "repr", ord("a"): "ascii"}[item.conversion]
            return call(self.names.builtin(func), self.expr_of(item.value))
        if isinstance(item, Null) or isinstance(item, BuildClass):
            raise DecompileFailure("%s used as a value" % type(item).__name__)
        if isinstance(item, ast.Slice):
            # a slice object outside a subscript
            parts = [const(None) if p is None else p for p in (item.lower, item.upper, item.step)]
            return call(self.names.builtin("slice"), *parts)
        if isinstance(item, (ast.Tuple, ast.List)):
            item.elts = [self.expr_of(e) if isinstance(e, Placeholder) else e for e in item.elts]
        elif isinstance(item, ast.Call):
            item.args = [self.expr_of(a) if isinstance(a, Placeholder) else a for a in item.args]
        return self.m.value(item)

    def evaluate(self, item, name: str) -> None:
        """Statements that leave the value of ``item`` in ``name``."""
        if isinstance(item, InPlace):
            # `t = a; t += b` is exactly the in-place operator, on a plain name
            self.emit(assign(name, item.target))
            self.emit(ast.AugAssign(target=store_name(name), op=item.op, value=item.value))
        elif isinstance(item, FunctionValue):
            try:
                self.emit(assign(name, self.m.value(item)))
            except DecompileFailure:
                self.define(item, name)
        elif isinstance(item, ClassValue):
            self.define_class(item, name)
        elif isinstance(item, ImportFromValue):
            self.import_attr(self.module_expr(item.module), item.name, name)
        elif isinstance(item, ImportAttr):
            self.import_attr(item.module, item.name, name)
        else:
            self.emit(assign(name, self.expr_of(item)))

    def define(self, value: FunctionValue, name: str) -> None:
        """A function as a ``def`` named ``name`` (a temporary unless it is the
        function's own name). Defaults that are not a literal tuple (a value
        kept in a temporary) are set on the function object afterwards."""
        try:
            node = self.t.ctx.nested(value, ("def", []))
            late = []
        except DecompileFailure:
            bare = FunctionValue(value.code, closure=value.closure, lineno=value.lineno)
            node = self.t.ctx.nested(bare, ("def", []))
            late = [(field, getattr(value, attr_name)) for field, attr_name in (
                ("__defaults__", "defaults"), ("__kwdefaults__", "kwdefaults"),
                ("__annotations__", "annotations")) if getattr(value, attr_name) is not None]
        node.name = name
        self.emit(node)
        for field_name, expr in late:
            expr = self.expr_of(expr)
            if field_name == "__annotations__":
                expr = _annotations_dict(self.names, expr)
            self.emit(_set_attr(name, field_name, expr))
        if name != value.code.name:
            self.emit(_set_attr(name, "__name__", const(value.code.name)))
            qualname = getattr(value.code, "qualname", "") or ""
            if qualname:
                self.emit(_set_attr(name, "__qualname__", const(qualname)))

    def define_class(self, value: ClassValue, name: str) -> None:
        node = self.t.ctx.nested(value, ("class", []))
        node.name = name
        self.emit(node)
        self.emit(_set_attr(name, "__name__", const(value.name)))

    # -- imports ------------------------------------------------------------------------

    def import_call(self, module: ImportValue) -> ast.expr:
        """``__import__(...)`` as IMPORT_NAME calls it (after any names a pending
        ``from`` import already bound)."""
        if module.aliases:
            self.emit(ast.ImportFrom(module=module.name or None, names=module.aliases,
                                     level=module.level))
            module.aliases = []
        fromlist = module.fromlist
        return call(self.names.builtin("__import__"), const(module.name),
                    call(self.names.builtin("globals")), const(None),
                    const(fromlist), const(module.level))

    def module_expr(self, module: ImportValue) -> ast.expr:
        held = getattr(module, "fallback_name", None)
        if held is None:
            held = self.names.temp()
            self.emit(assign(held, self.import_call(module)))
            module.fallback_name = held
        return load(held)

    def import_attr(self, module: ast.expr, attr_name: str, name: str) -> None:
        """IMPORT_FROM: the attribute, else the submodule ``sys.modules`` holds,
        else ImportError."""
        sys_mod = call(self.names.builtin("__import__"), const("sys"))
        full = ast.BinOp(left=ast.BinOp(left=attr(module, "__name__"), op=ast.Add(),
                                        right=const(".")), op=ast.Add(), right=const(attr_name))
        submodule = ast.Subscript(value=attr(sys_mod, "modules"), slice=full, ctx=ast.Load())
        error = ast.Raise(exc=call(self.names.builtin("ImportError"),
                                   const("cannot import name %r" % attr_name)),
                          cause=const(None))
        inner = ast.Try(body=[assign(name, submodule)],
                        handlers=[_handler(ast.Tuple(elts=[self.names.builtin("AttributeError"),
                                                           self.names.builtin("KeyError")],
                                                     ctx=ast.Load()), None, [error])],
                        orelse=[], finalbody=[])
        self.emit(ast.Try(body=[assign(name, attr(module, attr_name))],
                          handlers=[_handler(self.names.builtin("AttributeError"), None, [inner])],
                          orelse=[], finalbody=[]))

    # -- delegation to the expression builder ------------------------------------------------

    def delegate(self, op) -> None:
        """Ops that only build an expression: the StackMachine's rules, with marks as
        values; if its rule refuses (a placeholder it cannot use), again on plain values."""
        n = _pops(op)
        if n is None:
            raise DecompileFailure("no fallback rule for %s" % op.name)
        self.need(n)
        self.unmark(n)
        if op.name != "CALL":
            # only a comprehension call wants the iterator as such; else iter() it
            # here, where the builtin cannot be shadowed
            for k in range(len(self.stack) - n, len(self.stack)):
                if isinstance(self.stack[k], Iterator):
                    self.stack[k] = self.expr_of(self.stack[k])
        snapshot = list(self.stack)
        try:
            self.m.step(op)
        except DecompileFailure:
            self.stack[:] = snapshot
            self.flush()
            self.unmark(n)
            self.m.step(op)
        if self.m.stmts:
            if not all(isinstance(stmt, ast.FunctionDef) for stmt in self.m.stmts):
                raise DecompileFailure("internal: %s wrote a statement" % op.name)
            # The defs a value needs just before it (a helper returning a code
            # object, a function passed on as it is made: objects.code_expr,
            # function_expr) run no code: they commute with what waits.
            for stmt in self.m.stmts:
                self.emit(stmt)
            self.m.stmts.clear()

    def unmark(self, n: int) -> None:
        """The top ``n`` items as values: marks become the expressions they stand for."""
        for k in range(len(self.stack) - n, len(self.stack)):
            if isinstance(self.stack[k], Mark):
                self.stack[k] = self.stack[k].as_expr(self.names)

    # -- leaving the node ------------------------------------------------------------------

    def settle(self, test: Optional[ast.expr] = None) -> Optional[ast.expr]:
        """Put every non-static slot into its depth name (values already evaluated).
        ``test`` (evaluated after) is saved first if it reads a name being reassigned."""
        assigns = [(k, item) for k, item in enumerate(self.stack)
                   if not self.is_settled(k, item)]
        if not assigns:
            return test
        targets = [self.names.slot(k) for k, _ in assigns]
        if test is not None and any(mentions(test, t) for t in targets):
            saved = self.names.temp()
            self.emit(assign(saved, test))
            test = load(saved)
        values = [self.expr_of(item) for _, item in assigns]
        clash = any(mentions(values[j], targets[i])
                    for i in range(len(targets)) for j in range(i + 1, len(targets)))
        if len(assigns) == 1 or not (clash or self.guard):
            for target, value in zip(targets, values):
                self.emit(assign(target, value))
        else:
            self.emit(ast.Assign(targets=[ast.Tuple(elts=[store_name(t) for t in targets],
                                                    ctx=ast.Store())],
                                 value=ast.Tuple(elts=values, ctx=ast.Load())))
        for k, _ in assigns:
            self.stack[k] = load(self.names.slot(k))
        return test

    def goto(self, index: int, items=None, blocks=None, cur_exc=_UNSET) -> Goto:
        """A transfer to the node at op ``index`` entered with ``items`` (settled)."""
        items = self.stack if items is None else items
        blocks = self.blocks if blocks is None else blocks
        cur_exc = self.cur_exc if cur_exc is _UNSET else cur_exc
        shape = tuple(self.desc(k, x) for k, x in enumerate(items))
        key = (index, shape, tuple(b.key for b in blocks), cur_exc)
        return Goto(self.node, self.t.node(key), "normal")

    def fall(self, index: int) -> bool:
        self.flush()
        self.settle()
        self.emit(self.goto(index))
        return True

    def fork(self, test: ast.expr, if_true: Goto, if_false: Goto) -> bool:
        self.emit(ast.If(test=test, body=[if_true], orelse=[if_false]))
        return True

    def branch(self, test: ast.expr, true_index: int, false_index: int) -> bool:
        """End with a two-way jump on ``test`` (already popped; evaluated last)."""
        self.flush(keep=[test])
        test = self.settle(test)
        return self.fork(test, self.goto(true_index), self.goto(false_index))


def _handler(type_expr, name, body) -> ast.ExceptHandler:
    return ast.ExceptHandler(type=type_expr, name=name, body=body)


def _annotations_dict(names: Names, value: ast.expr) -> ast.expr:
    """MAKE_FUNCTION's annotations: a dict, or (3.10+) a flat tuple of pairs."""
    pairs = call(names.builtin("zip"),
                 ast.Subscript(value=value, slice=ast.Slice(lower=None, upper=None,
                                                            step=const(2)), ctx=ast.Load()),
                 ast.Subscript(value=copy.deepcopy(value),
                               slice=ast.Slice(lower=const(1), upper=None, step=const(2)),
                               ctx=ast.Load()))
    is_tuple = call(names.builtin("isinstance"), copy.deepcopy(value), names.builtin("tuple"))
    return ast.IfExp(test=is_tuple, body=call(names.builtin("dict"), pairs),
                     orelse=copy.deepcopy(value))


def _set_attr(name: str, attr_name: str, value: ast.expr) -> ast.Assign:
    return ast.Assign(targets=[ast.Attribute(value=load(name), attr=attr_name, ctx=ast.Store())],
                      value=value)


def _pops(op) -> Optional[int]:
    """How many stack items an op the StackMachine handles consumes (None: not one)."""
    name, arg = op.name, op.arg
    if name in _POPS:
        return _POPS[name]
    if name in ("BUILD_TUPLE", "BUILD_LIST", "BUILD_SET", "BUILD_STRING", "BUILD_SLICE",
                "BUILD_TUPLE_UNPACK", "BUILD_LIST_UNPACK", "BUILD_SET_UNPACK",
                "BUILD_TUPLE_UNPACK_WITH_CALL", "BUILD_MAP_UNPACK",
                "BUILD_MAP_UNPACK_WITH_CALL"):
        return arg
    if name == "BUILD_MAP":
        return 2 * arg
    if name == "BUILD_CONST_KEY_MAP":
        return arg + 1
    if name == "FORMAT_VALUE":
        return 2 if arg[1] else 1
    if name == "CALL":
        return arg[0] + arg[2] + (arg[1] is None)
    if name == "CALL_FUNCTION_EX":
        return 1 + (arg[0] & 1) + arg[1]
    if name == "MAKE_FUNCTION":
        return 1 + bin((arg or 0) & 0xF).count("1")
    return None


_POPS = {
    "LOAD_CONST": 0, "LOAD_NAME": 0, "LOAD_GLOBAL": 0, "LOAD_FAST": 0, "LOAD_DEREF": 0,
    "LOAD_CLASSDEREF": 0, "PUSH_NULL": 0, "LOAD_BUILD_CLASS": 0,
    "LOAD_ATTR": 1, "LOAD_METHOD": 1, "UNARY_NEGATIVE": 1, "UNARY_POSITIVE": 1,
    "UNARY_NOT": 1, "UNARY_INVERT": 1, "GET_ITER": 1, "FORMAT_SIMPLE": 1,
    "CONVERT_VALUE": 1, "YIELD_VALUE": 1,
    "BINARY_OP": 2, "COMPARE_OP": 2, "BINARY_SUBSCR": 2, "FORMAT_WITH_SPEC": 2,
    "IMPORT_NAME": 2, "LOAD_SUPER_ATTR": 3, "LOAD_SUPER_METHOD": 3, "BINARY_SLICE": 3,
    "IMPORT_FROM": 0,
}


# -- rules: stack shuffles ------------------------------------------------------------------

def _shuffled(name: str, arg, items: list) -> list:
    """The stack after a ``COPY`` or ``SWAP`` (items are not copied; the older
    shuffles arrive in these two, ``normalize.stack_copies``)."""
    if arg is None or arg < 1 or len(items) < arg:
        raise DecompileFailure("%s below the stack" % name)
    if name == "COPY":
        return items + [items[-arg]]
    out = list(items)
    out[-1], out[-arg] = out[-arg], out[-1]
    return out


@handles("COPY", "SWAP")
def _shuffle(b, op):
    new = _shuffled(op.name, op.arg, b.stack)
    if _waiting(b, new) != _waiting(b, b.stack):
        # a value with effects would be reordered or copied: evaluate them all first
        b.flush()
        new = _shuffled(op.name, op.arg, b.stack)
    b.stack[:] = new


def _waiting(b, items) -> list:
    """Identities of the values whose evaluation is still pending, in stack order
    (an import and the names taken from it travel together)."""
    return [id(x) for x in items
            if not b.t.is_pure(x) and not isinstance(x, (ImportValue, ImportFromValue))]


# -- rules: loads -------------------------------------------------------------------------

@handles("LOAD_CLOSURE")
def _load_closure(b, op):
    # The cell itself: a closure tuple's item for MAKE_FUNCTION, or a value
    # passed on (Dynamo hands closure tuples to the code making resume functions).
    b.push(CellRef(op.arg))


@handles("LOAD_ASSERTION_ERROR")
def _load_assertion_error(b, op):
    b.push(b.names.builtin("AssertionError"))


@handles("LOAD_COMMON_CONSTANT")
def _load_common_constant(b, op):
    # (3.14+: the builtin itself, whatever the globals hold; the passes left its name)
    b.push(b.names.builtin(op.arg))


@handles("LOAD_LOCALS")
def _load_locals(b, op):
    b.push(call(b.names.builtin("locals")))


@handles("LOAD_FROM_DICT_OR_GLOBALS", "LOAD_FROM_DICT_OR_DEREF")
def _load_from_dict(b, op):
    b.need(1)
    b.ensure_pure(-1)
    mapping = b.expr_of(b.pop())
    key = const(op.arg)
    found = ast.Compare(left=key, ops=[ast.In()], comparators=[mapping])
    b.push(ast.IfExp(test=found, body=ast.Subscript(value=mapping, slice=const(op.arg),
                                                    ctx=ast.Load()), orelse=load(op.arg)))


@handles("IMPORT_NAME")
def _import_name(b, op):
    b.need(2)
    if all(isinstance(x, ast.Constant) for x in b.stack[-2:]):
        b.delegate(op)
        return
    b.unmark(2)
    fromlist = b.pop()
    level = b.pop()
    b.push(call(b.names.builtin("__import__"), const(op.arg), call(b.names.builtin("globals")),
                const(None), b.expr_of(fromlist), b.expr_of(level)))


@handles("IMPORT_FROM")
def _import_from(b, op):
    b.need(1)
    top = b.stack[-1]
    if isinstance(top, ImportValue) or (isinstance(top, ImportFromValue)
                                        and top.module.fromlist is None):
        module = top if isinstance(top, ImportValue) else top.module
        module.used = True
        b.delegate(op)
        return
    b.ensure_pure(-1)
    b.push(ImportAttr(b.expr_of(b.stack[-1]), op.arg))


@handles("LOAD_FAST_AND_CLEAR")
def _load_fast_and_clear(b, op):
    """3.12+ inlined comprehensions hide a local: save it (or "unbound") and unbind it."""
    saved = b.names.temp()
    name = op.arg
    b.emit(ast.Try(body=[assign(saved, load(name)),
                         ast.Delete(targets=[ast.Name(id=name, ctx=ast.Del())])],
                   handlers=[_handler(b.names.builtin("NameError"), None,
                                      [assign(saved, load(b.t.null_name()))])],
                   orelse=[], finalbody=[]))
    b.push(Mark("saved", saved, name))


# -- rules: statements ------------------------------------------------------------------

@handles("POP_TOP")
def _pop_top(b, op):
    item = b.pop()
    if isinstance(item, ImportValue) and (item.aliases or getattr(item, "used", False)):
        if item.aliases:
            b.flush()
            b.emit(ast.ImportFrom(module=item.name or None, names=item.aliases,
                                  level=item.level))
            item.aliases = []
        return
    if b.t.is_pure(item) and not (type(item) is ast.Name and item.id in b.t.fast_locals):
        return
    b.flush(keep=[item])
    b.emit(ast.Expr(value=b.expr_of(item)))


@handles("STORE_NAME", "STORE_GLOBAL", "STORE_FAST", "STORE_DEREF")
def _store_name(b, op):
    _store(b, op, 0, lambda parts: ast.Name(id=op.arg, ctx=ast.Store()), op.arg)


@handles("STORE_ATTR")
def _store_attr(b, op):
    _store(b, op, 1, lambda parts: ast.Attribute(value=parts[0], attr=op.arg, ctx=ast.Store()))


@handles("STORE_SUBSCR")
def _store_subscr(b, op):
    _store(b, op, 2, lambda parts: ast.Subscript(value=parts[0], slice=parts[1],
                                                 ctx=ast.Store()))


@handles("STORE_SLICE")
def _store_slice(b, op):
    def target(parts):
        obj, lower, upper = parts
        return ast.Subscript(value=obj, slice=_slice(lower, upper), ctx=ast.Store())
    _store(b, op, 3, target)


def _slice(lower, upper) -> ast.Slice:
    def none(n):
        return None if isinstance(n, ast.Constant) and n.value is None else n
    return ast.Slice(lower=none(lower), upper=none(upper), step=None)


def _store(b, op, nparts: int, make_target, name: Optional[str] = None) -> None:
    """``target = value`` where the target's own operands sit above the value
    (they are evaluated after it, as in the bytecode)."""
    b.need(nparts + 1)
    b.unmark(nparts)
    if any(isinstance(p, Placeholder) and not b.t.is_pure(p) for p in b.stack[-nparts:]
           if nparts):
        b.flush()
    parts = b.stack[len(b.stack) - nparts:]
    del b.stack[len(b.stack) - nparts:]
    value = b.pop()
    if name is not None and _store_without_statement(b, op, name, value):
        return
    b.flush(keep=[value] + parts, writes={name} if name else ())
    target = make_target([b.expr_of(p) for p in parts])
    stmt = _assignment(b, target, value, name)
    if stmt is not None:
        b.emit(stmt)


#: cells the compiler makes for a class body by itself
_CLASS_CELLS = ("__class__", "__classdict__")


def _store_without_statement(b, op, name: str, value) -> bool:
    """Stores that are not an assignment here: a class cell, the end of an
    inlined comprehension's saved local, one name of a ``from`` import."""
    if b.t.kind == "class" and (name in _CLASS_CELLS or (
            name in ("__classcell__", "__classdictcell__") and isinstance(value, CellRef)
            and value.name in _CLASS_CELLS)):
        return True     # the compiler sets these cells up again for the class we write
    if isinstance(value, Mark) and value.kind == "saved" and value.index == name:
        b.maybe_unbound.add(name)
        b.flush(writes={name})
        b.emit(assign(name, load(value.name)))
        b.emit(ast.If(test=ast.Compare(left=load(name), ops=[ast.Is()],
                                       comparators=[load(b.t.null_name())]),
                      body=[ast.Delete(targets=[ast.Name(id=name, ctx=ast.Del())])], orelse=[]))
        return True
    if isinstance(value, ImportFromValue) and not getattr(value.module, "fallback_name", None):
        from .expressions import store_import_from
        try:
            store_import_from(b.m, value, ast.Name(id=name, ctx=ast.Store()), op)
        except DecompileFailure:
            return False
        for stmt in b.m.stmts:
            b.emit(stmt)
        b.m.stmts.clear()
        return True
    return False


def _assignment(b, target, value, name) -> Optional[ast.stmt]:
    if isinstance(value, InPlace) and same_target(value.target, target):
        return ast.AugAssign(target=target, op=value.op, value=value.value)
    if name is not None and isinstance(value, (FunctionValue, ClassValue, ImportValue, ast.Call)):
        try:
            stmt = definition(b.m, target, value)
        except DecompileFailure:
            stmt = None
            if isinstance(value, FunctionValue) and value.code.name == name:
                b.define(value, name)       # its own name: a def, defaults set after
                return None
        if stmt is not None:
            return stmt
    return ast.Assign(targets=[target], value=b.expr_of(value))


@handles("DELETE_NAME", "DELETE_GLOBAL", "DELETE_FAST", "DELETE_DEREF")
def _delete_name(b, op):
    b.flush(writes={op.arg})
    b.emit(ast.Delete(targets=[ast.Name(id=op.arg, ctx=ast.Del())]))


@handles("DELETE_ATTR")
def _delete_attr(b, op):
    obj, = _operands(b, 1)
    b.emit(ast.Delete(targets=[ast.Attribute(value=obj, attr=op.arg, ctx=ast.Del())]))


@handles("DELETE_SUBSCR")
def _delete_subscr(b, op):
    obj, key = _operands(b, 2)
    b.emit(ast.Delete(targets=[ast.Subscript(value=obj, slice=key, ctx=ast.Del())]))


def _operands(b, n: int) -> list:
    """Pop the top ``n`` values for a statement, evaluating what waits below first."""
    b.need(n)
    b.unmark(n)
    if any(isinstance(p, Placeholder) for p in b.stack[-n:]):
        b.flush()
    items = b.stack[len(b.stack) - n:]
    del b.stack[len(b.stack) - n:]
    b.flush(keep=items)
    return [b.expr_of(x) for x in items]


@handles("UNPACK_SEQUENCE", "UNPACK_EX")
def _unpack(b, op):
    if op.name == "UNPACK_SEQUENCE":
        n, star = op.arg, None
    else:
        before, after = op.arg & 0xFF, op.arg >> 8
        n, star = before + 1 + after, before
    b.need(1)
    b.unmark(1)
    seq = b.pop()
    names = _following_stores(b, n)
    b.flush(keep=[seq], writes=set(names or ()))
    base = len(b.stack)
    if names:
        homes = names
    else:
        homes = [b.home(base + n - 1 - j, keep=[seq] + [load(x) for x in []]) for j in range(n)]
        homes = _distinct(b, homes)
    elts = [store_name(h) for h in homes]
    if star is not None:
        elts[star] = ast.Starred(value=elts[star], ctx=ast.Store())
    b.emit(ast.Assign(targets=[ast.Tuple(elts=elts, ctx=ast.Store())], value=b.expr_of(seq)))
    if names:
        b.i += n            # the stores are written above
        return
    for h in reversed(homes):
        b.push(load(h))


def _distinct(b, homes):
    seen = set()
    out = []
    for h in homes:
        if h in seen:
            h = b.names.temp()
        seen.add(h)
        out.append(h)
    return out


def _following_stores(b, n: int) -> Optional[List[str]]:
    """The names of ``n`` plain name stores right after the current op, if so
    (then ``a, b = x`` is exactly the unpack and the stores)."""
    ops = b.t.ops
    names = []
    for k in range(b.i + 1, b.i + 1 + n):
        if k >= len(ops) or k in b.t.leaders:
            return None
        op = ops[k]
        if op.name not in ("STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF"):
            return None
        if op.name not in NEUTRAL and b.handler_state(op) != b.guard_state:
            return None
        if op.arg in ("__classcell__", "__classdictcell__"):
            return None
        names.append(op.arg)
    return names


# -- rules: building containers in place ------------------------------------------------------

_ADD_METHODS = {"LIST_APPEND": (ast.List, "append"), "SET_ADD": (ast.Set, "add"),
                "LIST_EXTEND": (ast.List, "extend"), "SET_UPDATE": (ast.Set, "update"),
                "DICT_UPDATE": (ast.Dict, "update"), "DICT_MERGE": (ast.Dict, "update")}


@handles("LIST_APPEND", "SET_ADD", "LIST_EXTEND", "SET_UPDATE", "DICT_UPDATE", "DICT_MERGE")
def _add_to(b, op):
    display, method = _ADD_METHODS[op.name]
    b.need(op.arg + 1)
    b.unmark(1)
    target = b.stack[-op.arg - 1]
    if type(target) is display and all(b.t.is_pure(x) for x in b.stack[-op.arg:-1]):
        b.m.step(op)    # still a display being written: the value joins it
        return
    value = b.pop()
    b.flush(keep=[value])
    holder = b.expr_of(b.stack[-op.arg])
    b.emit(ast.Expr(value=call(attr(holder, method), b.expr_of(value))))


@handles("MAP_ADD")
def _map_add(b, op):
    b.need(op.arg + 2)
    b.unmark(2)
    target = b.stack[-op.arg - 2]
    if type(target) is ast.Dict and all(b.t.is_pure(x) for x in b.stack[-op.arg - 1:-2]):
        b.m.step(op)
        return
    value = b.pop()
    key = b.pop()
    b.flush(keep=[key, value])
    if not b.t.is_pure(key):
        # `d[k] = v` evaluates v first; the key was computed first
        saved = b.names.temp()
        b.evaluate(key, saved)
        key = load(saved)
    holder = b.expr_of(b.stack[-op.arg])
    b.emit(ast.Assign(targets=[ast.Subscript(value=holder, slice=b.expr_of(key),
                                             ctx=ast.Store())], value=b.expr_of(value)))


@handles("BUILD_STRING")
def _build_string(b, op):
    """An f-string from its pieces; a piece already held in a name is formatted
    as ``{name}`` (formatting a str with no spec gives it back)."""
    b.need(op.arg)
    b.unmark(op.arg)
    parts = b.stack[len(b.stack) - op.arg:]
    del b.stack[len(b.stack) - op.arg:]
    values = []
    for part in parts:
        if isinstance(part, ast.JoinedStr):
            values.extend(part.values)
        elif isinstance(part, ast.Constant) and isinstance(part.value, str):
            values.append(part)
        else:
            values.append(_as_field(b.expr_of(part)))
    b.push(ast.JoinedStr(values=values))


def _as_field(value: ast.expr) -> ast.FormattedValue:
    return ast.FormattedValue(value=value, conversion=-1, format_spec=None)


@handles("FORMAT_VALUE", "FORMAT_WITH_SPEC")
def _format_value(b, op):
    has_spec = op.name == "FORMAT_WITH_SPEC" or op.arg[1]
    if has_spec:
        b.need(2)
        spec = b.stack[-1]
        if not isinstance(spec, (ast.JoinedStr, ast.Constant)):
            b.unmark(1)
            b.stack[-1] = ast.JoinedStr(values=[_as_field(b.expr_of(b.stack[-1]))])
    b.delegate(op)


@handles("LIST_TO_TUPLE")
def _list_to_tuple(b, op):
    b.need(1)
    if type(b.stack[-1]) is ast.List:
        b.m.step(op)
        return
    b.unmark(1)
    b.push(call(b.names.builtin("tuple"), b.expr_of(b.pop())))


# -- rules: control flow ------------------------------------------------------------------------

@handles("JUMP")
def _jump(b, op):
    return b.fall(op.target.index)


@handles("POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE", "POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE")
def _pop_jump(b, op):
    b.need(1)
    b.unmark(1)
    b.flush(upto=len(b.stack) - 1)
    test = b.expr_of(b.pop())
    if op.name.endswith("NONE"):
        compare = ast.IsNot() if op.name.endswith("NOT_NONE") else ast.Is()
        test = ast.Compare(left=test, ops=[compare], comparators=[const(None)])
    target, nxt = op.target.index, b.i + 1
    if op.name == "POP_JUMP_IF_FALSE":
        return b.branch(test, nxt, target)
    return b.branch(test, target, nxt)


@handles("JUMP_IF_TRUE_OR_POP", "JUMP_IF_FALSE_OR_POP")
def _jump_or_pop(b, op):
    b.need(1)
    b.flush()
    b.settle()
    test = b.expr_of(b.stack[-1])
    stay = b.goto(op.target.index)
    go_on = b.goto(b.i + 1, items=b.stack[:-1])
    if op.name == "JUMP_IF_TRUE_OR_POP":
        return b.fork(test, stay, go_on)
    return b.fork(test, go_on, stay)


@handles("FOR_ITER")
def _for_iter(b, op):
    b.need(1)
    b.flush()
    b.settle()
    n = len(b.stack)
    item = b.names.slot(n)
    end = load(b.t.null_name())
    b.emit(assign(item, call(b.names.builtin("next"), b.expr_of(b.stack[-1]), end)))
    done = b.goto(op.target.index, items=b.stack[:-1])
    more = b.goto(b.i + 1, items=b.stack + [load(item)])
    is_end = ast.Compare(left=load(item), ops=[ast.Is()], comparators=[load(b.t.null_name())])
    return b.fork(is_end, done, more)


@handles("RETURN_VALUE")
def _return(b, op):
    value = b.pop()
    b.discard_stack()
    if b.t.kind == "class":
        b.emit(Exit())      # a class body returns its __class__ cell (or None)
    elif b.t.kind == "module":
        if not b.t.is_pure(value):
            b.emit(ast.Expr(value=b.expr_of(value)))
        b.emit(Exit())
    elif b.t.async_generator:
        if not b.t.is_pure(value):
            b.emit(ast.Expr(value=b.expr_of(value)))
        b.emit(ast.Return(value=None))
    else:
        b.emit(ast.Return(value=b.expr_of(value)))
    return True


@handles("RAISE_VARARGS")
def _raise(b, op):
    b.need(op.arg)
    b.unmark(op.arg)
    args = b.stack[len(b.stack) - op.arg:]
    del b.stack[len(b.stack) - op.arg:]
    b.discard_stack()
    exprs = [b.expr_of(a) for a in args]
    if op.arg == 0:
        exc = load(b.cur_exc) if b.cur_exc else None
        b.emit(Reraise(exc, b.cur_exc))
    else:
        b.emit(ast.Raise(exc=exprs[0], cause=exprs[1] if op.arg == 2 else None))
    return True


@handles("END", "SEND", "YIELD_FROM", "GET_AWAITABLE", "GET_YIELD_FROM_ITER", "GET_ANEXT",
         "CLEANUP_THROW", "END_SEND", "RETURN_GENERATOR", "EXTENDED_ARG")
def _unsupported(b, op):
    raise DecompileFailure("%s outside the shape it has in compiled code (offset %d)"
                           % (op.name, op.offset))


@handles("NOP", "STOPITERATION_ERROR", "ASYNC_GEN_WRAP")
def _identity(b, op):
    """No effect here: 3.12's StopIteration guard is Python's own for generators;
    async generators wrap what they yield themselves."""


# -- rules: generators and coroutines ------------------------------------------------------------

@handles("AWAIT")
def _await(b, op):
    b.need(1)
    b.unmark(1)
    b.push(ast.Await(value=b.expr_of(b.pop())))


@handles("YIELD_FROM_ITER")
def _yield_from(b, op):
    b.need(1)
    b.unmark(1)
    b.push(ast.YieldFrom(value=b.expr_of(b.pop())))


@handles("ANEXT_AWAIT")
def _anext_await(b, op):
    b.need(1)
    b.ensure_pure(-1)
    aiter = b.expr_of(b.stack[-1])
    anext = call(attr(call(b.names.builtin("type"), aiter), "__anext__"), copy.copy(aiter))
    b.push(ast.Await(value=anext))


@handles("GET_AITER")
def _get_aiter(b, op):
    b.need(1)
    b.ensure_pure(-1)
    obj = b.expr_of(b.pop())
    b.push(call(attr(call(b.names.builtin("type"), obj), "__aiter__"), copy.copy(obj)))


@handles("INTRINSIC_1")
def _intrinsic_1(b, op):
    b.need(1)
    b.unmark(1)
    name = op.arg
    if name == "INTRINSIC_ASYNC_GEN_WRAP":
        return
    if name == "INTRINSIC_TYPEALIAS":
        b.push(_type_alias(b, b.pop()))
        return
    typing = call(b.names.builtin("__import__"), const("typing"))
    value = b.expr_of(b.pop())
    if name in ("INTRINSIC_TYPEVAR", "INTRINSIC_PARAMSPEC"):
        kind = "TypeVar" if name == "INTRINSIC_TYPEVAR" else "ParamSpec"
        node = call(attr(typing, kind), value)
        node.keywords = [ast.keyword(arg="infer_variance", value=const(True))]
        b.push(node)
    elif name == "INTRINSIC_TYPEVARTUPLE":
        b.push(call(attr(typing, "TypeVarTuple"), value))
    elif name == "INTRINSIC_SUBSCRIPT_GENERIC":
        b.push(ast.Subscript(value=attr(typing, "Generic"),
                             slice=ast.Tuple(elts=[ast.Starred(value=value, ctx=ast.Load())],
                                             ctx=ast.Load()), ctx=ast.Load()))
    else:
        raise DecompileFailure("intrinsic %s has no fallback form" % name)


def _type_alias(b, args) -> ast.expr:
    """``type X = value`` (3.12+): (name, None, function computing the value) -> the alias.
    Written as the statement itself, so the value stays lazy: the function's
    expression when it is one, else a call of the function."""
    from .astcompat import TypeAlias, make
    if not (isinstance(args, ast.Tuple) and len(args.elts) == 3):
        raise DecompileFailure("type alias arguments not understood")
    name, params, compute = args.elts
    if not (isinstance(name, ast.Constant) and isinstance(params, ast.Constant)
            and params.value is None and isinstance(compute, FunctionValue)):
        raise DecompileFailure("generic type alias in unstructured code")
    b.flush()
    body = b.t.ctx.nested(compute, ("def", [])).body
    if len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None:
        value = body[0].value
    else:
        held = b.names.fresh("alias_%s" % name.value)
        b.t.keep.add(held)      # the alias reads it whenever its value is asked for
        b.define(compute, held)
        value = call(load(held))
    b.emit(make(TypeAlias, name=store_name(name.value), type_params=[], value=value))
    return load(name.value)


@handles("INTRINSIC_2")
def _intrinsic_2(b, op):
    if op.arg == "INTRINSIC_PREP_RERAISE_STAR":
        return _prep_reraise_star(b, op)
    if op.arg in ("INTRINSIC_TYPEVAR_WITH_BOUND", "INTRINSIC_TYPEVAR_WITH_CONSTRAINTS"):
        return _typevar_with(b, op)
    if op.arg != "INTRINSIC_SET_FUNCTION_TYPE_PARAMS":
        raise DecompileFailure("intrinsic %s has no fallback form" % op.arg)
    b.need(2)
    b.unmark(2)
    params = b.pop()
    b.flush(keep=[params])
    b.ensure_pure(-1)
    func = b.expr_of(b.stack[-1])
    if isinstance(b.stack[-1], Placeholder):
        b.materialize(len(b.stack) - 1)
        func = b.expr_of(b.stack[-1])
    b.emit(ast.Assign(targets=[ast.Attribute(value=func, attr="__type_params__",
                                             ctx=ast.Store())], value=b.expr_of(params)))


def _typevar_with(b, op):
    """``T: bound`` / ``T: (a, b)``: the interpreter evaluates the bound lazily; here
    it is evaluated when the type variable is made (a documented difference)."""
    b.need(2)
    b.unmark(2)
    compute = b.pop()
    name = b.expr_of(b.pop())
    value = call(b.expr_of(compute))
    typing = call(b.names.builtin("__import__"), const("typing"))
    node = call(attr(typing, "TypeVar"), name)
    if op.arg == "INTRINSIC_TYPEVAR_WITH_BOUND":
        node.keywords = [ast.keyword(arg="bound", value=value)]
    else:
        node.args.append(ast.Starred(value=value, ctx=ast.Load()))
    node.keywords.append(ast.keyword(arg="infer_variance", value=const(True)))
    b.push(node)


@handles("SETUP_ANNOTATIONS")
def _setup_annotations(b, op):
    b.flush()
    missing = ast.Compare(left=const("__annotations__"), ops=[ast.NotIn()],
                          comparators=[call(b.names.builtin("locals"))])
    b.emit(ast.If(test=missing, body=[assign("__annotations__", ast.Dict(keys=[], values=[]))],
                  orelse=[]))


@handles("PRINT_EXPR")
def _print_expr(b, op):
    value, = _operands(b, 1)
    hook = attr(call(b.names.builtin("__import__"), const("sys")), "displayhook")
    b.emit(ast.Expr(value=call(hook, value)))
    _intrinsic_result(b, op)


def _intrinsic_result(b, op) -> None:
    """3.12+ writes these as CALL_INTRINSIC_1, which leaves a result (None) behind."""
    if op.extra is not None:
        b.push(const(None))


@handles("IMPORT_STAR")
def _import_star(b, op):
    b.need(1)
    if not isinstance(b.stack[-1], ImportValue):
        raise DecompileFailure("import * from a computed module")
    b.flush(upto=len(b.stack) - 1)
    b.m.step(op)
    for stmt in b.m.stmts:
        b.emit(stmt)
    b.m.stmts.clear()
    _intrinsic_result(b, op)


# -- rules: exceptions, 3.11 style (also the shape every version's handlers enter with) ----------

@handles("PUSH_EXC_INFO")
def _push_exc_info(b, op):
    b.need(1)
    exc = b.pop()
    if isinstance(exc, Mark) and exc.kind == "exc":
        holder = exc.name
    else:
        holder = b.names.temp()
        b.names.holders.add(holder)
        b.evaluate(exc, holder)
        exc = load(holder)
    b.push(Mark("prev", b.cur_exc))
    b.push(exc)
    b.cur_exc = holder


@handles("POP_EXCEPT")
def _pop_except(b, op):
    b.need(1)
    top = b.pop()
    if isinstance(top, Mark) and top.kind == "prev":
        b.cur_exc = top.name
        return
    if isinstance(top, Mark) and top.kind == "old":
        b.need(2)
        del b.stack[-2:]
        if not b.blocks or b.blocks[-1].kind != "X":
            raise DecompileFailure("POP_EXCEPT outside an except handler block")
        b.cur_exc = b.blocks.pop().prev
        return
    raise DecompileFailure("POP_EXCEPT without saved exception state (offset %d)" % op.offset)


@handles("CHECK_EXC_MATCH")
def _check_exc_match(b, op):
    b.need(2)
    b.unmark(1)
    wanted = b.pop()
    b.ensure_pure(-1)
    b.push(call(b.names.builtin("isinstance"), b.expr_of(b.stack[-1]), b.expr_of(wanted)))


@handles("RERAISE")
def _reraise(b, op):
    b.need(1)
    top = b.pop()
    if isinstance(top, Mark) and top.kind == "exctype":
        b.need(2)
        del b.stack[-2:]
        exc = load(top.name)
        b.discard_stack()
    else:
        b.discard_stack()
        exc = b.expr_of(top)
    b.emit(Reraise(exc, exc.id if isinstance(exc, ast.Name) else None))
    return True


@handles("WITH_EXCEPT_START")
def _with_except_start(b, op):
    """``exit(type(e), e, e.__traceback__)``; the bound ``__exit__`` waits below
    the exception state (3 saved + 3 caught values up to 3.10; lasti, saved, caught after)."""
    top = b.stack[-1] if b.stack else None
    if isinstance(top, Mark) and top.kind == "exctype":
        b.need(7)
        held, below = load(top.name), 7
    else:
        b.need(4)
        b.ensure_pure(-1)
        held, below = b.expr_of(b.stack[-1]), 4
    b.ensure_pure(-below)
    exit_fn = b.expr_of(b.stack[-below])
    b.push(call(exit_fn, call(b.names.builtin("type"), held), copy.copy(held),
                attr(copy.copy(held), "__traceback__")))


@handles("BEFORE_WITH", "BEFORE_ASYNC_WITH")
def _before_with(b, op):
    _enter(b, "a" if op.name == "BEFORE_ASYNC_WITH" else "")


def _enter(b, prefix: str) -> None:
    """[mgr] -> [bound __exit__, __enter__()]: looked up on the type and bound as
    the interpreter does (``__enter__`` first, but for 3.8's ``async with`` and
    3.14's both; an attribute that is no descriptor, a mock's say, is used as it is)."""
    b.need(1)
    b.unmark(1)
    b.flush()
    mgr = b.expr_of(b.pop())
    special = load(_special_helper(b, prefix))
    enter = b.names.temp()
    exit_lookup = call(copy.copy(special), copy.copy(mgr), const("__%sexit__" % prefix))
    if (prefix and b.t.table.aexit_looked_up_first) or (not prefix and b.t.table.exit_looked_up_first):
        held = b.names.temp()
        b.emit(assign(held, exit_lookup))
        exit_lookup = load(held)
    b.emit(assign(enter, call(special, mgr, const("__%senter__" % prefix))))
    b.push(exit_lookup)
    b.push(call(load(enter)))


def _special_helper(b, prefix: str) -> str:
    """A local function doing ``_PyObject_LookupSpecial``: the name from the
    type's MRO, bound if it is a descriptor; missing, the error BEFORE_WITH
    (3.11+) or SETUP_WITH raises."""
    names = b.names
    key = ("special", prefix)
    if key in names.memo:
        return names.memo[key]
    if b.t.table.special_lookup_error == "AttributeError":
        error = "AttributeError", "name"
    else:
        protocol = "asynchronous context manager" if prefix else "context manager"
        error = "TypeError", ("\"'%%s' object does not support the %s protocol\" %% t(obj).__name__"
                              % protocol)
        if b.t.table.special_lookup_names_missing:
            # 3.14+ names the method it missed
            error = "TypeError", ("\"'%%s' object does not support the %s protocol (missed %%s "
                                  "method)\" %% (t(obj).__name__, name)" % protocol)
    defaults = {"t": "type", "h": "hasattr", "e": error[0]}
    for alias in defaults.values():
        names.builtin(alias)            # the aliases go first in the prologue
    helper = names.named(key, "special" if not prefix else "aspecial")
    text = """
def HELPER(obj, name, t=T, h=H, e=E):
    for k in t(obj).__mro__:
        if name in k.__dict__:
            found = k.__dict__[name]
            if h(t(found), '__get__'):
                return t(found).__get__(found, obj, t(obj))
            return found
    raise e(%s)
""" % error[1]
    tree = ast.parse(text).body[0]
    tree.name = helper
    tree.args.defaults = [names.builtin(defaults[k]) for k in ("t", "h", "e")]
    names.prologue.append(tree)
    return helper


@handles("END_ASYNC_FOR")
def _end_async_for(b, op):
    """StopAsyncIteration ends the loop (dropping the iterator); anything else is re-raised."""
    top = b.stack[-1] if b.stack else None
    if isinstance(top, Mark) and top.kind == "exctype":
        held = load(top.name)
        if not b.blocks or b.blocks[-1].kind != "X":
            raise DecompileFailure("END_ASYNC_FOR outside an except handler block")
        block = b.blocks.pop()
        del b.stack[block.level - 1:]
        b.cur_exc = block.prev
    else:
        b.need(2)
        b.unmark(1)
        held = b.expr_of(b.pop())
        b.pop()
    b.flush()
    stop = call(b.names.builtin("isinstance"), held, b.names.builtin("StopAsyncIteration"))
    b.emit(ast.If(test=ast.UnaryOp(op=ast.Not(), operand=stop),
                  body=[Reraise(copy.copy(held), held.id if isinstance(held, ast.Name) else None)],
                  orelse=[]))


@handles("CHECK_EG_MATCH")
def _check_eg_match(b, op):
    """except*: split the group; [eg, type] -> [rest, match] (match None: no match)."""
    b.need(2)
    b.unmark(2)
    wanted = b.pop()
    b.ensure_pure(-1)
    group = b.expr_of(b.pop())
    wanted_name = b.names.temp()
    b.flush(keep=[wanted])
    b.emit(assign(wanted_name, b.expr_of(wanted)))
    match, rest = b.names.temp(), b.names.temp()
    names = b.names
    is_group = call(names.builtin("isinstance"), group, names.builtin("BaseExceptionGroup"))
    split = ast.Assign(targets=[ast.Tuple(elts=[store_name(match), store_name(rest)],
                                          ctx=ast.Store())],
                       value=call(attr(copy.copy(group), "split"), load(wanted_name)))
    wrapped = call(names.builtin("BaseExceptionGroup"), const(""),
                   ast.List(elts=[copy.copy(group)], ctx=ast.Load()))
    naked = [assign(match, wrapped),
             _set_attr(match, "__traceback__", attr(copy.copy(group), "__traceback__")),
             assign(rest, const(None))]
    nothing = [assign(match, const(None)), assign(rest, copy.copy(group))]
    is_naked = call(names.builtin("isinstance"), copy.copy(group), load(wanted_name))
    b.emit(ast.If(test=is_group, body=[split],
                  orelse=[ast.If(test=is_naked, body=naked, orelse=nothing)]))
    b.emit(ast.If(test=ast.Compare(left=load(match), ops=[ast.Is()], comparators=[const(None)]),
                  body=[assign(rest, copy.copy(group))], orelse=[]))
    b.push(load(rest))
    b.push(load(match))


@handles("PREP_RERAISE_STAR")
def _prep_reraise_star(b, op):
    """except*'s exit: what to raise from the original group and what the clauses
    raised (CPython's ``_PyExc_PrepReraiseStar``, written out)."""
    b.need(2)
    b.unmark(2)
    raised = b.pop()
    b.ensure_pure(-1)
    orig = b.expr_of(b.pop())
    b.flush(keep=[raised])
    out = b.names.temp()
    excs = b.names.temp()
    b.emit(assign(excs, b.expr_of(raised)))
    for stmt in _reraise_star_code(b.names, orig, excs, out):
        b.emit(stmt)
    b.push(load(out))


def _reraise_star_code(names, orig: ast.expr, excs: str, out: str) -> List[ast.stmt]:
    """Statements computing ``_PyExc_PrepReraiseStar(orig, excs)`` into ``out``."""
    orig_name = names.temp()
    leaves, todo, kept, new, e, x = (names.temp() for _ in range(6))
    b_ = names.builtin
    text = f"""
{orig_name} = ORIG
if not {excs}:
    {out} = None
elif not ISINSTANCE({orig_name}, BASEGROUP):
    {out} = {excs}[0]
else:
    {kept} = []
    {new} = []
    for {e} in {excs}:
        if {e} is None:
            continue
        if (({e}.__notes__ if HASATTR({e}, '__notes__') else None)
                is ({orig_name}.__notes__ if HASATTR({orig_name}, '__notes__') else None)
                and {e}.__traceback__ is {orig_name}.__traceback__
                and {e}.__cause__ is {orig_name}.__cause__
                and {e}.__context__ is {orig_name}.__context__):
            {kept}.append({e})
        else:
            {new}.append({e})
    {leaves} = SET()
    {todo} = LIST({kept})
    while {todo}:
        {x} = {todo}.pop()
        if ISINSTANCE({x}, BASEGROUP):
            {todo}.extend({x}.exceptions)
        else:
            {leaves}.add(ID({x}))
    {x} = {orig_name}.split(lambda {e}, l={leaves}, i=ID: i({e}) in l)[0] if {leaves} else None
    if {x} is not None:
        {new}.append({x})
    if not {new}:
        {out} = None
    elif LEN({new}) == 1:
        {out} = {new}[0]
    else:
        {out} = BASEGROUP('', {new})
"""
    tree = ast.parse(text)
    replace = {"ORIG": orig, "ISINSTANCE": b_("isinstance"), "BASEGROUP": b_("BaseExceptionGroup"),
               "HASATTR": b_("hasattr"), "SET": b_("set"), "LIST": b_("list"), "ID": b_("id"),
               "LEN": b_("len")}

    class Fill(ast.NodeTransformer):
        def visit_Name(self, node):
            if node.id in replace:
                return copy.deepcopy(replace[node.id])
            return node
    tree = Fill().visit(tree)
    return tree.body


# -- rules: 3.8-3.10's block stack ---------------------------------------------------------
# A SETUP_* op pushes an "F" block (an exception unwinds the stack to its level
# and jumps to its handler, pushing the saved exception state and the caught
# exception: 3 + 3 values, here marks); POP_BLOCK pops it; the handler runs
# under an "X" block that POP_EXCEPT pops. 3.8 also runs ``finally`` bodies as
# subroutines: BEGIN_FINALLY pushes NULL, CALL_FINALLY a return address, and
# END_FINALLY jumps back, re-raises or goes on according to what it finds.

@handles("SETUP_FINALLY")
def _setup_finally(b, op):
    b.blocks.append(Block("F", len(b.stack), op.target.index))


@handles("SETUP_WITH", "SETUP_ASYNC_WITH")
def _setup_with(b, op):
    if op.name == "SETUP_WITH":
        _enter(b, "")
    b.need(1)
    entered = b.pop()
    b.blocks.append(Block("F", len(b.stack), op.target.index))
    b.push(entered)


@handles("POP_BLOCK")
def _pop_block(b, op):
    if not b.blocks or b.blocks[-1].kind != "F":
        raise DecompileFailure("POP_BLOCK without a block (offset %d)" % op.offset)
    b.blocks.pop()


@handles("BEGIN_FINALLY")
def _begin_finally(b, op):
    b.push(Null())


@handles("CALL_FINALLY")
def _call_finally(b, op):
    b.push(Mark("addr", index=b.i + 1))
    return b.fall(op.target.index)


@handles("END_FINALLY")
def _end_finally(b, op):
    b.need(1)
    top = b.pop()
    if isinstance(top, Null):
        return False
    if isinstance(top, Mark) and top.kind == "addr":
        return b.fall(top.index)
    if isinstance(top, Mark) and top.kind == "exctype":
        b.need(2)
        del b.stack[-2:]
        b.discard_stack()
        b.emit(Reraise(load(top.name), top.name))
        return True
    raise DecompileFailure("END_FINALLY on an unknown value (offset %d)" % op.offset)


@handles("POP_FINALLY")
def _pop_finally(b, op):
    kept = b.pop() if op.arg else None
    b.need(1)
    top = b.pop()
    if isinstance(top, Mark) and top.kind == "exctype":
        b.need(5)
        del b.stack[-5:]
        if not b.blocks or b.blocks[-1].kind != "X":
            raise DecompileFailure("POP_FINALLY outside an except handler block")
        b.cur_exc = b.blocks.pop().prev
    elif not (isinstance(top, Null) or (isinstance(top, Mark) and top.kind == "addr")):
        raise DecompileFailure("POP_FINALLY on an unknown value (offset %d)" % op.offset)
    if op.arg:
        b.push(kept)


@handles("WITH_CLEANUP_START")
def _with_cleanup_start(b, op):
    """3.8: call ``__exit__`` with None x3 (normal exit, NULL on top) or with the
    exception; the exception case moves the saved state down over the exit."""
    b.need(2)
    top = b.stack[-1]
    if isinstance(top, Null):
        b.pop()
        b.ensure_pure(-1)
        exit_fn = b.expr_of(b.pop())
        b.push(Null())
        b.push(const(None))
        b.push(call(exit_fn, const(None), const(None), const(None)))
        return
    if not (isinstance(top, Mark) and top.kind == "exctype"):
        raise DecompileFailure("WITH_CLEANUP_START on an unknown value (offset %d)" % op.offset)
    b.need(7)
    b.ensure_pure(-7)
    held = load(top.name)
    exit_fn = b.expr_of(b.stack[-7])
    res = call(exit_fn, call(b.names.builtin("type"), held), copy.copy(held),
               attr(copy.copy(held), "__traceback__"))
    b.stack[-7:] = b.stack[-6:-3] + [Null()] + b.stack[-3:] + [Mark("exctype", top.name), res]
    if not b.blocks or b.blocks[-1].kind != "X":
        raise DecompileFailure("WITH_CLEANUP_START outside an except handler block")
    last = b.blocks[-1]
    b.blocks[-1] = Block("X", last.level - 1, last.target, last.prev)


@handles("WITH_CLEANUP_FINISH")
def _with_cleanup_finish(b, op):
    """3.8: a true ``__exit__`` result swallows the exception (two ways on)."""
    b.need(2)
    b.unmark(1)
    res = b.pop()
    exc = b.pop()
    if isinstance(exc, ast.Constant):
        if not b.t.is_pure(res):
            b.flush()
            b.emit(ast.Expr(value=b.expr_of(res)))
        return False
    if not (isinstance(exc, Mark) and exc.kind == "exctype"):
        raise DecompileFailure("WITH_CLEANUP_FINISH on an unknown value (offset %d)" % op.offset)
    b.flush(keep=[res])
    test = b.settle(b.expr_of(res))
    block = b.blocks[-1]
    swallow = b.goto(b.i + 1, items=b.stack[:block.level] + [Null()], blocks=b.blocks[:-1],
                     cur_exc=block.prev)
    return b.fork(test, swallow, b.goto(b.i + 1))


@handles("EXC_MATCH_POP")
def _exc_match_pop(b, op):
    b.need(2)
    wanted = b.pop()
    b.push(_exc_match(b, b.pop(), wanted))


@handles("JUMP_IF_NOT_EXC_MATCH")
def _jump_if_not_exc_match(b, op):
    b.need(2)
    wanted = b.pop()
    test = _exc_match(b, b.pop(), wanted)
    return b.branch(test, b.i + 1, op.target.index)


def _exc_match(b, caught, wanted) -> ast.expr:
    """Whether the caught exception (its type on the stack) matches ``wanted``."""
    wanted_expr = b.expr_of(wanted.as_expr(b.names) if isinstance(wanted, Mark) else wanted)
    if isinstance(caught, Mark) and caught.kind in ("exctype", "exc"):
        return call(b.names.builtin("isinstance"), load(caught.name), wanted_expr)
    return call(b.names.builtin("issubclass"), b.expr_of(caught), wanted_expr)


# -- rules: match statements (3.10+) -------------------------------------------------------
# The class and mapping tests are written as one-case ``match`` statements:
# exactly the interpreter's own test, __match_args__ and all.

_SEQUENCE_FLAG, _MAPPING_FLAG = 1 << 5, 1 << 6


@handles("GET_LEN")
def _get_len(b, op):
    b.need(1)
    b.ensure_pure(-1)
    b.push(call(b.names.builtin("len"), b.expr_of(b.stack[-1])))


@handles("MATCH_MAPPING", "MATCH_SEQUENCE")
def _match_kind(b, op):
    b.need(1)
    b.ensure_pure(-1)
    flag = _MAPPING_FLAG if op.name == "MATCH_MAPPING" else _SEQUENCE_FLAG
    flags = attr(call(b.names.builtin("type"), b.expr_of(b.stack[-1])), "__flags__")
    b.push(call(b.names.builtin("bool"), ast.BinOp(left=flags, op=ast.BitAnd(),
                                                   right=const(flag))))


@handles("MATCH_CLASS")
def _match_class(b, op):
    b.need(3)
    b.unmark(3)
    names = b.stack[-1]
    if not (isinstance(names, ast.Constant) and isinstance(names.value, tuple)):
        raise DecompileFailure("MATCH_CLASS with computed attribute names")
    b.flush()
    del b.stack[-1]
    cls = b.expr_of(b.pop())
    keeps_subject = b.t.table.match_pushes_bool
    subject = b.expr_of(b.stack[-1]) if keeps_subject else b.expr_of(b.pop())
    if not isinstance(cls, ast.Name):
        held = b.names.temp()
        b.emit(assign(held, cls))
        cls = load(held)
    captures = [b.names.temp() for _ in range(op.arg + len(names.value))]
    pattern = ast.MatchClass(cls=cls, patterns=[_capture(c) for c in captures[:op.arg]],
                             kwd_attrs=list(names.value),
                             kwd_patterns=[_capture(c) for c in captures[op.arg:]])
    out = b.names.temp()
    found = ast.Tuple(elts=[load(c) for c in captures], ctx=ast.Load())
    b.emit(_one_case_match(subject, pattern, assign(out, found), assign(out, const(None))))
    if keeps_subject:
        # 3.10: [subject, cls, names] -> [attributes or subject, found]
        b.stack[-1] = ast.IfExp(test=ast.Compare(left=load(out), ops=[ast.Is()],
                                                 comparators=[const(None)]),
                                body=b.stack[-1], orelse=load(out))
        b.push(ast.Compare(left=load(out), ops=[ast.IsNot()], comparators=[const(None)]))
    else:
        b.push(load(out))


@handles("MATCH_KEYS")
def _match_keys(b, op):
    """[subject, keys] -> [subject, keys, values or None] (3.10 adds a bool)."""
    b.need(2)
    b.unmark(2)
    b.flush()
    subject, keys = b.stack[-2], b.stack[-1]
    out = b.names.temp()
    literal = _key_patterns(keys)
    if literal is not None:
        captures = [b.names.temp() for _ in literal]
        pattern = ast.MatchMapping(keys=literal, patterns=[_capture(c) for c in captures])
        found = ast.Tuple(elts=[load(c) for c in captures], ctx=ast.Load())
        b.emit(_one_case_match(b.expr_of(subject), pattern, assign(out, found),
                               assign(out, const(None))))
    else:
        b.emit_all(_match_keys_code(b, b.expr_of(subject), b.expr_of(keys), out))
    b.push(load(out))
    if b.t.table.match_pushes_bool:
        b.push(ast.Compare(left=load(out), ops=[ast.IsNot()], comparators=[const(None)]))


def _key_patterns(keys) -> Optional[list]:
    """Mapping-pattern keys for a constant key tuple of literals, if it has no repeats."""
    if not (isinstance(keys, ast.Constant) and isinstance(keys.value, tuple)):
        return None
    values = keys.value
    ok = (str, bytes, int, float, complex, bool, type(None))
    if not all(isinstance(v, ok) for v in values) or len(set(map(repr, values))) != len(values):
        return None
    if any(isinstance(v, float) and v != v for v in values):
        return None
    return [const(v) for v in values]


def _match_keys_code(b, subject, keys, out) -> List[ast.stmt]:
    """MATCH_KEYS written out: ``get`` each key, stop at the first one missing."""
    found, key, value = b.names.temp(), b.names.temp(), b.names.temp()
    null = load(b.t.null_name())
    get = call(attr(subject, "get"), load(key), null)
    missing = ast.Compare(left=load(value), ops=[ast.Is()], comparators=[null])
    loop = ast.For(target=store_name(key), iter=keys,
                   body=[assign(value, get),
                         ast.If(test=missing, body=[assign(found, const(None)), ast.Break()],
                                orelse=[]),
                         ast.Expr(value=call(attr(load(found), "append"), load(value)))],
                   orelse=[assign(found, call(b.names.builtin("tuple"), load(found)))])
    return [assign(found, ast.List(elts=[], ctx=ast.Load())), loop, assign(out, load(found))]


@handles("COPY_DICT_WITHOUT_KEYS")
def _copy_dict_without_keys(b, op):
    """3.10: [subject, keys] -> [subject, dict(subject) less keys]."""
    b.need(2)
    b.flush()
    out, key = b.names.temp(), b.names.temp()
    b.emit(assign(out, ast.Dict(keys=[], values=[])))
    b.emit(ast.Expr(value=call(attr(load(out), "update"), b.expr_of(b.stack[-2]))))
    b.emit(ast.For(target=store_name(key), iter=b.expr_of(b.stack[-1]),
                   body=[ast.Delete(targets=[ast.Subscript(value=load(out), slice=load(key),
                                                           ctx=ast.Del())])], orelse=[]))
    b.stack[-1] = load(out)


def _capture(name: str) -> ast.MatchAs:
    return ast.MatchAs(pattern=None, name=name)


def _one_case_match(subject, pattern, then, otherwise) -> ast.Match:
    return ast.Match(subject=subject, cases=[
        ast.match_case(pattern=pattern, guard=None, body=[then]),
        ast.match_case(pattern=ast.MatchAs(pattern=None, name=None), guard=None, body=[otherwise])])


# -- layout: nodes to statements -----------------------------------------------------------------

class Layout:
    """Writes the node graph out: single-predecessor nodes inline at their
    predecessor, the rest as ``if __state == N:`` arms of a dispatch loop (no
    loop when every transfer goes forward)."""

    def __init__(self, t: Translator):
        self.t = t
        self.names = t.names
        self.in_loop = False

    def statements(self) -> List[ast.stmt]:
        nodes = self.thread(self.t.order)
        placed = {id(nodes[0])}
        for node in nodes[1:]:
            self.place(node, placed)
        entry = nodes[0]
        top = [entry] + sorted((n for n in nodes[1:] if n.host is None),
                               key=lambda n: (n.start, n.serial))
        for number, node in enumerate(top):
            node.number = number
        self.in_loop = self.needs_loop(nodes)
        hoist = not entry.preds and not (self.in_loop and self.t.kind != "function")
        main = [assign(self.state, const(0))]
        if hoist:
            main += self.expand(entry, None, None, None)
        arms = top[1:] if hoist else top
        if arms:
            dispatch = [ast.If(test=ast.Compare(left=load(self.state), ops=[ast.Eq()],
                                                comparators=[const(n.number)]),
                               body=self.expand(n, None, n.number, None), orelse=[])
                        for n in arms]
            if self.in_loop:
                main.append(ast.While(test=const(True), body=dispatch, orelse=[]))
            else:
                main += dispatch
        main = main[:1] + self.finish(main[1:])
        self.t.note_index = len(self.names.prologue) + 1
        return list(self.names.prologue) + main

    @property
    def state(self) -> str:
        return self.names.named(("state",), "state")

    # -- inlining --------------------------------------------------------------------

    def thread(self, nodes: List[Node]) -> List[Node]:
        """Drop nodes that only pass control on: their predecessors go straight on."""
        kept = []
        for node in nodes:
            body = node.body
            if node is not nodes[0] and len(body) == 1 and isinstance(body[0], Goto) \
                    and body[0].target is not node \
                    and not getattr(body[0].target, "threaded", False):
                onward = body[0]
                for goto in list(node.incoming):
                    goto.retarget(onward.target)
                onward.target.incoming.remove(onward)
                for stmt in node.handler_body:
                    if isinstance(stmt, Goto):
                        stmt.target.incoming.remove(stmt)
                node.threaded = True
            else:
                kept.append(node)
        return kept

    def place(self, node: Node, placed=None) -> None:
        """Write ``node`` inline at its predecessor when it has exactly one and
        the code there runs under the right handler: code that can raise but has
        no handler cannot go inside a try, nor code handling no exception inside
        an except clause (one handling another exception says so, see handling())."""
        placed = set() if placed is None else placed
        if id(node) in placed:
            return
        placed.add(id(node))
        for source, _ in node.preds:
            self.place(source, placed)
        preds = self.physical_preds(node)
        if len(preds) != 1:
            return
        source, kind = preds[0]
        if source is node or self.rooted_at(source, node):
            return
        if kind == "normal":
            ambient, context = self.body_ambient(source), source.body_exc
        else:
            ambient, context = self.ambient(source), source.guard_holder
        if node.guard is None and ambient is not None and node.may_raise:
            return
        if node.body_exc is None and context is not None:
            return
        if kind == "normal" and node.hosts_handlers and node.guard == ambient:
            return      # it would lose the try its handlers are written in
        node.host = source
        node.host_kind = kind
        if kind == "exception":
            source.hosts_handlers = True

    def physical_preds(self, node: Node) -> list:
        """Predecessors that transfer here in the written code: an exception edge
        counts only from code that has its own try (code written inside another
        node's try with the same handler reaches this node through that one's)."""
        return [(s, k) for s, k in node.preds
                if k == "normal" or (s.guard is not None and s.guard != self.ambient(s))]

    def rooted_at(self, source: Node, node: Node) -> bool:
        """Whether ``node`` already hosts ``source`` (a cycle of inline code)."""
        seen = source
        while seen is not None:
            if seen is node:
                return True
            seen = seen.host
        return False

    def ambient(self, node: Node):
        """The handler in force where ``node``'s code is written (outside its own try)."""
        if node.host is None:
            return None
        if node.host_kind == "normal":
            return self.body_ambient(node.host)
        return self.ambient(node.host)

    def body_ambient(self, node: Node):
        """The handler in force inside ``node``'s code (its own, or where it is written)."""
        return node.guard if node.guard is not None else self.ambient(node)

    def root(self, node: Node) -> Node:
        while node.host is not None:
            node = node.host
        return node

    def needs_loop(self, nodes) -> bool:
        """Whether some transfer goes back (or to itself): then dispatch loops."""
        for node in nodes:
            for source, _ in self.physical_preds(node):
                if node.host is None and node.number <= self.root(source).number:
                    return True
        return False

    # -- expansion --------------------------------------------------------------------------

    def expand(self, node: Node, ambient, arm: Optional[int], context) -> List[ast.stmt]:
        """The code of ``node`` (and what is inline in it), written where ``ambient``
        handles exceptions and ``context`` is being handled; ``arm`` is the
        dispatch arm it sits in (None: before the loop)."""
        body = self.resolve(node.body, arm, node.body_exc)
        if node.body_exc is not None and node.body_exc != context and _observes_handling(body):
            body = self.handling(node.body_exc, body)
        if node.guard is None or node.guard == ambient:
            return body
        caught = self.names.named(("caught",), "e")
        handler = ast.ExceptHandler(type=self.names.builtin("BaseException"), name=caught,
                                    body=self.resolve(node.handler_body, arm,
                                                      node.guard_holder))
        return [ast.Try(body=body, handlers=[handler], orelse=[], finalbody=[])]

    def handling(self, holder: str, body: List[ast.stmt]) -> List[ast.stmt]:
        """Run ``body`` as handler code of the exception in ``holder``, so that
        ``sys.exc_info()`` and implicit chaining see it (raising it to get there
        leaves its ``__context__`` and traceback as they were)."""
        saved = self.names.temp()
        restore = _restore_exception(holder, saved)
        return [_save_exception(holder, saved),
                ast.Try(body=[ast.Raise(exc=load(holder), cause=None)],
                        handlers=[ast.ExceptHandler(type=self.names.builtin("BaseException"),
                                                    name=None, body=[restore] + body)],
                        orelse=[], finalbody=[])]

    def reraise(self, stmt: Reraise, context) -> List[ast.stmt]:
        """A bare ``raise`` where the exception is the one being handled (exactly
        RERAISE); else ``raise e`` with its ``__context__`` and traceback put back."""
        if stmt.exc is None or (stmt.holder is not None and stmt.holder == context):
            return [ast.Raise(exc=None, cause=None)]
        out = []
        exc = stmt.exc
        if not isinstance(exc, ast.Name):
            held = self.names.temp()
            out.append(assign(held, exc))
            exc = load(held)
        saved = self.names.temp()
        again = ast.Try(body=[ast.Raise(exc=exc, cause=None)], handlers=[], orelse=[],
                        finalbody=[_restore_exception(exc.id, saved)])
        return out + [_save_exception(exc.id, saved), again]

    def resolve(self, stmts: List[ast.stmt], arm, context) -> List[ast.stmt]:
        out = []
        for stmt in stmts:
            if isinstance(stmt, Goto):
                out += self.transfer(stmt, arm)
            elif isinstance(stmt, Reraise):
                out += self.reraise(stmt, context)
            elif isinstance(stmt, Exit):
                out.append(ast.Break() if self.in_loop else assign(self.state, const(-1)))
            else:
                for name in ("body", "orelse"):
                    inner = getattr(stmt, name, None)
                    if isinstance(inner, list) and not isinstance(
                            stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                        setattr(stmt, name, self.resolve(inner, arm, context))
                for handler in getattr(stmt, "handlers", None) or []:
                    handler.body = self.resolve(handler.body, arm, context)
                if isinstance(stmt, ast.Match):
                    for case in stmt.cases:
                        case.body = self.resolve(case.body, arm, context)
                out.append(stmt)
        return out

    def transfer(self, goto: Goto, arm) -> List[ast.stmt]:
        target = goto.target
        if target.host is not None:
            source = goto.source
            if goto.kind == "normal":
                return self.expand(target, self.body_ambient(source), arm, source.body_exc)
            return self.expand(target, self.ambient(source), arm, source.guard_holder)
        out = [assign(self.state, const(target.number))]
        if self.in_loop and arm is not None and target.number <= arm:
            out.append(ast.Continue())
        return out

    # -- finishing touches ---------------------------------------------------------------------

    def finish(self, body: List[ast.stmt]) -> List[ast.stmt]:
        code = self.t.code
        if self.t.kind in ("module", "class"):
            body = body + self.cleanup(body)
        else:
            body = body + self.unbound_cells(body)
            if any(n.guard for n in self.t.order) and self.names.values:
                # A caught exception left in a temporary would keep this frame
                # alive through its traceback after the call: clear them on the way out.
                clear = ast.Assign(targets=[store_name(n) for n in sorted(self.names.values)],
                                   value=const(None))
                body = [ast.Try(body=body, handlers=[], orelse=[], finalbody=[clear])]
        if self.t.kind == "function" and code.flags & (CO_GENERATOR | CO_ASYNC_GENERATOR) \
                and not _has_yield(body):
            # the code yields nowhere reachable, but it is a generator all the same
            body = body + [ast.If(test=const(False), body=[ast.Expr(value=ast.Yield(value=None))],
                                  orelse=[])]
        return body

    def unbound_cells(self, body) -> List[ast.stmt]:
        """A cell only nested functions assign must still be local here (their
        ``nonlocal`` needs it): a binding that never runs says so."""
        from .objects import unbound_cells
        return unbound_cells(self.t.code, body)

    def cleanup(self, body) -> List[ast.stmt]:
        """A module or class body must not leave the temporaries behind."""
        mine = self.names.taken_by_me - self.t.keep
        used = set()
        for stmt in body + self.names.prologue:
            for node in _walk_scope(stmt):
                if isinstance(node, ast.Name) and node.id in mine:
                    used.add(node.id)
                elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) \
                        and node.name in mine:
                    used.add(node.name)
        if not used:
            return []
        used = sorted(used)
        return [ast.Assign(targets=[store_name(n) for n in used], value=const(None)),
                ast.Delete(targets=[ast.Name(id=n, ctx=ast.Del()) for n in used])]


#: nodes of code that can neither call out, raise, nor look at the exception state
_INERT = (ast.Assign, ast.Name, ast.Constant, ast.Tuple, ast.expr_context, ast.Continue,
          ast.Break, ast.Pass, ast.Return, ast.If, ast.Compare, ast.cmpop)


def _observes_handling(body: List[ast.stmt]) -> bool:
    """Whether code could tell which exception is being handled (it calls,
    raises, yields or touches an object)."""
    return any(not isinstance(node, _INERT) for stmt in body for node in _walk_scope(stmt))


def _save_exception(holder: str, saved: str) -> ast.Assign:
    """``saved = holder.__context__, holder.__traceback__``."""
    return ast.Assign(targets=[store_name(saved)],
                      value=ast.Tuple(elts=[attr(load(holder), "__context__"),
                                            attr(load(holder), "__traceback__")],
                                      ctx=ast.Load()))


def _restore_exception(holder: str, saved: str) -> ast.Assign:
    targets = ast.Tuple(elts=[ast.Attribute(value=load(holder), attr=a, ctx=ast.Store())
                              for a in ("__context__", "__traceback__")], ctx=ast.Store())
    return ast.Assign(targets=[targets], value=load(saved))


def _has_yield(body) -> bool:
    for stmt in body:
        for node in _walk_scope(stmt):
            if isinstance(node, (ast.Yield, ast.YieldFrom)):
                return True
    return False


def _walk_scope(node):
    """ast.walk, not entering nested functions, classes or lambdas."""
    scopes = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
    todo = [node]
    while todo:
        n = todo.pop()
        yield n
        if not isinstance(n, scopes):
            todo.extend(child_nodes(n))
