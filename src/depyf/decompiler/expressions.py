"""Stack simulation of straight-line ops into ``ast`` expressions and statements.

:class:`StackMachine` runs the normalised ops of one basic stretch of code
(no jumps) and turns them into expressions on a symbolic stack and, when an
op has an effect (a store, a call whose value is dropped, a return...), into
statements. Handlers are small functions registered per op name, grouped by
family below; none of them knows which Python version wrote the code.

Example::

    >>> from depyf.bytecode.normalize import normalize
    >>> m = StackMachine(Context.for_tests())
    >>> for op in normalize(compile("x = a + 1", "<s>", "exec")).ops[:-2]:
    ...     m.step(op)
    >>> ast.unparse(m.stmts[0])
    'x = a + 1'
"""
from __future__ import annotations

import ast
from typing import Callable, Dict, List, Optional

from ..bytecode.ir import LAZY_IMPORT
from .astcompat import Interpolation, TemplateStr
from .deferred_annotations import AnnotationMark, DeferredAnnotations
from .values import (AST_KINDS, DEAD, BuildClass, ChainLink, ClassValue, Converted, Delegated,
                     Entered, ExcInfo, FunctionValue, GenericBase, ImportFromValue, ImportValue,
                     InPlace, Iterator, Null, PendingNamed, Placeholder, SavedLocal,
                     TypeAliasValue, TypeParamValue, UnpackSlot, UnpackTarget, resolve_dead_slots)
from .evaluation_order import PUSH_TIMES
from .failure import DecompileFailure
from .objects import CellRef, cell_expr, code_expr, function_expr, module_globals_expr
from .spill import continues_multi, drops_out, is_waiting_value, spill


class Context:
    """What expression building needs from the enclosing decompilation."""

    def __init__(self, code, nested: Callable, kind: str = "function",
                 class_name: Optional[str] = None):
        self.code = code
        #: nested(code_record, how) -> decompiled pieces of a nested code object
        self.nested = nested
        self.kind = kind
        #: the innermost enclosing class, whose name private names are mangled with
        self.class_name = class_name
        #: values of the compiler's own names (``.type_params``, ``.defaults``...) in
        #: the code that sets up a PEP 695 generic
        self.hidden: Dict[str, object] = {}

    def with_kind(self, kind: str) -> "Context":
        ctx = Context(self.code, self.nested, kind, self.class_name)
        ctx.implicit_returns = getattr(self, "implicit_returns", set())
        ctx.hidden = self.hidden
        return ctx

    def mangle(self, name: str) -> str:
        """``name`` as the compiler stores it inside the class (``__x`` -> ``_C__x``)."""
        owner = (self.class_name or "").lstrip("_")
        if not owner or not name.startswith("__") or name.endswith("__") or "." in name:
            return name
        return "_%s%s" % (owner, name)

    def unmangle(self, name: str) -> str:
        """``name`` as the source wrote it inside the class (``_C__x`` -> ``__x``),
        which the compiler mangles back; 3.13 keeps the source's spelling of
        ``self`` attributes in a class's ``__static_attributes__``.

        >>> Context(None, None, class_name="_C").unmangle("_C__x")
        '__x'
        """
        if name[:1] != "_" or not self.class_name:
            return name
        rest = name[len(self.class_name.lstrip("_")) + 1:]
        return rest if rest[:2] == "__" and self.mangle(rest) == name else name

    @classmethod
    def for_tests(cls):
        return cls(None, lambda code, how: None, "module")


HANDLERS: Dict[str, Callable] = {}


def handles(*names):
    def register(fn):
        for name in names:
            HANDLERS[name] = fn
        return fn
    return register


class StackMachine:
    def __init__(self, ctx: Context, stack: Optional[list] = None):
        self.ctx = ctx
        self.stack: List[ast.expr] = list(stack or [])
        self.stmts: List[ast.stmt] = []
        self.start_line: Optional[int] = None
        #: the target of the last store of a ``with`` item's entered value
        self.last_target = None
        #: stack depth at the start: values above it belong to an unfinished expression
        self.base = len(self.stack)
        #: the values the enclosing code left (a shuffle may move newer ones below base)
        self.inherited = set(map(id, self.stack))
        #: (target, value) pairs of a tuple assignment whose values were all
        #: evaluated before the first store (``a, b = x, y`` without a tuple)
        self.multi: List[tuple] = []
        #: a value was duplicated (COPY): a statement may hold it twice
        self.copied = False

    # -- driving --------------------------------------------------------------

    def step(self, op) -> None:
        """Run one op."""
        self.steps((op,), 0, 1, ())

    def steps(self, ops, i: int, hi: int, plain) -> int:
        """Run ``ops[i]`` and the ops after it while their index is below ``hi``
        and in ``plain``; returns where it stopped. (The walker sends most ops
        here a run at a time: a call per op cost more than the rest of a step.)"""
        handlers = HANDLERS
        while True:
            op = ops[i]
            try:
                handler = handlers[op.name]     # (a subscript, not .get(): no call)
            except KeyError:
                raise DecompileFailure("no expression rule for %s" % op.name) from None
            line = op.line
            if self.start_line is None:
                self.start_line = line
            elif line is not None and line < self.start_line:
                # (a statement starts at its first line, which its first op
                # need not have: a comprehension's iterable runs first)
                self.start_line = line
            if self.multi and not continues_multi(self, op):
                self.flush_multi()
            handler(self, op)
            i += 1
            if i >= hi or i not in plain:
                return i

    def waiting(self) -> list:
        """Values this machine evaluated that are still on the stack."""
        # (is_waiting_value's first test inlined: most stack items are ast's
        # own nodes; and most machines inherit nothing, no id to ask)
        inherited = self.inherited
        if not inherited:
            return [v for v in self.stack if type(v) in AST_KINDS or is_waiting_value(v)]
        return [v for v in self.stack if (type(v) in AST_KINDS or is_waiting_value(v))
                and id(v) not in inherited]

    def _any_waiting(self) -> bool:
        """``bool(self.waiting())``, without the list (a loop body's statements
        all ask, with the loop's iterator on the stack)."""
        inherited = self.inherited
        for v in self.stack:
            if (type(v) in AST_KINDS or is_waiting_value(v)) \
                    and (not inherited or id(v) not in inherited):
                return True
        return False

    def flush_multi(self) -> None:
        """The stores taken for a tuple assignment (``a, b = x, y``) were not one:
        the values they left waiting are used otherwise. Each store becomes its
        own statement, at the point it ran."""
        entries, self.multi = self.multi, []
        later = [e[1] for e in entries]
        for k, (target, _, time, op) in enumerate(entries):
            value = later[k]
            stmt = _assignment(self, [target], value, op)
            stmt.lineno = op.line
            # the values of the later stores were waiting too
            self.stmts.extend(spill(self, stmt, time, later[k + 1:]))
            self.stmts.append(stmt)

    def push(self, node: ast.expr, op=None) -> None:
        if op is not None and getattr(node, "lineno", None) is None:
            node.lineno = op.line
            node._at = op.offset    # (the op it came from: see line_map)
        if getattr(node, "_seq", None) is None:
            node._seq = next(PUSH_TIMES)      # evaluation order, for tuple assignments
        self.stack.append(node)

    def push_new(self, node: ast.expr, op=None) -> None:
        """:meth:`push` for a node just built (no line, no evaluation time yet):
        the loads and operators that make most values skip its checks."""
        if op is not None:
            node.lineno = op.line
            node._at = op.offset
        node._seq = next(PUSH_TIMES)
        self.stack.append(node)

    def pop(self) -> ast.expr:
        if not self.stack:
            raise DecompileFailure("stack underflow")
        return self.stack.pop()

    def pop_value(self) -> ast.expr:
        """:meth:`pop`, then :meth:`value` (one call: most operands come this way)."""
        if not self.stack:
            raise DecompileFailure("stack underflow")
        node = self.stack.pop()
        return node if type(node) in _FINISHED_KINDS else finish(self, node)

    def popn(self, n: int) -> List[ast.expr]:
        if n == 0:
            return []
        if len(self.stack) < n:
            raise DecompileFailure("stack underflow")
        items = self.stack[-n:]
        del self.stack[-n:]
        return items

    def top(self) -> ast.expr:
        if not self.stack:
            raise DecompileFailure("stack underflow")
        return self.stack[-1]

    def emit(self, stmt: ast.stmt, op=None) -> None:
        line = self.start_line if self.start_line is not None else (op.line if op else None)
        stmt.lineno = line
        if op is not None:
            stmt._at = op.offset
        self.start_line = None
        if self.multi:
            self.flush_multi()
        if self.copied or (self.stack and self._any_waiting()):
            # Source evaluates a statement's operands after everything before it:
            # values still on the stack were evaluated earlier (only generated
            # bytecode, Dynamo's, leaves them), so printing them later would
            # reorder their effects: those that must keep their place go into
            # temporaries first.
            self.stmts.extend(spill(self, stmt))
            if drops_out(stmt):
                return
        self.stmts.append(stmt)

    def value(self, node) -> ast.expr:
        """A stack item as a finished source expression."""
        # (finish's first test, inlined: this runs for every operand)
        return node if type(node) in _FINISHED_KINDS else finish(self, node)


