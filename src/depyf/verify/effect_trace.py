"""Equivalence up to temporaries: two code objects of this interpreter that do
the same things, in the same order, with the same values.

The strict rule and the control-flow rule of :mod:`.compare_code` compare
instructions, so they refuse the faithful decompilation of code a compiler
never wrote: Dynamo keeps values on the stack across what the text writes as
statements, and the text holds them in locals of its own (``stack_0``), which
compile to other instructions. This module runs both code objects
symbolically, path by path, and compares what each *does*:

* every operation that may run code or that reads or changes state (a call,
  an attribute or item access, a store to a real variable, a global read, a
  list built and mutated, a truth test, a raise) is an *effect*, recorded in
  order with its operands;
* an operand is a value: a parameter's initial value, a constant, a tuple or
  slice of values, a list or function made here (making one runs no code: a
  list is named by the order in which effects first use it, a function by its
  code's place among the nested code objects, which validation compares on
  their own), or the result of an earlier effect (by its position);
* the stack and the candidate's own locals (names the original does not
  have: the decompiler's temporaries) only carry values: storing to them and
  loading from them is no effect.

Two code objects are equivalent when, on every path, the effects are the
same, branches test the same values and the paths end alike (the same value
returned or raised). What may differ is when objects are released (a
temporary holds its value until it is reassigned or the function returns)
and which locals a frame shows to ``locals()`` or a debugger.

The model is small and closed: an instruction it does not know, a loop, an
exception handler, a generator or coroutine, or more paths than
:data:`MAX_PATHS` leave the question unanswered (``False``): never a guess.

Example::

    >>> def a(f, x):
    ...     return f(x)
    >>> def b(f, x):
    ...     stack_0 = f
    ...     return stack_0(x)
    >>> equivalent(a.__code__, b.__code__)
    True
    >>> def c(f, x):
    ...     return f(f(x))
    >>> equivalent(a.__code__, c.__code__)
    False
"""
import dis
import sys
import types

from .compare_code import canon_const

VERSION = sys.version_info[:2]

#: paths (and instructions) explored at most before giving up
MAX_PATHS = 256
MAX_STEPS = 100000

#: co_flags that make a code object something this model does not run
_UNMODELLED_FLAGS = 0x20 | 0x80 | 0x100 | 0x200     # generators and coroutines of any kind

#: the interpreters whose instructions the model knows
MODELLED = ((3, 10), (3, 11), (3, 12), (3, 13), (3, 14), (3, 15))
#: 3.11+: LOAD_GLOBAL's low bit pushes a NULL; 3.12+: LOAD_ATTR's low bit asks for a method
_GLOBAL_NULL_BIT = VERSION >= (3, 11)
_ATTR_METHOD_BIT = VERSION >= (3, 12)
#: where that NULL goes: below the callable until 3.12, above it from 3.13
_NULL_FIRST = VERSION < (3, 13)
#: 3.13+: COMPARE_OP's bit 4 (``bool(<)``) converts its result to a bool
_COMPARE_BOOL_BIT = VERSION >= (3, 13)
#: 3.11+: CALL_FUNCTION_EX's callable takes two slots (one NULL), as CALL's does
_EX_CALLABLE_SLOTS = 2 if VERSION >= (3, 11) else 1
#: 3.14+: CALL_FUNCTION_EX always has a slot for its keywords (NULL: none)
_EX_KEYWORD_SLOT = VERSION >= (3, 14)
#: 3.10: MAKE_FUNCTION pops the qualified name above the code
_QUALNAME_OPERAND = VERSION < (3, 11)
#: 3.14+: an item is read by BINARY_OP's ``[]``
_SUBSCRIPT_BINARY_OP = "[]"

NULL = ("null",)


class Unmodelled(Exception):
    """Something the model does not run: equivalence stays unproven."""


def equivalent(original, candidate, instructions=(None, None)):
    """Whether ``candidate`` does what ``original`` does (see the module's
    docstring); False also where the model cannot tell. ``instructions``:
    each one's ``dis.get_instructions`` as a list, where the caller has them."""
    try:
        return _equivalent(original, candidate, instructions)
    except (Unmodelled, IndexError, KeyError, TypeError, ValueError, RecursionError):
        return False


def _equivalent(original, candidate, instructions=(None, None)):
    if VERSION not in MODELLED:
        raise Unmodelled("the instructions of Python %d.%d" % VERSION)
    for code in (original, candidate):
        if code.co_flags & _UNMODELLED_FLAGS:
            raise Unmodelled("a generator or coroutine")
        if getattr(code, "co_exceptiontable", b""):
            raise Unmodelled("exception handlers")
    if _signature(original) != _signature(candidate):
        return False
    if (original.co_cellvars, original.co_freevars) != (candidate.co_cellvars, candidate.co_freevars):
        return False
    real = frozenset(original.co_varnames) | frozenset(original.co_cellvars)
    budget = [MAX_PATHS, MAX_STEPS]
    a = _Run(_Program(original, instructions[0]), real, budget)
    b = _Run(_Program(candidate, instructions[1]), real, budget)
    return _same_paths(a, b, budget)


def _signature(code):
    """What a caller sees: argument counts, ``*``/``**`` and the parameters' names."""
    return (code.co_argcount, getattr(code, "co_posonlyargcount", 0), code.co_kwonlyargcount,
            code.co_flags & (0x04 | 0x08), _params(code))


def _same_paths(a, b, budget):
    """Run ``a`` and ``b`` to their next branch or end, compare, and go on
    down both ways of a branch (each run copied)."""
    todo = [(a, b)]
    while todo:
        a, b = todo.pop()
        budget[0] -= 1
        if budget[0] < 0:
            raise Unmodelled("too many paths")
        end_a, end_b = a.run(), b.run()
        if (a.effects != b.effects or end_a[0] != end_b[0]
                or a.canonical(end_a[1]) != b.canonical(end_b[1])):
            return False
        if end_a[0] == "branch":
            # (end: kind, tested value, index of the op taken when true, when false)
            todo.append((a.fork(end_a[2]), b.fork(end_b[2])))
            todo.append((a.fork(end_a[3]), b.fork(end_b[3])))
    return True


class _Program:
    """A code object's instructions, with jumps as indices."""

    def __init__(self, code, instructions=None):
        self.code = code
        if instructions is None:
            instructions = dis.get_instructions(code)
        self.ins = [i for i in instructions if i.opname not in _SKIP]
        self.at = {i.offset: k for k, i in enumerate(self.ins)}
        self.cells = frozenset(code.co_cellvars) | frozenset(code.co_freevars)
        self.nested = {}
        named = {}
        for c in code.co_consts:
            if isinstance(c, types.CodeType):
                self.nested[id(c)] = named[c.co_name] = named.get(c.co_name, -1) + 1

    def index_of(self, offset):
        # (a jump to a skipped instruction lands on the next one kept)
        for k, i in enumerate(self.ins):
            if i.offset >= offset:
                return k
        raise Unmodelled("a jump out of the code")