# -- finishing placeholders ---------------------------------------------------------

def finish(m: StackMachine, node) -> ast.expr:
    kind = type(node)
    if kind in _FINISHED_KINDS:
        return node         # most values: nothing to do (this runs for every operand)
    if kind is ast.Call:
        _finish_arguments(m, node)      # (the commonest of the rest)
        return node
    if not isinstance(node, _UNFINISHED):
        return node
    if isinstance(node, Placeholder):
        return _finish_placeholder(m, node)
    if isinstance(node, (ast.Tuple, ast.List)):
        # Displays may hold a class body function until a class call claims it;
        # a call among the items is no decorator's, so its arguments are final.
        node.elts = [finish(m, e) if isinstance(e, Placeholder)
                     and not isinstance(e, TypeParamValue) or type(e) is ast.Call
                     else e for e in node.elts]
    elif isinstance(node, ast.Call):
        _finish_arguments(m, node)
    return node


def _finish_arguments(m: StackMachine, node: ast.Call) -> None:
    """Calls hold their function argument until a decorator use claims it. (In
    place: the list is the node's own. _decorated finds only a Placeholder in
    anything but a Call: one test for most arguments.)"""
    args = node.args
    for k, a in enumerate(args):
        if type(a) not in _FINISHED_KINDS and (
                isinstance(a, Placeholder) or (isinstance(a, ast.Call) and _decorated(a))):
            args[k] = finish(m, a)


def _finish_placeholder(m: StackMachine, node) -> ast.expr:
    if isinstance(node, FunctionValue):
        if node.code.name != "<lambda>":
            return function_expr(m, node)
        return m.ctx.nested(node, "lambda")
    if isinstance(node, Converted):
        raise DecompileFailure("dangling f-string conversion")
    if isinstance(node, Iterator):
        return ast.Call(func=ast.Name(id="aiter" if node.is_async else "iter", ctx=ast.Load()),
                        args=[finish(m, node.iterable)], keywords=[])
    if isinstance(node, UnpackSlot) and len(node.owner.slots) == 1 \
            and node.owner.star_index is None and node.owner.parent is None:
        # `*args: *Ts` evaluates the starred annotation as a one-item unpacking
        return ast.Starred(value=finish(m, node.owner.value), ctx=ast.Load())
    if isinstance(node, PendingNamed):
        value = finish(m, node.value)
        for target in node.targets:
            if not isinstance(target, ast.Name):
                raise DecompileFailure("assignment expression to a non-name")
            value = ast.NamedExpr(target=target, value=value)
        return value
    if isinstance(node, CodeConst):
        return code_expr(m, node.code)
    if isinstance(node, CellRef):
        return cell_expr(node)
    raise DecompileFailure("%s used as a value" % type(node).__name__)


#: the only kinds of value finish() changes or rejects
_UNFINISHED = (Placeholder, ast.Tuple, ast.List, ast.Call)
#: ast's own node classes none of those: finished (one set lookup; see AST_KINDS)
_FINISHED_KINDS = frozenset(k for k in AST_KINDS if not issubclass(k, _UNFINISHED))
#: the only kinds of call argument _arg does more with than return it (function,
#: class and type parameter values are Placeholders; decorator calls are Calls)
_ARG_CHECKED = _UNFINISHED


def _decorated(node) -> bool:
    """A function or class value, possibly under decorator calls not yet claimed
    by a ``def``/``class`` statement."""
    while isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
        node = node.args[0]
    return isinstance(node, (FunctionValue, ClassValue))


# Node constructors take positional fields much faster than keywords, and
# every load can share one Load() (as ast.parse's trees do): load() and const()
# build a node for most ops.
_LOAD = ast.Load()
_STORE = ast.Store()


def load(name: str) -> ast.Name:
    return ast.Name(name, _LOAD)


def const(value) -> ast.expr:
    return ast.Constant(value)


# -- loads ------------------------------------------------------------------------

@handles("LOAD_CONST")
def _load_const(m, op):
    value = op.arg
    if type(value) in _PLAIN_CONSTANTS and not (type(value) is tuple and slice in map(type, value)):
        # (most constants: one test, and push_new inlined)
        node = ast.Constant(value)
        node.lineno = op.line
        node._at = op.offset
        node._seq = next(PUSH_TIMES)
        m.stack.append(node)
    elif hasattr(value, "co_code") or type(value).__name__ == "CodeRecord":
        m.push_new(CodeConst(value), op)
    elif isinstance(value, dict) and module_globals_expr(value) is not None:
        m.push(module_globals_expr(value), op)     # generated code's globals argument
    else:
        m.push_new(slice_node(value) if type(value) in (slice, tuple) else ast.Constant(value), op)


def slice_node(value) -> ast.expr:
    """3.14+ folds a subscript's constant slice (``x[1:2]``, ``x[:, 0]``) into a
    ``slice`` constant: written back as the slice it was.

    >>> ast.unparse(ast.Subscript(ast.Name("x"), slice_node((slice(1, None, None), 0))))
    'x[1:, 0]'
    """
    if type(value) is tuple:
        return ast.Tuple(elts=[slice_node(v) for v in value], ctx=ast.Load())
    if type(value) is not slice:
        return ast.Constant(value)
    return ast.Slice(*(None if part is None else ast.Constant(part)
                       for part in (value.start, value.stop, value.step)))


#: constant types that are never code, nor a module's globals
_PLAIN_CONSTANTS = frozenset({int, str, bytes, float, complex, bool, type(None), tuple,
                              frozenset, type(Ellipsis)})