class _Run:
    """One path of a program: its stack, its variables and its effects."""

    def __init__(self, program, real, budget):
        self.program, self.real, self.budget = program, real, budget
        self.pc = 0
        self.stack = []
        self.variables = {}
        for name in _params(program.code):
            self.variables[name] = ("param", name)
        self.effects = []
        self.base = 0           # effects of the path before this run's segment
        self.lists = set()      # values known to be exact lists
        self.kwnames = None     # 3.11-3.12: KW_NAMES's tuple for the next call
        self.made = 0           # lists built so far
        self.seen = {}          # list built -> its number in the order effects first use them

    def fork(self, pc):
        other = _Run.__new__(_Run)
        other.program, other.real, other.budget = self.program, self.real, self.budget
        other.pc = pc
        other.stack = list(self.stack)
        other.variables = dict(self.variables)
        other.effects = []      # (each segment is compared on its own)
        other.base = self.base + len(self.effects)
        other.lists = set(self.lists)
        other.kwnames = self.kwnames
        other.made, other.seen = self.made, dict(self.seen)
        return other

    # -- effects -------------------------------------------------------------
    def effect(self, *what, results=1):
        """Record an effect; its results' values."""
        k = self.base + len(self.effects)
        self.effects.append(self.canonical(what))
        return [("r", k, i) for i in range(results)]

    def canonical(self, value):
        """``value`` with each list built named by the order in which effects
        first use it: building a list runs no code, so when it is built
        is unseen until something uses it."""
        if type(value) is not tuple or not value:
            return value
        tag = value[0]
        if tag in _LEAVES:
            return value
        if tag == "list":
            n = self.seen.get(value[1])
            if n is None:
                n = self.seen[value[1]] = len(self.seen)
            return ("list", n) + tuple(self.canonical(v) for v in value[2:])
        return tuple(self.canonical(v) for v in value)

    def push(self, value):
        self.stack.append(value)

    def pop(self, n=None):
        if n is None:
            return self.stack.pop()
        if n == 0:
            return []
        items = self.stack[-n:]
        if len(items) != n:
            raise Unmodelled("stack underflow")
        del self.stack[-n:]
        return items

    def truth(self, value):
        """The truth of ``value``: a test of a truth already taken runs nothing."""
        if value[0] in ("truth", "pure-bool"):
            return value
        _, k, _ = self.effect("TRUTH", value)[0]
        return ("truth", k, 0)

    # -- the walk ------------------------------------------------------------
    def run(self):
        """Step until a branch or an end: ``(kind, value, true_pc, false_pc)``."""
        ins = self.program.ins
        while True:
            self.budget[1] -= 1
            if self.budget[1] < 0:
                raise Unmodelled("too many steps")
            if self.pc >= len(ins):
                raise Unmodelled("ran off the code")
            i = ins[self.pc]
            self.pc += 1
            step = _STEPS.get(i.opname)
            if step is None:
                raise Unmodelled(i.opname)
            end = step(self, i)
            if end is not None:
                return end

    def ahead(self, offset):
        """The index of the instruction at ``offset``, which must lie ahead."""
        k = self.program.at.get(offset)
        if k is None:
            k = self.program.index_of(offset)
        if k < self.pc:
            raise Unmodelled("a loop")
        return k


def _params(code):
    flags = code.co_flags
    count = code.co_argcount + code.co_kwonlyargcount + bool(flags & 0x04) + bool(flags & 0x08)
    return code.co_varnames[:count]


def _const(value, program=None):
    if isinstance(value, types.CodeType):
        if program is None:
            raise Unmodelled("a code object inside a constant")
        # (by its path's last part: the k-th nested object of that name, which
        # validation compares with the candidate's on its own)
        return ("code", value.co_name, program.nested[id(value)])
    if type(value) is tuple:
        return ("tuple",) + tuple(_const(v) for v in value)
    if type(value) is slice:        # (3.14+ folds constant slices: as BUILD_SLICE makes them)
        return ("slice", _const(value.start), _const(value.stop), _const(value.step))
    return ("const", canon_const(value))


# -- one short function per instruction family ------------------------------------
# Each takes the run and the instruction; returns None to go on, or the end of
# the segment.

def _nothing(run, i):
    return None


def _pop_top(run, i):
    run.pop()


def _push_null(run, i):
    run.push(NULL)


def _copy(run, i):
    run.push(run.stack[-i.arg])


def _swap(run, i):
    s = run.stack
    s[-1], s[-i.arg] = s[-i.arg], s[-1]


def _rotate(n):
    def rotate(run, i):
        top = run.pop()
        run.stack.insert(len(run.stack) - (n - 1), top)
    return rotate


def _rot_n(run, i):
    _rotate(i.arg)(run, i)


def _dup_top(run, i):
    run.push(run.stack[-1])


def _dup_top_two(run, i):
    run.stack.extend(run.stack[-2:])


def _load_const(run, i):
    run.push(_const(i.argval, run.program))


def _load_fast(run, i):
    name = i.argval
    if name in run.program.cells:
        # (3.13+: a cell's own load, for a closure: what 3.12 wrote LOAD_CLOSURE)
        return _load_closure(run, i)
    value = run.variables.get(name)
    if value is None:
        # (an unbound variable raises; a temporary the candidate made is never read unbound)
        if name not in run.real:
            raise Unmodelled("a temporary read before it is set")
        value = run.effect("LOAD_UNBOUND", name)[0]
    run.push(value)


def _store_fast(run, i):
    name, value = i.argval, run.pop()
    run.variables[name] = value
    if name in run.real:
        run.effect("STORE", name, value)


def _delete_fast(run, i):
    name = i.argval
    if name in run.real:
        run.effect("DELETE", name)
        run.variables.pop(name, None)
    elif run.variables.pop(name, None) is None:
        raise Unmodelled("a temporary deleted unbound")