class CodeConst(Placeholder):
    def __init__(self, code):
        super().__init__()
        self.code = code


@handles("LOAD_FAST_AND_CLEAR")
def _load_fast_and_clear(m, op):
    m.push(SavedLocal(op.arg), op)


@handles("LOAD_CLOSURE")
def _load_closure(m, op):
    if op.arg in m.ctx.hidden:
        m.push(m.ctx.hidden[op.arg], op)
        return
    m.push(CellRef(op.arg), op)     # the cell itself, not its contents


@handles("LOAD_NAME", "LOAD_GLOBAL", "LOAD_FAST", "LOAD_DEREF", "LOAD_CLASSDEREF",
         "LOAD_FROM_DICT_OR_GLOBALS")
def _load_name(m, op):
    hidden = m.ctx.hidden
    if hidden and op.arg in hidden:
        m.push(hidden[op.arg], op)
        return
    node = ast.Name(op.arg, _LOAD)      # (push_new inlined: the commonest op)
    node.lineno = op.line
    node._at = op.offset
    node._seq = next(PUSH_TIMES)
    m.stack.append(node)


@handles("LOAD_ATTR")
def _load_attr(m, op):
    obj = m.pop_value()
    m.push_new(ast.Attribute(obj, m.ctx.unmangle(op.arg), _LOAD), op)


@handles("LOAD_SUPER_METHOD")
def _load_super_method(m, op):
    _load_super_attr(m, op)
    attr = m.pop()
    m.push_new(Null())
    m.push(attr)


@handles("LOAD_SUPER_ATTR")
def _load_super_attr(m, op):
    self_arg = m.pop()
    cls_arg = m.pop()
    m.pop()  # the global `super`
    two_arg = bool((op.extra or 0) & 2)
    args = [m.value(cls_arg), m.value(self_arg)] if two_arg else []
    call = ast.Call(func=load("super"), args=args, keywords=[])
    m.push(ast.Attribute(value=call, attr=op.arg, ctx=ast.Load()), op)


@handles("LOAD_COMMON_CONSTANT")
def _load_common_constant(m, op):
    # (3.14+: a builtin the normalising passes left, ``NotImplementedError`` in
    # an ``__annotate__``: loaded as the builtin, whatever the globals hold)
    m.push(load(op.arg), op)


@handles("LOAD_ASSERTION_ERROR")
def _load_assertion_error(m, op):
    node = load("AssertionError")
    node.assertion = True       # what an `assert` raises, not the builtin name
    m.push(node, op)


@handles("LOAD_BUILD_CLASS")
def _load_build_class(m, op):
    m.push(BuildClass(), op)


# -- stack shuffles -------------------------------------------------------------------

@handles("POP_TOP")
def _pop_top(m, op):
    value = m.pop()
    if isinstance(value, ImportValue):
        if value.fromlist is not None:
            m.emit(_import_from_statement(value), op)
        else:
            m.start_line = None     # the tail of an import statement already emitted
        return
    if isinstance(value, (ImportFromValue, Null, Iterator)):
        # An iterator is dropped when break/return leaves its for loop.
        m.start_line = None
        return
    if isinstance(value, UnpackSlot):
        _fill_slot(m, value, DEAD, op)
        return
    m.emit(ast.Expr(value=kept_constant(m.value(value))), op)


def kept_constant(value):
    """An expression statement's value, spelled so the compiler keeps it.

    A constant statement compiles to nothing, so ``LOAD_CONST C; POP_TOP``
    came from a short-circuit the compiler folded (3.10+): ``True or x``.
    ``C or C`` (``C and C`` where C is false) folds the same way::

        >>> ast.unparse(kept_constant(ast.Constant(value=0)))
        '0 and 0'
    """
    if not isinstance(value, ast.Constant):
        return value
    op = ast.Or() if value.value else ast.And()
    return ast.BoolOp(op=op, values=[value, ast.Constant(value=value.value)])


@handles("COPY")
def _copy(m, op):
    if len(m.stack) < op.arg:
        raise DecompileFailure("COPY below the stack")
    m.copied = True
    m.push(m.stack[-op.arg])


@handles("SWAP")
def _swap(m, op):
    n = op.arg
    if len(m.stack) < n:
        raise DecompileFailure("SWAP below the stack")
    m.stack[-1], m.stack[-n] = m.stack[-n], m.stack[-1]


# -- operators ------------------------------------------------------------------------

BINARY = {
    "+": ast.Add, "-": ast.Sub, "*": ast.Mult, "/": ast.Div, "//": ast.FloorDiv,
    "%": ast.Mod, "**": ast.Pow, "@": ast.MatMult, "<<": ast.LShift, ">>": ast.RShift,
    "&": ast.BitAnd, "|": ast.BitOr, "^": ast.BitXor,
}
COMPARE = {
    "<": ast.Lt, "<=": ast.LtE, "==": ast.Eq, "!=": ast.NotEq, ">": ast.Gt, ">=": ast.GtE,
    "is": ast.Is, "is not": ast.IsNot, "in": ast.In, "not in": ast.NotIn,
}
UNARY = {"UNARY_NEGATIVE": ast.USub, "UNARY_POSITIVE": ast.UAdd, "UNARY_NOT": ast.Not,
         "UNARY_INVERT": ast.Invert}


@handles("BINARY_OP")
def _binary_op(m, op):
    right = m.pop_value()
    left_raw = m.pop()
    symbol = op.arg
    if symbol.endswith("=") and symbol not in ("==", "<=", ">=", "!="):
        m.push(InPlace(m.value(left_raw), BINARY[symbol[:-1]](), right), op)
    else:
        m.push_new(ast.BinOp(m.value(left_raw), BINARY[symbol](), right), op)


@handles("UNARY_NEGATIVE", "UNARY_POSITIVE", "UNARY_NOT", "UNARY_INVERT")
def _unary(m, op):
    m.push(ast.UnaryOp(op=UNARY[op.name](), operand=m.pop_value()), op)


@handles("COMPARE_OP", "COMPARE_LINK")
def _compare(m, op):
    right = m.pop_value()
    left = m.pop()
    if isinstance(left, ChainLink):
        node = left.compare
        node.ops.append(COMPARE[op.arg]())
        node.comparators.append(right)
    else:
        node = ast.Compare(m.value(left), [COMPARE[op.arg]()], [right])
    m.push(ChainLink(node) if op.name == "COMPARE_LINK" else node, op)


@handles("BINARY_SUBSCR")
def _subscr(m, op):
    index = m.pop_value()
    obj = m.pop_value()
    m.push_new(ast.Subscript(obj, _slice_of(index), _LOAD), op)


def _slice_of(index):
    return index


@handles("BUILD_SLICE")
def _build_slice(m, op):
    parts = [m.value(v) for v in m.popn(op.arg)]
    parts = [None if isinstance(p, ast.Constant) and p.value is None else p for p in parts]
    m.push(ast.Slice(lower=parts[0], upper=parts[1], step=parts[2] if op.arg == 3 else None), op)


@handles("BINARY_SLICE")
def _binary_slice(m, op):
    upper, lower = m.pop_value(), m.pop_value()
    obj = m.pop_value()
    m.push(ast.Subscript(value=obj, slice=_make_slice(lower, upper), ctx=ast.Load()), op)


def _make_slice(lower, upper):
    none = lambda n: None if isinstance(n, ast.Constant) and n.value is None else n
    return ast.Slice(lower=none(lower), upper=none(upper), step=None)


# -- builds ---------------------------------------------------------------------------

@handles("BUILD_TUPLE")
def _build_tuple(m, op):
    m.push(ast.Tuple(elts=[_arg(m, v) for v in m.popn(op.arg)], ctx=ast.Load()), op)


@handles("BUILD_LIST")
def _build_list(m, op):
    m.push(ast.List(elts=[_arg(m, v) for v in m.popn(op.arg)], ctx=ast.Load()), op)


@handles("BUILD_SET")
def _build_set(m, op):
    m.push(ast.Set(elts=[m.value(v) for v in m.popn(op.arg)]), op)


@handles("BUILD_MAP")
def _build_map(m, op):
    items = [m.value(v) for v in m.popn(2 * op.arg)]
    m.push(ast.Dict(keys=items[0::2], values=items[1::2]), op)


@handles("BUILD_CONST_KEY_MAP")
def _build_const_key_map(m, op):
    keys = m.pop()
    values = [m.value(v) for v in m.popn(op.arg)]
    if not isinstance(keys, ast.Constant) or not isinstance(keys.value, tuple):
        raise DecompileFailure("BUILD_CONST_KEY_MAP without constant keys")
    m.push(ast.Dict(keys=[const(k) for k in keys.value], values=values), op)


@handles("LIST_EXTEND", "SET_UPDATE")
def _extend(m, op):
    value = m.pop_value()
    target = m.stack[-op.arg]
    if m.ctx.kind == "comprehension" and getattr(target, "comprehension", False):
        # 3.15+ (PEP 798): ``[*x for x in y]`` extends the comprehension's result
        m.emit(ComprehensionAppend(ast.Starred(value=value, ctx=ast.Load())), op)
        return
    if not isinstance(target, (ast.List, ast.Set)):
        _mutate(m, target, "extend" if op.name == "LIST_EXTEND" else "update", value, op)
        return
    if isinstance(value, ast.Constant) and isinstance(value.value, (tuple, frozenset)):
        target.elts.extend(const(v) for v in value.value)
    else:
        target.elts.append(ast.Starred(value=value, ctx=ast.Load()))


class ComprehensionAppend(ast.stmt):
    """``result.append(elt)`` inside a comprehension's code object."""
    _fields = ("value", "key")

    def __init__(self, value, key=None):
        super().__init__()
        self.value = value
        self.key = key


@handles("LIST_APPEND", "SET_ADD")
def _append(m, op):
    value = m.pop_value()
    target = m.stack[-op.arg]
    if m.ctx.kind == "comprehension" and getattr(target, "comprehension", False):
        m.emit(ComprehensionAppend(value), op)
        return
    if not isinstance(target, (ast.List, ast.Set)):
        _mutate(m, target, "append" if op.name == "LIST_APPEND" else "add", value, op)
        return
    target.elts.append(value)


def _mutate(m, target, method, value, op):
    """LIST_EXTEND and friends on a list that is no display (generated code
    extends a slice it took): the method call as a statement. The list stays
    on the stack; holding it twice makes it a temporary (see spill)."""
    if isinstance(target, Placeholder):
        raise DecompileFailure("%s into a %s" % (op.name, type(target).__name__))
    call = ast.Call(func=ast.Attribute(value=target, attr=method, ctx=ast.Load()),
                    args=[value], keywords=[])
    m.emit(ast.Expr(value=call), op)


@handles("DICT_UPDATE", "DICT_MERGE")
def _dict_update(m, op):
    value = m.pop_value()
    target = m.stack[-op.arg]
    if m.ctx.kind == "comprehension" and getattr(target, "comprehension", False):
        m.emit(ComprehensionAppend(None, value), op)     # {**d for d in ds} (PEP 798)
        return
    if not isinstance(target, ast.Dict):
        raise DecompileFailure("%s into a non-dict" % op.name)
    target.keys.append(None)
    target.values.append(value)


@handles("MAP_ADD")
def _map_add(m, op):
    value = m.pop_value()
    key = m.pop_value()
    target = m.stack[-op.arg]
    if m.ctx.kind == "comprehension" and getattr(target, "comprehension", False):
        m.emit(ComprehensionAppend(value, key), op)
        return
    if not isinstance(target, ast.Dict):
        raise DecompileFailure("MAP_ADD outside a dict display")
    target.keys.append(key)
    target.values.append(value)


@handles("LIST_TO_TUPLE")
def _list_to_tuple(m, op):
    value = m.pop()
    if not isinstance(value, ast.List):
        raise DecompileFailure("LIST_TO_TUPLE of a non-list")
    m.push(ast.Tuple(elts=value.elts, ctx=ast.Load()), op)


@handles("BUILD_TUPLE_UNPACK", "BUILD_LIST_UNPACK", "BUILD_SET_UNPACK",
         "BUILD_TUPLE_UNPACK_WITH_CALL")
def _build_unpack(m, op):
    kind = {"BUILD_LIST_UNPACK": ast.List, "BUILD_SET_UNPACK": ast.Set}.get(op.name, ast.Tuple)
    parts = [v if isinstance(v, (ast.Tuple, ast.List)) else m.value(v) for v in m.popn(op.arg)]
    # Runs of plain items come as displays of the result's kind; a starred display
    # of that kind (`*(a,)`) looks the same, but the unpacking op is only used
    # when something is starred.
    runs = [p for p in parts if type(p) is kind]
    starred_display = runs[-1] if len(runs) == len(parts) else None
    elts = []
    for part in parts:
        if type(part) is kind and part is not starred_display:
            elts.extend(part.elts)
        else:
            elts.append(ast.Starred(value=m.value(part), ctx=ast.Load()))
    node = kind(elts=elts) if kind is ast.Set else kind(elts=elts, ctx=ast.Load())
    m.push(node, op)


@handles("BUILD_MAP_UNPACK", "BUILD_MAP_UNPACK_WITH_CALL")
def _build_map_unpack(m, op):
    parts = [m.value(v) for v in m.popn(op.arg)]
    keys, values = [], []
    for part in parts:
        if isinstance(part, ast.Dict):
            keys.extend(part.keys)
            values.extend(part.values)
        else:
            keys.append(None)
            values.append(part)
    m.push(ast.Dict(keys=keys, values=values), op)


@handles("BUILD_STRING")
def _build_string(m, op):
    parts = m.popn(op.arg)
    values = []
    for part in parts:
        part = m.value(part)
        if isinstance(part, ast.JoinedStr):
            values.extend(part.values)
        else:
            values.append(part)
    m.push(ast.JoinedStr(values=values), op)


@handles("FORMAT_VALUE")
def _format_value(m, op):
    conversion, has_spec = op.arg
    spec = m.pop_value() if has_spec else None
    value = m.pop_value()
    m.push(_formatted(value, _CONVERSION_CODES[conversion], spec), op)


@handles("CONVERT_VALUE")
def _convert_value(m, op):
    m.push(Converted(m.pop_value(), _CONVERSION_CODES[op.arg]), op)


@handles("FORMAT_SIMPLE")
def _format_simple(m, op):
    value = m.pop()
    conversion = -1
    if isinstance(value, Converted):
        value, conversion = value.value, value.conversion
    m.push(_formatted(m.value(value), conversion, None), op)