def _fused(first, second):
    def both(run, i):
        a, b = i.argval
        first(run, _Arg(a))
        second(run, _Arg(b))
    return both


class _Arg:
    __slots__ = ("argval", "arg")

    def __init__(self, argval):
        self.argval, self.arg = argval, None


def _load_closure(run, i):
    run.push(("cell", i.argval))


def _load_global(run, i):
    value = run.effect("LOAD_GLOBAL", i.argval)[0]
    _push_callable(run, value, _GLOBAL_NULL_BIT and i.arg & 1)


def _push_callable(run, value, null):
    """Push ``value``, with a NULL beside it (a call filters it out) where the
    instruction pushes one."""
    if null and _NULL_FIRST:
        run.push(NULL)
    run.push(value)
    if null and not _NULL_FIRST:
        run.push(NULL)


def _load_name_like(run, i):
    run.push(run.effect(i.opname, i.argval)[0])


def _load_attr(run, i):
    _attribute(run, run.pop(), i.argval, bool(_ATTR_METHOD_BIT and i.arg & 1))


def _load_method(run, i):
    _attribute(run, run.pop(), i.argval, True)


def _attribute(run, obj, name, method):
    """Push ``obj.name`` (with the NULL of a method load where ``method``)."""
    if obj[0] == "function" and name == "__closure__" and not method:
        # (a function made here: its cells, read without running code)
        cells = obj[1 + _CELLS]
        return run.push(_const(None) if cells is None else cells)
    if obj in run.lists and name in _LIST_METHODS:
        value = ("list-method", name, obj)      # (an exact list's method: found without running code)
    else:
        value = run.effect("LOAD_ATTR", name, obj)[0]
    _push_callable(run, value, method)


def _store_attr(run, i):
    obj, value = run.pop(), run.pop()
    run.effect("STORE_ATTR", i.argval, obj, value, results=0)


def _delete_attr(run, i):
    run.effect("DELETE_ATTR", i.argval, run.pop(), results=0)


def _store_named(run, i):
    run.effect(i.opname, i.argval, run.pop(), results=0)


def _delete_named(run, i):
    run.effect(i.opname, i.argval, results=0)


def _binary_subscr(run, i):
    key = run.pop()
    container = run.pop()
    _subscript(run, container, key)


def _subscript(run, container, key):
    if container[0] == "tuple" and key[0] == "const" and key[1].startswith("int:"):
        k = int(key[1][4:])
        if 0 <= k < len(container) - 1:
            return run.push(container[1 + k])      # (an item of a tuple made here)
    value = run.effect("GETITEM", container, key)[0]
    if container in run.lists and key[0] == "slice":
        run.lists.add(value)
    run.push(value)


def _binary_slice(run, i):
    stop, start = run.pop(), run.pop()
    container = run.pop()
    _subscript(run, container, ("slice", start, stop, _const(None)))


def _store_subscr(run, i):
    key, container, value = run.pop(), run.pop(), run.pop()
    run.effect("SETITEM", container, key, value, results=0)


def _store_slice(run, i):
    stop, start, container, value = run.pop(), run.pop(), run.pop(), run.pop()
    run.effect("SETITEM", container, ("slice", start, stop, _const(None)), value, results=0)


def _delete_subscr(run, i):
    key, container = run.pop(), run.pop()
    run.effect("DELITEM", container, key, results=0)


def _build_slice(run, i):
    parts = run.pop(i.arg)
    if len(parts) == 2:
        parts.append(_const(None))
    run.push(("slice",) + tuple(parts))


def _build_tuple(run, i):
    run.push(("tuple",) + tuple(run.pop(i.arg)))


def _build_list(run, i):
    # (a list of values at hand: no code runs, so no effect until it is used)
    run.made += 1
    value = ("list", run.made) + tuple(run.pop(i.arg))
    run.lists.add(value)
    run.push(value)


def _build_other(run, i):
    run.push(run.effect(i.opname, i.arg, *run.pop(_BUILD_POPS[i.opname](i.arg)))[0])


def _build_string(run, i):
    run.push(("string",) + tuple(run.pop(i.arg)))


def _container_op(name):
    def op(run, i):
        value = run.pop()
        run.effect(name, run.stack[-i.arg], value, results=0)
    return op