@handles("FORMAT_WITH_SPEC")
def _format_with_spec(m, op):
    spec = m.pop_value()
    value = m.pop()
    conversion = -1
    if isinstance(value, Converted):
        value, conversion = value.value, value.conversion
    m.push(_formatted(m.value(value), conversion, spec), op)


_CONVERSION_CODES = {None: -1, str: ord("s"), repr: ord("r"), ascii: ord("a")}


def _formatted(value, conversion, spec):
    if spec is not None and not isinstance(spec, ast.JoinedStr):
        spec = ast.JoinedStr(values=[spec])
    node = ast.FormattedValue(value=value, conversion=conversion, format_spec=spec)
    return ast.JoinedStr(values=[node])


# -- calls ----------------------------------------------------------------------------

def _callable(m, slots, args):
    """The callable below a call's arguments; a non-NULL second slot is a bound
    first argument (a method's self, or a comprehension's iterator)."""
    below = m.popn(slots)
    if slots == 2:
        # (most calls: a callable and a NULL or a bound self, without lists)
        first, second = below
        if type(second) is Null:
            if type(first) is Null:
                raise DecompileFailure("call without a callable")
            return first, args
        if type(first) is Null:
            return second, args
        return first, [second] + args
    for v in below:         # (a loop first: most calls have no NULL to drop before 3.11)
        if isinstance(v, Null):
            below = [v for v in below if not isinstance(v, Null)]
            break
    if not below:
        raise DecompileFailure("call without a callable")
    return below[0], below[1:] + args


@handles("PUSH_NULL")
def _push_null(m, op):
    m.push_new(Null())


@handles("LOAD_METHOD")
def _load_method(m, op):
    obj = m.pop_value()
    m.push_new(Null())
    m.push_new(ast.Attribute(obj, m.ctx.unmangle(op.arg), _LOAD), op)


@handles("CALL")
def _call(m, op):
    argc, kwnames, slots = op.arg
    if kwnames is None:
        names = m.pop()
        if not (isinstance(names, ast.Constant) and isinstance(names.value, tuple)
                and all(isinstance(k, str) for k in names.value)):
            raise DecompileFailure("keyword names that are not a constant tuple")
        kwnames = names.value
    func, args = _callable(m, slots, m.popn(argc))
    if kwnames:
        positional = args[:len(args) - len(kwnames)]
        keyword_values = args[len(args) - len(kwnames):]
        keywords = [ast.keyword(k, m.value(v)) for k, v in zip(kwnames, keyword_values)]
    else:
        positional, keywords = args, []
    if type(func) not in AST_KINDS and isinstance(func, Placeholder):
        if isinstance(func, BuildClass):
            m.push(_class_value(m, positional, keywords, op), op)
            return
        if isinstance(func, FunctionValue) and \
                func.code.name.startswith("<generic parameters of "):
            m.push(m.ctx.nested(func, ("generic", positional)), op)
            return
        if isinstance(func, FunctionValue) and len(positional) == 1 \
                and isinstance(positional[0], Iterator):
            m.push(m.ctx.nested(func, ("comprehension", m.value(positional[0].iterable))), op)
            return
    node = ast.Call(m.value(func), [a if type(a) in _FINISHED_KINDS
                                    or not isinstance(a, _ARG_CHECKED) else _arg(m, a)
                                    for a in positional], keywords)
    m.push_new(node, op)


def _arg(m, node):
    if not isinstance(node, _ARG_CHECKED):
        return node         # a finished value that wraps nothing: most arguments
    if _decorated(node) or isinstance(node, (TypeParamValue, GenericBase)):
        return node          # kept so a decorator call can see what it wraps
    return m.value(node)


def _class_value(m, positional, keywords, op):
    if len(positional) < 2 or not isinstance(positional[0], FunctionValue):
        raise DecompileFailure("__build_class__ without a class body")
    name = positional[1]
    if not isinstance(name, ast.Constant):
        raise DecompileFailure("class name is not a constant")
    bases = [m.value(b) for b in positional[2:] if not isinstance(b, GenericBase)]
    return ClassValue(positional[0], name.value, bases, keywords, op.line)


@handles("CALL_FUNCTION_EX")
def _call_ex(m, op):
    flags, slots = op.arg
    kwargs = None
    if flags & 1 and m.stack and type(m.stack[-1]) is Null:
        # 3.14+ always has the slot: a NULL pushed earlier and moved up by
        # SWAPs (as Dynamo writes it) is no mapping either.
        m.pop()
    elif flags & 1:
        kwargs = m.pop_value()
    args = m.pop()
    func, extra = _callable(m, slots, [])
    if extra:
        raise DecompileFailure("CALL_FUNCTION_EX with a bound argument")
    if isinstance(args, ast.Tuple) and (isinstance(func, BuildClass) or not args.elts or any(
            isinstance(e, ast.Starred) for e in args.elts)):
        positional = list(args.elts)
    elif isinstance(args, ast.Constant) and isinstance(args.value, tuple) \
            and isinstance(func, BuildClass):
        positional = [const(v) for v in args.value]
    else:
        # f(*x), and f(*(a, b)): a call with only plain arguments needs no tuple
        positional = [ast.Starred(value=m.value(args), ctx=ast.Load())]
    keywords = []
    starred = any(isinstance(a, ast.Starred)
                  for a in (positional[2:] if isinstance(func, BuildClass) else positional))
    if kwargs is not None:
        if isinstance(kwargs, ast.Dict) and (not kwargs.keys or not starred and all(
                k is not None for k in kwargs.keys)):
            # f(**{...}): plain keywords alone would not need the dict
            keywords.append(ast.keyword(arg=None, value=kwargs))
        elif isinstance(kwargs, ast.Dict):
            for k, v in zip(kwargs.keys, kwargs.values):
                if k is None:
                    keywords.append(ast.keyword(arg=None, value=v))
                elif isinstance(k, ast.Constant) and isinstance(k.value, str):
                    keywords.append(ast.keyword(arg=k.value, value=v))
                else:
                    raise DecompileFailure("keyword name is not a string")
        else:
            keywords.append(ast.keyword(arg=None, value=kwargs))
    if isinstance(func, BuildClass):
        m.push(_class_value(m, positional, keywords, op), op)
        return
    positional = [m.value(a) for a in positional]
    m.push(ast.Call(func=m.value(func), args=positional, keywords=keywords), op)


@handles("MAKE_FUNCTION")
def _make_function(m, op):
    code = m.pop()
    if not isinstance(code, CodeConst):
        raise DecompileFailure("MAKE_FUNCTION without a code constant")
    flags = op.arg or 0
    closure = m.pop_value() if flags & 8 else None
    annotations = m.pop_value() if flags & 4 else None
    if flags & 16:
        # 3.14+ (PEP 649): the annotations are what an __annotate__ function returns
        annotate = m.pop()
        if not isinstance(annotate, FunctionValue):
            raise DecompileFailure("__annotate__ is not a function made here")
        annotations = m.ctx.nested(annotate, "annotate")
    kwdefaults = m.pop_value() if flags & 2 else None
    defaults = m.pop_value() if flags & 1 else None
    m.push_new(FunctionValue(code.code, defaults, kwdefaults, annotations, closure), op)


@handles("GET_ITER")
def _get_iter(m, op):
    m.push(Iterator(m.pop_value()), op)


@handles("GET_AITER")
def _get_aiter(m, op):
    m.push(Iterator(m.pop_value(), is_async=True), op)


# -- stores -----------------------------------------------------------------------------

def store(m: StackMachine, target: ast.expr, op) -> None:
    """Assign the top of the stack to ``target``, recognising chained and
    unpacking assignments, augmented assignments, defs, classes and imports."""
    value = m.pop()
    if type(value) not in AST_KINDS and isinstance(value, Placeholder):   # (most values: no)
        if isinstance(value, UnpackSlot):
            _fill_slot(m, value, target, op)
            return
        if isinstance(value, ImportFromValue):
            store_import_from(m, value, target, op)
            return
        if isinstance(value, Entered):
            m.last_target = target
            return
        if isinstance(value, SavedLocal):
            if not (isinstance(target, ast.Name) and target.id == value.name):
                raise DecompileFailure("saved comprehension local stored elsewhere")
            return
    if isinstance(target, ast.Name) and target.id.startswith("."):
        m.ctx.hidden[target.id] = value      # `.type_params`, `.generic_base`
        return
    _assign_value(m, target, value, op)


def _assign_value(m, target, value, op) -> None:
    """The last step of every store: a chained or tuple assignment in progress,
    or one statement."""
    if m.stack and m.stack[-1] is value and _keep_copy(m, value, target):
        return
    targets = [target]
    if type(value) not in AST_KINDS and isinstance(value, PendingNamed):
        targets = value.targets + targets
        value = value.value
    if m.multi or (len(targets) == 1 and len(m.stack) > m.base and _values_pending(m)):
        if not m.multi:
            m.multi_values = list(m.stack[m.base:])
        m.multi.append((target, value, next(PUSH_TIMES), op))
        if not _values_pending(m):
            # Values in the order they were evaluated; each pairs with its target.
            pairs = sorted(m.multi, key=lambda p: getattr(p[1], "_seq", 0))
            m.multi = []
            m.emit(ast.Assign(targets=[ast.Tuple(elts=[p[0] for p in pairs], ctx=ast.Store())],
                              value=ast.Tuple(elts=[m.value(p[1]) for p in pairs],
                                              ctx=ast.Load())), op)
        return
    statement = _assignment(m, targets, value, op)
    m.emit(statement, op)


def _values_pending(m) -> bool:
    """Values of the statement still on the stack: more stores will take them."""
    pending = m.stack[m.base:]
    return bool(pending) and all(
        not isinstance(v, Placeholder) or isinstance(v, (FunctionValue, ClassValue))
        for v in pending)


def _keep_copy(m, value, target) -> bool:
    """A store of a value whose copy stays on the stack (``a = b = v`` or ``(a := v)``)
    marks that copy; the next use decides which it was."""
    if not (m.stack and m.stack[-1] is value):
        return False
    if isinstance(value, TypeParamValue):
        return True          # the type parameter's own name, bound by the compiler
    if isinstance(value, PendingNamed):
        value.targets.append(target)
    else:
        m.stack[-1] = PendingNamed(value, [target])
    return True


def _assignment(m, targets, value, op):
    if len(targets) == 1 and type(value) not in _FINISHED_KINDS \
            and isinstance(value, _DEFINING):
        # (only a placeholder or a call (a decorator's) can make another statement)
        target = targets[0]
        if isinstance(value, InPlace) and same_target(value.target, target):
            return ast.AugAssign(target=target, op=value.op, value=value.value)
        special = definition(m, target, value)
        if special is not None:
            return special
    node = ast.Assign(targets, m.value(value))
    node.lineno = op.line
    return node


#: the only values _assignment may turn into something but an assignment
_DEFINING = (Placeholder, ast.Call)


def definition(m, target, value):
    if not isinstance(target, ast.Name):
        return None
    if isinstance(value, ImportValue):
        return _import_statement(value, target.id)
    if isinstance(value, ImportFromValue):
        raise DecompileFailure("unexpected import-from store")
    if isinstance(value, TypeAliasValue) and value.name == target.id:
        return m.ctx.nested(value, "alias")
    decorators = []
    inner = value
    while isinstance(inner, ast.Call) and len(inner.args) == 1 and not inner.keywords \
            and isinstance(inner.args[0], (FunctionValue, ClassValue, ast.Call)):
        decorators.append(inner.func)
        inner = inner.args[0]
    if isinstance(inner, ClassValue) and m.ctx.mangle(inner.name) == target.id:
        return m.ctx.nested(inner, ("class", decorators))
    if isinstance(inner, FunctionValue) and m.ctx.mangle(inner.code.name) == target.id:
        return m.ctx.nested(inner, ("def", decorators))
    if decorators:
        return None
    return None


def _fill_slot(m, slot: UnpackSlot, target, op):
    owner = slot.owner
    owner.slots[slot.index] = target
    if owner.complete():
        _target_complete(m, owner, op)


def _target_complete(m, owner, op):
    """Every slot of ``owner`` filled: its target goes where its value does."""
    tuple_target = owner.as_target()
    if owner.parent is not None:
        _fill_slot(m, owner.parent, tuple_target, op)
        return
    try:
        tuple_target = resolve_dead_slots(tuple_target)
    except ValueError as e:
        raise DecompileFailure(str(e))
    value = owner.value
    if isinstance(value, Entered):
        m.last_target = tuple_target      # `with cm as (a, b):`
        return
    if isinstance(value, ForTarget):
        value.target = tuple_target
        if m.stack and m.stack[-1] is value:
            m.pop()          # it stayed on the stack while the target filled
        return
    _assign_value(m, tuple_target, value, op)


class ForTarget(Placeholder):      # (no subclasses: tested by type)
    """The item FOR_ITER produced; the stores that follow fill ``target``."""

    def __init__(self):
        super().__init__()
        self.target = None


def same_target(a, b) -> bool:
    """``a`` (a loaded value) and the target ``b`` name the same thing: their
    dumps agree once ``b`` loads. (Names and attributes of them compared
    directly: the dumps of copies cost more than the rest of an augmented
    assignment.)"""
    kind = type(a)
    if kind is type(b) and kind in _NAMING and type(getattr(a, "ctx", None)) is ast.Load:
        if kind is ast.Name and type(a.id) is str and type(b.id) is str:
            return a.id == b.id
        if kind is ast.Attribute and type(a.attr) is str and type(b.attr) is str:
            return a.attr == b.attr and same_target(a.value, b.value)
    return ast.dump(a, annotate_fields=False) == ast.dump(
        _as_load(b), annotate_fields=False)


_NAMING = (ast.Name, ast.Attribute)


def _as_load(node):
    import copy
    node = copy.deepcopy(node)
    for n in ast.walk(node):
        if hasattr(n, "ctx"):
            n.ctx = ast.Load()
    return node


def _store_ctx(node):
    node.ctx = ast.Store()
    return node


@handles("STORE_NAME", "STORE_GLOBAL", "STORE_FAST", "STORE_DEREF")
def _store_name(m, op):
    if op.arg in _ANNOTATE_NAMES and m.ctx.kind in ("module", "class") and m.stack \
            and isinstance(m.stack[-1], FunctionValue) and m.stack[-1].code.name == "__annotate__":
        m.emit(DeferredAnnotations(m.pop()), op)     # (3.14+: see deferred_annotations)
        return
    if m.stack and type(m.stack[-1]) is ForTarget and m.stack[-1].target is None:
        m.pop().target = ast.Name(op.arg, _STORE)
        return
    store(m, ast.Name(op.arg, _STORE), op)