def _list_to_tuple(run, i):
    run.push(run.effect("LIST_TO_TUPLE", run.pop())[0])


def _intrinsic_1(run, i):
    if i.argrepr != "INTRINSIC_LIST_TO_TUPLE":
        raise Unmodelled(i.argrepr)
    _list_to_tuple(run, i)


def _unary(run, i):
    run.push(run.effect(i.opname, run.pop())[0])


def _unary_not(run, i):
    run.push(("pure-bool", "not", run.truth(run.pop())))


def _to_bool(run, i):
    run.push(run.truth(run.pop()))


def _binary(run, i):
    right, left = run.pop(), run.pop()
    if i.opname == "BINARY_OP" and i.argrepr == _SUBSCRIPT_BINARY_OP:
        return _subscript(run, left, right)
    # (the argument too: 3.10's CONTAINS_OP prints no ``not in``)
    run.push(run.effect(i.opname, i.arg, i.argrepr, left, right)[0])


def _compare(run, i):
    right, left = run.pop(), run.pop()
    boolean = _COMPARE_BOOL_BIT and i.arg & 16
    how = i.argrepr[5:-1] if boolean and i.argrepr.startswith("bool(") else i.argrepr
    value = run.effect("COMPARE_OP", how, left, right)[0]
    run.push(run.truth(value) if boolean else value)


def _is_op(run, i):
    right, left = run.pop(), run.pop()
    run.push(("pure-bool", "is", i.arg, left, right))


def _unpack_sequence(run, i):
    values = run.effect("UNPACK_SEQUENCE", i.arg, run.pop(), results=i.arg)
    run.stack.extend(reversed(values))


def _format_value(run, i):
    spec = run.pop() if (i.arg or 0) & 0x04 else None
    run.push(run.effect("FORMAT_VALUE", (i.arg or 0) & 0x03, run.pop(), spec)[0])


def _format_simple(run, i):
    run.push(run.effect("FORMAT", run.pop())[0])


def _format_with_spec(run, i):
    spec = run.pop()
    run.push(run.effect("FORMAT", run.pop(), spec)[0])


def _convert_value(run, i):
    run.push(run.effect("CONVERT", i.arg, run.pop())[0])


def _import_name(run, i):
    fromlist, level = run.pop(), run.pop()
    run.push(run.effect("IMPORT_NAME", i.argval, level, fromlist)[0])


def _import_from(run, i):
    run.push(run.effect("IMPORT_FROM", i.argval, run.stack[-1])[0])


# -- functions made ----------------------------------------------------------------
# A function made here is a value like a tuple: making one runs no code. It is
# (code, defaults, keyword defaults, cells, annotations), each slot a value or None.

_FUNCTION_SLOTS = ((0x08, 3), (0x04, 4), (0x02, 2), (0x01, 1))     # flag -> slot, popped in this order
_CELLS = 3


def _make_function(run, i):
    if _QUALNAME_OPERAND:
        run.pop()               # (a constant)
    code = run.pop()
    if code[0] != "code":
        raise Unmodelled("a function of an unknown code")
    slots = [code, None, None, None, None]
    for flag, slot in _FUNCTION_SLOTS:
        if (i.arg or 0) & flag:
            slots[slot] = run.pop()
    run.push(("function",) + tuple(slots))


def _set_function_attribute(run, i):
    function, value = run.pop(), run.pop()
    for flag, slot in _FUNCTION_SLOTS:
        if i.arg == flag and function[0] == "function":
            parts = list(function)
            parts[1 + slot] = value
            return run.push(tuple(parts))
    raise Unmodelled("SET_FUNCTION_ATTRIBUTE %r" % i.arg)


# -- calls ------------------------------------------------------------------------

def _call_values(run, callable_slots, args, kwnames):
    """Record the call of a callable whose slots (one or two, one maybe NULL)
    and arguments were popped."""
    slots = [s for s in callable_slots if s is not NULL]
    if not slots:
        raise Unmodelled("a call of nothing")
    fn, args = slots[0], slots[1:] + list(args)
    if fn[0] == "list-method" and not kwnames:
        name, target = fn[1], fn[2]
        if name == "extend" and len(args) == 1:
            run.effect("LIST_EXTEND", target, args[0], results=0)
            return run.push(_const(None))
        if name == "append" and len(args) == 1:
            run.effect("LIST_APPEND", target, args[0], results=0)
            return run.push(_const(None))
        fn = run.effect("LOAD_ATTR", name, target)[0]
    run.push(run.effect("CALL", fn, tuple(args), kwnames)[0])


def _call(run, i):
    # 3.11-3.13: the callable takes two slots (NULL and callable, method and self,
    # callable and self-or-NULL): either way the first not NULL is called
    kwnames, run.kwnames = run.kwnames, None
    args = run.pop(i.arg)
    _call_values(run, run.pop(2), args, kwnames)


def _call_kw(run, i):
    kwnames = run.pop()
    args = run.pop(i.arg)
    _call_values(run, run.pop(2), args, kwnames)


def _kw_names(run, i):
    # (3.11's dis leaves the index unresolved)
    run.kwnames = _const(run.program.code.co_consts[i.arg])


def _call_function(run, i):
    args = run.pop(i.arg)
    _call_values(run, [run.pop()], args, None)


def _call_function_kw(run, i):
    kwnames = run.pop()
    args = run.pop(i.arg)
    _call_values(run, [run.pop()], args, kwnames)


def _call_method(run, i):
    args = run.pop(i.arg)
    _call_values(run, run.pop(2), args, None)


def _call_function_ex(run, i):
    if _EX_KEYWORD_SLOT:
        kwargs = run.pop()
        kwargs = None if kwargs is NULL else kwargs
    else:
        kwargs = run.pop() if i.arg & 1 else None
    args = run.pop()
    slots = run.pop(_EX_CALLABLE_SLOTS)
    fn = [s for s in slots if s is not NULL]
    if len(fn) != 1:
        raise Unmodelled("a call with a bound self")
    run.push(run.effect("CALL_EX", fn[0], args, kwargs)[0])


# -- ends and branches ------------------------------------------------------------

def _return_value(run, i):
    return ("return", run.pop(), None, None)


def _return_const(run, i):
    return ("return", _const(i.argval), None, None)


def _raise_varargs(run, i):
    return ("raise", tuple(run.pop(i.arg)), None, None)


def _jump(run, i):
    run.pc = run.ahead(i.argval)


def _pop_jump(when):
    def branch(run, i):
        test = run.truth(run.pop())
        jump = run.ahead(i.argval)
        return ("branch", test) + ((jump, run.pc) if when else (run.pc, jump))
    return branch


def _pop_jump_none(none):
    def branch(run, i):
        test = ("pure-bool", "is", 0, run.pop(), _const(None))
        jump = run.ahead(i.argval)
        return ("branch", test) + ((jump, run.pc) if none else (run.pc, jump))
    return branch


_LIST_METHODS = frozenset(["append", "extend"])
#: values that hold no other value
_LEAVES = frozenset(["r", "truth", "param", "const", "null", "cell", "code"])

_BUILD_POPS = {
    "BUILD_MAP": lambda n: 2 * n,
    "BUILD_SET": lambda n: n,
    "BUILD_CONST_KEY_MAP": lambda n: n + 1,
}

#: instructions that are layout only
_SKIP = frozenset(["NOP", "EXTENDED_ARG", "CACHE", "RESUME", "PRECALL", "NOT_TAKEN",
                   "MAKE_CELL", "COPY_FREE_VARS"])