#: where a 3.14+ module (``__annotate__``) or class body keeps its annotations' function
_ANNOTATE_NAMES = frozenset({"__annotate__", "__annotate_func__"})


@handles("BUILD_INTERPOLATION")
def _build_interpolation(m, op):
    # (3.14+, PEP 750) the argument: a format spec (bit 0), the conversion (bits 2-3)
    flags = op.arg or 0
    spec = m.pop_value() if flags & 1 else None
    text = m.pop_value()
    value = m.pop_value()
    if not (isinstance(text, ast.Constant) and isinstance(text.value, str)):
        raise DecompileFailure("an interpolation without its expression's text")
    conversion = (-1, ord("s"), ord("r"), ord("a"))[(flags >> 2) & 3]
    if spec is not None and not isinstance(spec, ast.JoinedStr):
        spec = ast.JoinedStr(values=[spec])
    m.push_new(Interpolation(value=value, str=text.value, conversion=conversion,
                             format_spec=spec), op)


@handles("BUILD_TEMPLATE")
def _build_template(m, op):
    interpolations = m.pop_value()
    strings = m.pop_value()
    if isinstance(interpolations, ast.Constant) and interpolations.value == ():
        interpolations = ast.Tuple(elts=[], ctx=ast.Load())
    if not (isinstance(strings, ast.Constant) and isinstance(strings.value, tuple)
            and isinstance(interpolations, ast.Tuple)
            and len(strings.value) == len(interpolations.elts) + 1
            and all(isinstance(i, Interpolation) for i in interpolations.elts)):
        raise DecompileFailure("BUILD_TEMPLATE without its strings and interpolations")
    values = []
    for k, text in enumerate(strings.value):
        if text:
            values.append(ast.Constant(text))
        if k < len(interpolations.elts):
            values.append(interpolations.elts[k])
    m.push_new(TemplateStr(values=values), op)


@handles("ANNOTATION_MARK")
def _annotation_mark(m, op):
    m.emit(AnnotationMark(op.arg), op)


@handles("STORE_ATTR")
def _store_attr(m, op):
    obj = m.pop_value()
    target = ast.Attribute(value=obj, attr=m.ctx.unmangle(op.arg), ctx=ast.Store())
    if m.stack and isinstance(m.stack[-1], ForTarget) and m.stack[-1].target is None:
        m.pop().target = target
        return
    store(m, target, op)


@handles("STORE_SUBSCR")
def _store_subscr(m, op):
    index = m.pop_value()
    obj = m.pop_value()
    if _annotation_store(m, obj, index, op):
        return
    target = ast.Subscript(value=obj, slice=index, ctx=ast.Store())
    if m.stack and isinstance(m.stack[-1], ForTarget) and m.stack[-1].target is None:
        m.pop().target = target
        return
    store(m, target, op)


CO_FUTURE_ANNOTATIONS = 0x1000000


def annotation_expr(code, node):
    """An annotation as written: under ``from __future__ import annotations`` the
    compiler stores the source text, which we parse back."""
    flags = getattr(code, "flags", 0) or 0
    if flags & CO_FUTURE_ANNOTATIONS and isinstance(node, ast.Constant) \
            and isinstance(node.value, str):
        try:
            return ast.parse(node.value, mode="eval").body
        except SyntaxError:
            return node
    return node


def _annotation_store(m, obj, index, op) -> bool:
    """``ann; LOAD_NAME __annotations__; LOAD_CONST 'x'; STORE_SUBSCR`` in a module
    or class body is ``x: ann``; right after ``x = v`` it is ``x: ann = v``."""
    if not (m.ctx.kind in ("module", "class") and isinstance(obj, ast.Name)
            and obj.id == "__annotations__" and isinstance(index, ast.Constant)
            and isinstance(index.value, str) and index.value.isidentifier()):
        return False
    annotation = annotation_expr(m.ctx.code, m.pop_value())
    name = index.value
    target = ast.Name(id=name, ctx=ast.Store())
    prev = m.stmts[-1] if m.stmts else None
    if isinstance(prev, ast.Assign) and len(prev.targets) == 1 \
            and isinstance(prev.targets[0], ast.Name) and prev.targets[0].id == name:
        node = ast.AnnAssign(target=target, annotation=annotation, value=prev.value, simple=1)
        node.lineno = prev.lineno
        m.stmts[-1] = node
        m.start_line = None
        return True
    m.emit(ast.AnnAssign(target=target, annotation=annotation, value=None, simple=1), op)
    return True


@handles("STORE_SLICE")
def _store_slice(m, op):
    upper, lower = m.pop_value(), m.pop_value()
    obj = m.pop_value()
    store(m, ast.Subscript(value=obj, slice=_make_slice(lower, upper), ctx=ast.Store()), op)


@handles("UNPACK_SEQUENCE")
def _unpack_sequence(m, op):
    value = m.pop()
    _push_unpack(m, value, op.arg, None, op)


@handles("UNPACK_EX")
def _unpack_ex(m, op):
    before, after = op.arg & 0xFF, op.arg >> 8
    value = m.pop()
    _push_unpack(m, value, before + 1 + after, before, op)


def _push_unpack(m, value, n, star, op):
    parent = value if isinstance(value, UnpackSlot) else None
    if isinstance(value, ForTarget):
        owner = UnpackTarget(value, [None] * n, star, None, op.line)
        m.push(value)    # stays until its target is complete
    else:
        owner = UnpackTarget(value, [None] * n, star, parent, op.line)
    if n == 0:
        # (`for [] in xs`, `() = x`: nothing to fill, complete at once)
        _target_complete(m, owner, op)
        return
    for i in reversed(range(n)):
        m.push(UnpackSlot(owner, i))


@handles("DELETE_NAME", "DELETE_GLOBAL", "DELETE_FAST", "DELETE_DEREF")
def _delete_name(m, op):
    m.emit(ast.Delete(targets=[ast.Name(id=op.arg, ctx=ast.Del())]), op)


@handles("DELETE_ATTR")
def _delete_attr(m, op):
    obj = m.pop_value()
    m.emit(ast.Delete(targets=[ast.Attribute(value=obj, attr=m.ctx.unmangle(op.arg),
                                             ctx=ast.Del())]), op)


@handles("DELETE_SUBSCR")
def _delete_subscr(m, op):
    index = m.pop_value()
    obj = m.pop_value()
    m.emit(ast.Delete(targets=[ast.Subscript(value=obj, slice=index, ctx=ast.Del())]), op)


# -- imports ------------------------------------------------------------------------------

@handles("IMPORT_NAME")
def _import_name(m, op):
    fromlist = m.pop()
    level = m.pop()
    if not (isinstance(fromlist, ast.Constant) and isinstance(level, ast.Constant)):
        raise DecompileFailure("IMPORT_NAME with computed arguments")
    value = ImportValue(op.arg, level.value, fromlist.value, op.line)
    value.lazy = op.extra == LAZY_IMPORT
    m.push(value, op)


def _lazy(node, module: ImportValue):
    if module.lazy:
        node.is_lazy = 1
    return node


@handles("IMPORT_FROM")
def _import_from(m, op):
    source = m.top()
    if isinstance(source, ImportValue):
        m.push(ImportFromValue(source, op.arg))
    elif isinstance(source, ImportFromValue) and source.module.fromlist is None:
        m.push(ImportFromValue(source.module, op.arg, source.path))
    else:
        raise DecompileFailure("IMPORT_FROM without a module")