_STEPS = {
    "POP_TOP": _pop_top, "PUSH_NULL": _push_null, "COPY": _copy, "SWAP": _swap,
    "ROT_TWO": _rotate(2), "ROT_THREE": _rotate(3), "ROT_FOUR": _rotate(4), "ROT_N": _rot_n,
    "DUP_TOP": _dup_top, "DUP_TOP_TWO": _dup_top_two,
    "LOAD_CONST": _load_const, "LOAD_SMALL_INT": _load_const, "LOAD_COMMON_CONSTANT": _load_const,
    "LOAD_FAST": _load_fast, "LOAD_FAST_CHECK": _load_fast, "LOAD_FAST_BORROW": _load_fast,
    "STORE_FAST": _store_fast, "DELETE_FAST": _delete_fast,
    "LOAD_FAST_LOAD_FAST": _fused(_load_fast, _load_fast),
    "LOAD_FAST_BORROW_LOAD_FAST_BORROW": _fused(_load_fast, _load_fast),
    "STORE_FAST_LOAD_FAST": _fused(_store_fast, _load_fast),
    "STORE_FAST_STORE_FAST": _fused(_store_fast, _store_fast),
    "LOAD_CLOSURE": _load_closure, "MAKE_FUNCTION": _make_function,
    "SET_FUNCTION_ATTRIBUTE": _set_function_attribute,
    "LOAD_GLOBAL": _load_global, "LOAD_DEREF": _load_name_like, "LOAD_NAME": _load_name_like,
    "LOAD_CLASSDEREF": _load_name_like,
    "LOAD_ATTR": _load_attr, "LOAD_METHOD": _load_method,
    "STORE_ATTR": _store_attr, "DELETE_ATTR": _delete_attr,
    "STORE_GLOBAL": _store_named, "STORE_DEREF": _store_named, "STORE_NAME": _store_named,
    "DELETE_GLOBAL": _delete_named, "DELETE_DEREF": _delete_named, "DELETE_NAME": _delete_named,
    "BINARY_SUBSCR": _binary_subscr, "BINARY_SLICE": _binary_slice,
    "STORE_SUBSCR": _store_subscr, "STORE_SLICE": _store_slice, "DELETE_SUBSCR": _delete_subscr,
    "BUILD_SLICE": _build_slice, "BUILD_TUPLE": _build_tuple, "BUILD_LIST": _build_list,
    "BUILD_MAP": _build_other, "BUILD_SET": _build_other, "BUILD_CONST_KEY_MAP": _build_other,
    "BUILD_STRING": _build_string,
    "LIST_APPEND": _container_op("LIST_APPEND"), "LIST_EXTEND": _container_op("LIST_EXTEND"),
    "SET_ADD": _container_op("SET_ADD"), "SET_UPDATE": _container_op("SET_UPDATE"),
    "DICT_UPDATE": _container_op("DICT_UPDATE"), "DICT_MERGE": _container_op("DICT_MERGE"),
    "LIST_TO_TUPLE": _list_to_tuple, "CALL_INTRINSIC_1": _intrinsic_1,
    "UNARY_NEGATIVE": _unary, "UNARY_POSITIVE": _unary, "UNARY_INVERT": _unary,
    "UNARY_NOT": _unary_not, "TO_BOOL": _to_bool,
    "BINARY_OP": _binary, "COMPARE_OP": _compare, "CONTAINS_OP": _binary, "IS_OP": _is_op,
    "UNPACK_SEQUENCE": _unpack_sequence,
    "FORMAT_VALUE": _format_value, "FORMAT_SIMPLE": _format_simple,
    "FORMAT_WITH_SPEC": _format_with_spec, "CONVERT_VALUE": _convert_value,
    "IMPORT_NAME": _import_name, "IMPORT_FROM": _import_from,
    "CALL": _call, "CALL_KW": _call_kw, "KW_NAMES": _kw_names,
    "CALL_FUNCTION": _call_function, "CALL_FUNCTION_KW": _call_function_kw,
    "CALL_METHOD": _call_method, "CALL_FUNCTION_EX": _call_function_ex,
    "RETURN_VALUE": _return_value, "RETURN_CONST": _return_const, "RAISE_VARARGS": _raise_varargs,
    "JUMP_FORWARD": _jump, "JUMP_ABSOLUTE": _jump, "JUMP": _jump,
    "POP_JUMP_IF_FALSE": _pop_jump(False), "POP_JUMP_IF_TRUE": _pop_jump(True),
    "POP_JUMP_FORWARD_IF_FALSE": _pop_jump(False), "POP_JUMP_FORWARD_IF_TRUE": _pop_jump(True),
    "POP_JUMP_IF_NONE": _pop_jump_none(True), "POP_JUMP_IF_NOT_NONE": _pop_jump_none(False),
    "POP_JUMP_FORWARD_IF_NONE": _pop_jump_none(True),
    "POP_JUMP_FORWARD_IF_NOT_NONE": _pop_jump_none(False),
}
# 3.10's binary operations, one opname each
_STEPS.update((name, _binary) for name in dis.opmap
              if name.startswith(("BINARY_", "INPLACE_")) and name not in _STEPS)