@handles("IMPORT_STAR")
def _import_star(m, op):
    module = m.pop()
    if not isinstance(module, ImportValue):
        raise DecompileFailure("import * without a module")
    m.emit(_lazy(ast.ImportFrom(module=module.name or None, names=[ast.alias(name="*")],
                                level=module.level), module), op)


def _import_statement(module: ImportValue, stored: str):
    if module.fromlist is None and module.level == 0:
        first = module.name.split(".")[0]
        if stored == first:
            return _lazy(ast.Import(names=[ast.alias(name=module.name)]), module)
        if "." not in module.name:
            return _lazy(ast.Import(names=[ast.alias(name=module.name, asname=stored)]), module)
    raise DecompileFailure("unrecognised import form")


def _import_from_statement(module: ImportValue):
    if not module.aliases:
        raise DecompileFailure("from-import with no names")
    return _lazy(ast.ImportFrom(module=module.name or None, names=module.aliases,
                                level=module.level), module)


def store_import_from(m, value: ImportFromValue, target, op) -> None:
    """``IMPORT_FROM x; STORE y``: one more name of a from-import, or the end of
    ``import a.b.c as d`` (IMPORT_FROM b; IMPORT_FROM c; STORE d)."""
    if not isinstance(target, ast.Name):
        raise DecompileFailure("import into a non-name")
    module = value.module
    if module.fromlist is None:
        if ".".join((module.name.split(".")[0],) + value.path) != module.name:
            raise DecompileFailure("partial dotted import alias")
        m.emit(ast.Import(names=[ast.alias(name=module.name, asname=target.id)]), op)
        return
    asname = None if value.name == target.id else target.id
    module.aliases.append(ast.alias(name=value.name, asname=asname))


# -- returns, raises, yields ------------------------------------------------------------------

@handles("RETURN_VALUE")
def _return(m, op):
    if m.ctx.kind == "generic":
        m.emit(ast.Return(value=m.pop()), op)    # the def/class/alias it sets up
        return
    value = m.pop_value()
    node = ast.Return(value)
    # The compiler's own `return None` shares the line of the statement before it.
    node.implicit = op.index in getattr(m.ctx, "implicit_returns", ()) and op.arg != "copied"
    #: a branch of `return a if t else b` (the compiler copied the return into it)
    node.copied = op.arg == "copied"
    m.emit(node, op)


@handles("RAISE_VARARGS")
def _raise(m, op):
    cause = m.pop_value() if op.arg >= 2 else None
    exc = m.pop_value() if op.arg >= 1 else None
    if op.arg == 1 and getattr(exc, "assertion", False):
        # `assert False`; under a condition the walker makes it `assert c`.
        m.emit(ast.Assert(test=const(False), msg=None), op)
    elif op.arg == 1 and isinstance(exc, ast.Call) and getattr(exc.func, "assertion", False) \
            and len(exc.args) == 1 and not exc.keywords:
        m.emit(ast.Assert(test=const(False), msg=exc.args[0]), op)
    else:
        m.emit(ast.Raise(exc=exc, cause=cause), op)


@handles("YIELD_VALUE")
def _yield(m, op):
    m.push(ast.Yield(value=m.pop_value()), op)


@handles("GET_AWAITABLE")
def _get_awaitable(m, op):
    m.push(Delegated(m.pop_value(), ast.Await), op)


@handles("GET_YIELD_FROM_ITER")
def _get_yield_from_iter(m, op):
    m.push(Delegated(m.pop_value(), ast.YieldFrom), op)


@handles("YIELD_FROM")
def _yield_from(m, op):
    sent = m.pop()
    source = m.pop()
    if not (isinstance(sent, ast.Constant) and sent.value is None) \
            or not isinstance(source, Delegated):
        raise DecompileFailure("YIELD_FROM without GET_AWAITABLE / GET_YIELD_FROM_ITER")
    if source.node_type is ast.Await and getattr(source.value, "awaited", False):
        m.push(source.value, op)        # an async comprehension's implicit await
        return
    m.push(source.node_type(value=source.value), op)


# -- PEP 695 type parameters ------------------------------------------------------------

_TYPE_PARAM_KINDS = {"INTRINSIC_TYPEVAR": "TypeVar", "INTRINSIC_PARAMSPEC": "ParamSpec",
                     "INTRINSIC_TYPEVARTUPLE": "TypeVarTuple"}


@handles("INTRINSIC_1")
def _intrinsic_1(m, op):
    if op.arg in _TYPE_PARAM_KINDS:
        name = m.pop()
        if not isinstance(name, ast.Constant):
            raise DecompileFailure("type parameter without a name")
        m.push(TypeParamValue(_TYPE_PARAM_KINDS[op.arg], name.value), op)
    elif op.arg == "INTRINSIC_SUBSCRIPT_GENERIC":
        m.pop()
        m.push(GenericBase(), op)
    elif op.arg == "INTRINSIC_TYPEALIAS":
        parts = m.pop()
        if not (isinstance(parts, ast.Tuple) and len(parts.elts) == 3
                and isinstance(parts.elts[0], ast.Constant)
                and isinstance(parts.elts[2], FunctionValue)):
            raise DecompileFailure("type alias not understood")
        name, params, value = parts.elts
        params = params.elts if isinstance(params, ast.Tuple) else []
        m.push(TypeAliasValue(name.value, list(params), value), op)
    else:
        raise DecompileFailure("no expression rule for %s" % op.arg)


@handles("INTRINSIC_2")
def _intrinsic_2(m, op):
    second = m.pop()
    first = m.pop()
    if op.arg in ("INTRINSIC_TYPEVAR_WITH_BOUND", "INTRINSIC_TYPEVAR_WITH_CONSTRAINTS"):
        if not isinstance(first, ast.Constant) or not isinstance(second, FunctionValue):
            raise DecompileFailure("type parameter bound not understood")
        m.push(TypeParamValue("TypeVar", first.value, bound=second), op)
    elif op.arg == "INTRINSIC_SET_TYPEPARAM_DEFAULT":
        if not isinstance(first, TypeParamValue) or not isinstance(second, FunctionValue):
            raise DecompileFailure("type parameter default not understood")
        first.default = second
        m.push(first, op)
    elif op.arg == "INTRINSIC_SET_FUNCTION_TYPE_PARAMS":
        if not isinstance(first, FunctionValue) or not isinstance(second, ast.Tuple):
            raise DecompileFailure("function type parameters not understood")
        first.type_params = list(second.elts)
        m.push(first, op)
    else:
        raise DecompileFailure("no expression rule for %s" % op.arg)


@handles("PRINT_EXPR")
def _print_expr(m, op):
    m.emit(ast.Expr(value=m.pop_value()), op)


@handles("POP_EXCEPT")
def _pop_except(m, op):
    # Leaving an except clause: drop the saved exception state wherever the
    # clause's own values left it.
    for k in range(len(m.stack) - 1, -1, -1):
        if isinstance(m.stack[k], ExcInfo):
            del m.stack[k]
            return
    raise DecompileFailure("POP_EXCEPT without a saved exception")


@handles("SETUP_ANNOTATIONS")
def _no_value(m, op):
    pass


@handles("LOOP_TOP")
def _loop_top(m, op):
    # (the head of a loop, on its `while` line, which the loop statement took:
    # the first statement of the body starts at its own first op)
    m.start_line = None
