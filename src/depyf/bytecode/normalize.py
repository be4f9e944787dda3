"""Small passes that turn each version's bytecode idioms into one IR.

The decompiler never asks which Python wrote the code: every difference it
would care about is rewritten here. Each pass is a small function over a
:class:`~depyf.bytecode.ir.Function`; which passes run for which version is
data (:data:`PASSES`). Passes keep jump targets and exception handlers valid:
when an Op is removed, whatever pointed at it points at the next Op.

Vocabulary after normalisation (differences from the 3.11 names):

* ``JUMP`` for every unconditional jump; ``POP_JUMP_IF_{TRUE,FALSE,NONE,NOT_NONE}``;
  ``JUMP_IF_{TRUE,FALSE}_OR_POP`` for short-circuit ``and``/``or`` (also 3.12+).
* ``BINARY_OP`` with the operator text as argument (``"+"``, ``"+="``...).
* ``COMPARE_OP`` with ``"<"``... ``"is"``, ``"is not"``, ``"in"``, ``"not in"``.
* ``CALL`` with ``(argc, kwnames, slots)``: ``slots`` stack items below the
  arguments hold the callable and, when 2, a self-or-NULL (``PUSH_NULL`` and
  ``LOAD_METHOD`` push those explicitly); no PRECALL or KW_NAMES.
* ``CALL_FUNCTION_EX`` with ``(flags, slots)`` likewise.
* ``MAKE_FUNCTION`` with the flag bits; no qualname on the stack.
* ``FOR_ITER`` targets the first Op after the loop (no END_FOR); ``FOR_ITER "async"``
  is the header of an ``async for`` (no GET_ANEXT await, END_ASYNC_FOR handler).
* ``YIELD_FROM`` after ``GET_AWAITABLE``/``GET_YIELD_FROM_ITER; LOAD_CONST None`` for
  ``await`` and ``yield from`` (no SEND loop, END_SEND or CLEANUP_THROW); YIELD_VALUE
  without argument, no ASYNC_GEN_WRAP; no 3.12+ StopIteration wrapper handler.
* ``RETURN_VALUE "copied"`` (3.12+) where the compiler copied an expression's
  return into one of its branches; ``RETURN_VALUE "explicit"`` (3.8, 3.9) for every
  return but the last op, which alone can be the compiler's own.
* no NOP, RESUME, CACHE, MAKE_CELL, COPY_FREE_VARS, TO_BOOL, GEN_START, PUSH_NULL
  (3.13's conversion of a value to bool is ``UNARY_NOT; UNARY_NOT``).

Example::

    >>> [op.name for op in normalize(lambda: f(a, b=1)).ops]     # on 3.11
    ['PUSH_NULL', 'LOAD_GLOBAL', 'LOAD_GLOBAL', 'LOAD_CONST', 'CALL', 'RETURN_VALUE']
"""
from __future__ import annotations

from typing import Callable, Dict, List, Optional

from .blockstack import block_stack_handlers, exc_info_shuffles
from .dead_code_entries import jumps_into_dead_code
from .finally38 import finally_to_py39
from .inlined_calls import inlined_builtin_calls
from .iterator_pairs import iterator_pairs
from .rotated_loops import unrotated_loops
from .special_lookups import with_specials
from .decode import Bytecode, as_record, decode_ops
from .edits import one_scan, remove_ops, replace_ops, rewrite_each
from .ir import LAZY_IMPORT, NO_FALLTHROUGH, POP_JUMPS, Function, Handler, Op, same_handler
from .versions import SILENT_OPS, VersionTable, get_table


def normalize(obj) -> Function:
    """Decode ``obj`` (CodeRecord, code object or function) and normalise it;
    :class:`~depyf.bytecode.errors.UnsupportedVersionError` for a version the
    reader knows but no passes are written for (see :func:`decompiled_versions`)."""
    if isinstance(obj, Bytecode):
        bc = obj
    else:
        # (before decoding: the complaint is the version, not what decoding it meets)
        record = as_record(obj)
        check_decompiled(record.version)
        bc = decode_ops(record)
    table = bc.table
    check_decompiled(table.version)
    func = to_ops(bc)
    # (a comprehension: cheaper than map with attrgetter, per op)
    present = func.decoded_names = {op.name for op in func.ops}
    for needs, run in _plan(table.version):
        if needs is None or not present.isdisjoint(needs):
            run(func, table)
    func.reindex()
    return func


def decompiled_versions() -> tuple:
    """The versions whose bytecode normalises, so decompiles: those with passes.
    (The reader's range, :data:`~depyf.bytecode.versions.SUPPORTED`, may be wider.)

    >>> decompiled_versions()[0]
    (3, 8)
    """
    return tuple(sorted(PASSES))


def check_decompiled(version) -> None:
    """Raise UnsupportedVersionError naming ``version`` when it does not decompile.

    >>> check_decompiled((3, 11))
    """
    version = tuple(version[:2])
    if version not in PASSES:
        from .errors import UnsupportedVersionError
        known = decompiled_versions()
        raise UnsupportedVersionError(
            "decompiling Python %d.%d bytecode is not supported yet (depyf reads and "
            "disassembles it; it decompiles %d.%d-%d.%d)" % (version + known[0] + known[-1]))


_PLANS: Dict[tuple, list] = {}


def _plan(version) -> list:
    """``PASSES[version]`` as (NEEDS entry, function) pairs, each stretch of one-op
    passes made one function that runs them in one scan (see rewrite_each);
    worked out once per version rather than name by name for every code object.
    (A one-op pass runs with its stretch even when NEEDS would skip it: it sees
    only the op names it changes, and none is there.)"""
    plan = _PLANS.get(version)
    if plan is None:
        plan = []
        stretch = []
        for name in PASSES[version] + [None]:
            if name in OP_PASSES:
                stretch.append((OP_PASSES[name], _OP_REWRITES[name]))
                continue
            if stretch:
                plan.append((None, one_scan(stretch)))
                stretch = []
            if name is not None:
                plan.append((NEEDS.get(name), PASS_FUNCTIONS[name]))
        _PLANS[version] = plan
    return plan


# -- building ------------------------------------------------------------------------

def to_ops(bc: Bytecode) -> Function:
    """One Op per decoded instruction, with targets and 3.11+ handlers as Op references."""
    instructions = bc.instructions
    if bc.as_ops:
        ops = instructions          # the decoder built them (decode_ops)
        op_of = None
    else:
        ops = [Op(ins.opname, ins.argval, None, ins.line, ins.offset, None, ins.arg)
               for ins in instructions]
        by_ins = dict(zip(map(id, instructions), ops))
        for ins, op in zip(instructions, ops):
            if ins.target is not None:
                op.target = by_ins[id(ins.target)]
        op_of = by_ins.__getitem__
    if bc.exception_entries:
        import bisect
        offsets = [ins.offset for ins in bc]
        for entry in bc.exception_entries:
            target = entry.target_instr
            handler = Handler(target if op_of is None else op_of(id(target)),
                              entry.depth, entry.lasti)
            lo = bisect.bisect_left(offsets, entry.start)
            hi = bisect.bisect_left(offsets, entry.end)
            for op in ops[lo:hi]:
                op.handler = handler
    return Function(bc.code, ops)


# -- passes ----------------------------------------------------------------------

# One-op passes (OP_PASSES) take an op and the table: see rewrite_each.

def rename(op: Op, table: VersionTable) -> None:
    """Give one name to ops that differ only in name or jump direction.

    ``POP_JUMP_FORWARD_IF_FALSE L`` / ``POP_JUMP_BACKWARD_IF_FALSE L`` -> ``POP_JUMP_IF_FALSE L``;
    ``JUMP_ABSOLUTE``/``JUMP_FORWARD``/``JUMP_BACKWARD``... -> ``JUMP``;
    ``LOAD_FAST_CHECK x`` -> ``LOAD_FAST x``; ``ROT_TWO`` -> ``SWAP 2``.
    """
    if op.name == "ROT_TWO":
        op.arg = 2          # the same operation as SWAP 2
    op.name = _RENAMES[op.name]


def stack_copies(op: Op, table: VersionTable) -> Optional[List[Op]]:
    """Up to 3.10's stack shuffles in 3.11's two ops (the same stack effect), so
    that nothing after normalising reads two spellings of one shuffle:
    ``DUP_TOP`` -> ``COPY 1``; ``DUP_TOP_TWO`` -> ``COPY 2; COPY 2``;
    ``ROT_THREE`` -> ``SWAP 3; SWAP 2`` (``ROT_FOUR``, ``ROT_N n`` likewise:
    ``SWAP n; ...; SWAP 2``, each swap moving the old top one place down).

    >>> from depyf.bytecode.edits import rewrite_each
    >>> f = Function(None, [Op("DUP_TOP_TWO"), Op("ROT_THREE"), Op("RETURN_VALUE")])
    >>> rewrite_each(f, None, [(OP_PASSES["stack_copies"], stack_copies)])
    >>> [(op.name, op.arg) for op in f.ops]
    [('COPY', 2), ('COPY', 2), ('SWAP', 3), ('SWAP', 2), ('RETURN_VALUE', None)]

    (It runs last, after the passes that read the older spellings in the
    shapes they rebuild: 3.8's finally blocks, the block stack's handlers.)"""
    name = op.name
    if name == "DUP_TOP":
        op.name, op.arg = "COPY", 1
        return None
    if name == "DUP_TOP_TWO":
        return [Op("COPY", 2, line=op.line, offset=op.offset, handler=op.handler)
                for _ in range(2)]
    depth = _ROTATIONS.get(name) or op.arg
    return [Op("SWAP", k, line=op.line, offset=op.offset, handler=op.handler)
            for k in range(depth, 1, -1)]


#: how deep each fixed rotation reaches (ROT_N says so in its argument)
_ROTATIONS = {"ROT_THREE": 3, "ROT_FOUR": 4}


def binary_ops(op: Op, table: VersionTable) -> None:
    """``BINARY_ADD`` -> ``BINARY_OP "+"``, ``INPLACE_ADD`` -> ``BINARY_OP "+="``;
    3.11+ ``BINARY_OP 13`` -> ``BINARY_OP "+="`` (its symbol from the table);
    3.14+ ``BINARY_OP 26 ([])`` -> ``BINARY_SUBSCR``, as every earlier version wrote it."""
    if op.name != "BINARY_OP":
        op.arg = _OLD_BINARY[op.name]
        op.name = "BINARY_OP"
    elif isinstance(op.arg, int):
        op.arg = table.binary_ops[op.arg][1]
        if op.arg == _SUBSCRIPT:
            op.name, op.arg = "BINARY_SUBSCR", None


#: 3.14's symbol for its subscript operator
_SUBSCRIPT = "[]"


def small_ints(op: Op, table: VersionTable) -> None:
    """3.14+ loads a small int without a constant: ``LOAD_SMALL_INT 5`` -> ``LOAD_CONST 5``."""
    op.name = "LOAD_CONST"


def common_constants(op: Op, table: VersionTable) -> None:
    """3.14+ loads a few values by number: ``LOAD_COMMON_CONSTANT 0`` ->
    ``LOAD_ASSERTION_ERROR`` (as 3.9-3.13 wrote it); 3.15's literals (None,
    ``''``, True, False, -1) -> ``LOAD_CONST``; the other builtins (those an
    inlined ``all(genexpr)`` checks against, ``NotImplementedError`` of an
    ``__annotate__``) keep the op, with the builtin's name:
    ``LOAD_COMMON_CONSTANT "all"``."""
    value = table.common_constant(op.arg)
    if value is None or type(value) in _LITERALS:
        op.name, op.arg = "LOAD_CONST", value
        return
    name = getattr(value, "__name__", value)
    if name == "AssertionError":
        op.name, op.arg = "LOAD_ASSERTION_ERROR", None
    else:
        op.arg = name


#: the types of the common constants that are literals, not builtins
_LITERALS = frozenset({str, int, bool, float, bytes})


def call_ex_kwargs_slot(func: Function, table: VersionTable) -> None:
    """3.14+ ``CALL_FUNCTION_EX`` has no argument: a keyword mapping or NULL is
    always pushed. ``PUSH_NULL; CALL_FUNCTION_EX`` -> ``CALL_FUNCTION_EX 0``;
    with a mapping, ``CALL_FUNCTION_EX 1`` (as 3.13 wrote them).
    The NULL may be a ``LOAD_GLOBAL``'s (``LOAD_GLOBAL a + NULL; CALL_FUNCTION_EX``
    for ``f(*a)``): its bit is cleared. Runs on the decoded ops, before the
    NULLs of loads are made ops of their own."""
    ops = func.ops
    doomed = []
    for i, op in enumerate(ops):
        if op.name == "CALL_FUNCTION_EX" and op.arg is None:
            before = ops[i - 1] if i else None
            if before is not None and before.name == "PUSH_NULL":
                doomed.append(before)
                op.arg = 0
            elif before is not None and before.name == "LOAD_GLOBAL" \
                    and before.extra is not None and before.extra & 1:
                before.extra &= ~1
                op.arg = 0
            else:
                op.arg = 1
    remove_ops(func, doomed)


def compare_ops(op: Op, table: VersionTable) -> None:
    """``IS_OP 1`` -> ``COMPARE_OP "is not"``; ``CONTAINS_OP 0`` -> ``COMPARE_OP "in"``;
    ``COMPARE_OP "exception match"`` (3.8) -> ``EXC_MATCH_POP``."""
    if op.name == "IS_OP":
        op.name, op.arg = "COMPARE_OP", "is not" if op.arg else "is"
    elif op.name == "CONTAINS_OP":
        op.name, op.arg = "COMPARE_OP", "not in" if op.arg else "in"
    elif op.arg == "exception match":
        op.name, op.arg = "EXC_MATCH_POP", None


def split_superinstructions(op: Op, table: VersionTable) -> List[Op]:
    """``LOAD_FAST_LOAD_FAST (a, b)`` -> ``LOAD_FAST a; LOAD_FAST b`` (and the STORE forms);
    ``RETURN_CONST c`` -> ``LOAD_CONST c; RETURN_VALUE``."""
    # (The op itself becomes the first half: what aims at it needs no retargeting.)
    halves = _SUPER.get(op.name)
    if halves is not None:
        first, second = op.arg
        op.name, op.arg, op.extra = halves[0], first, None
        return [op, Op(halves[1], second)]
    op.name, op.extra = "LOAD_CONST", None
    return [op, Op("RETURN_VALUE")]


def fold_kwnames(func: Function, table: VersionTable) -> None:
    """Keyword names join their call, and every call says how many stack slots sit
    below its arguments (1: the callable; 2: a callable and a self-or-NULL)::

        CALL_FUNCTION 2                      -> CALL (2, (), 1)
        LOAD_CONST ('b',); CALL_FUNCTION_KW 2 -> CALL (2, ('b',), 1)
        CALL_METHOD 1                        -> CALL (1, (), 2)
        KW_NAMES ('b',); CALL 2  (3.11+)     -> CALL (2, ('b',), 2)
        LOAD_CONST ('b',); CALL_KW 2 (3.13)  -> CALL (2, ('b',), 2)
        SWAP 2; CALL_KW 1 (names loaded earlier) -> CALL (1, None, 2)

    (None: the names are the constant on top of the stack, above the arguments.)
    """
    doomed = []
    pending = None
    for i, op in enumerate(func.ops):
        if op.name not in _CALL_OPS:
            continue            # (most ops: one test, not five)
        if op.name == "KW_NAMES":
            pending = op.arg
            doomed.append(op)
        elif op.name in ("CALL_FUNCTION_KW", "CALL_KW"):
            names = func.ops[i - 1]
            slots = 1 if op.name == "CALL_FUNCTION_KW" else 2
            if names.name == "LOAD_CONST" and isinstance(names.arg, tuple):
                doomed.append(names)
                op.arg = (op.arg, names.arg, slots)
            else:
                # (Dynamo loads the names first and moves them up with SWAPs:
                # they are read off the stack)
                op.arg = (op.arg, None, slots)
            op.name = "CALL"
        elif op.name == "CALL_FUNCTION":
            op.name, op.arg = "CALL", (op.arg, (), 1)
        elif op.name == "CALL_METHOD":
            op.name, op.arg = "CALL", (op.arg, (), 2)
        elif op.name == "CALL":
            op.arg = (op.arg, pending or (), 2)
            pending = None
    remove_ops(func, doomed)


_CALL_OPS = frozenset({"KW_NAMES", "CALL_FUNCTION_KW", "CALL_KW", "CALL_FUNCTION",
                       "CALL_METHOD", "CALL"})


def call_ex_plain(op: Op, table: VersionTable) -> None:
    """Up to 3.10 ``CALL_FUNCTION_EX`` has only the callable below its arguments:
    ``CALL_FUNCTION_EX 1`` -> ``CALL_FUNCTION_EX (1, 1)``."""
    op.arg = (op.arg, 1)


def call_ex_null(op: Op, table: VersionTable) -> None:
    """3.11+ ``CALL_FUNCTION_EX`` has a NULL beside the callable:
    ``CALL_FUNCTION_EX 1`` -> ``CALL_FUNCTION_EX (1, 2)``."""
    op.arg = (op.arg, 2)


def null_before_global(op: Op, table: VersionTable) -> Optional[List[Op]]:
    """3.11/3.12: ``LOAD_GLOBAL`` with its low bit set pushes NULL first:
    ``LOAD_GLOBAL 1 (NULL + f)`` -> ``PUSH_NULL; LOAD_GLOBAL f`` (jumps to the
    load now land on the NULL)."""
    if op.extra is not None and op.extra & 1:
        return [Op("PUSH_NULL", None, None, op.line, op.offset, op.handler), op]
    return None


def null_after_global(op: Op, table: VersionTable) -> Optional[List[Op]]:
    """3.13: the NULL comes after: ``LOAD_GLOBAL 1 (f + NULL)`` -> ``LOAD_GLOBAL f; PUSH_NULL``."""
    if op.extra is not None and op.extra & 1:
        return [op, Op("PUSH_NULL", None, None, op.line, op.offset, op.handler)]
    return None


def method_loads(op: Op, table: VersionTable) -> None:
    """3.12+: ``LOAD_ATTR`` with its low bit set loads a method and a self-or-NULL:
    ``LOAD_ATTR 1 (m + NULL|self)`` -> ``LOAD_METHOD m`` (as older versions wrote it);
    ``LOAD_SUPER_ATTR`` likewise -> ``LOAD_SUPER_METHOD``."""
    if op.extra is not None and op.extra & 1:
        op.name = "LOAD_METHOD" if op.name == "LOAD_ATTR" else "LOAD_SUPER_METHOD"


def drop_noise(op: Op, table: VersionTable) -> List[Op]:
    """Remove ops that carry no source meaning: ``NOP``, ``RESUME``, ``PRECALL``,
    ``MAKE_CELL``, ``COPY_FREE_VARS``, ``GEN_START`` -> (nothing)."""
    return []


def drop_generator_prologue(func: Function, table: VersionTable) -> None:
    """3.11+ generators start by suspending: ``RETURN_GENERATOR; POP_TOP`` -> (nothing)."""
    ops = func.ops
    doomed = []
    for i, op in enumerate(ops[:-1]):
        if op.name == "RETURN_GENERATOR" and ops[i + 1].name == "POP_TOP":
            doomed += [op, ops[i + 1]]
    remove_ops(func, doomed)


def drop_qualname(func: Function, table: VersionTable) -> None:
    """Up to 3.10: ``LOAD_CONST <code>; LOAD_CONST 'f'; MAKE_FUNCTION`` -> no qualname load."""
    ops = func.ops
    doomed = [ops[i - 1] for i, op in enumerate(ops)
              if op.name == "MAKE_FUNCTION" and i >= 2 and ops[i - 1].name == "LOAD_CONST"
              and isinstance(ops[i - 1].arg, str) and ops[i - 2].name == "LOAD_CONST"]
    remove_ops(func, doomed)


def fold_function_attributes(func: Function, table: VersionTable) -> None:
    """3.13: ``MAKE_FUNCTION; SET_FUNCTION_ATTRIBUTE 8; SET_FUNCTION_ATTRIBUTE 1``
    -> ``MAKE_FUNCTION 9`` (the values sit on the stack as older versions had them)."""
    doomed = []
    current = None
    for op in func.ops:
        if op.name == "MAKE_FUNCTION":
            op.arg = op.arg or 0
            current = op
        elif op.name == "SET_FUNCTION_ATTRIBUTE" and current is not None:
            current.arg |= op.arg
            doomed.append(op)
        else:
            current = None
    remove_ops(func, doomed)


def make_function_flags(op: Op, table: VersionTable) -> None:
    """3.13's argument-less ``MAKE_FUNCTION`` gets flags 0 before attributes fold in:
    ``MAKE_FUNCTION`` -> ``MAKE_FUNCTION 0``."""
    if op.arg is None:
        op.arg = 0


def drop_end_for(func: Function, table: VersionTable) -> None:
    """3.12: ``FOR_ITER L ... L: END_FOR; x`` -> ``FOR_ITER x ... x``."""
    _drop_loop_exit(func, ("END_FOR",))


def drop_end_for_pop(func: Function, table: VersionTable) -> None:
    """3.13: ``FOR_ITER L ... L: END_FOR; POP_TOP; x`` -> ``FOR_ITER x ... x``."""
    _drop_loop_exit(func, ("END_FOR", "POP_TOP"))


def _drop_loop_exit(func: Function, names) -> None:
    ops = func.ops
    doomed = []
    for op in ops:
        if op.name == "FOR_ITER" and op.target is not None:
            i = ops.index(op.target)
            if tuple(o.name for o in ops[i:i + len(names)]) == names:
                doomed.extend(ops[i:i + len(names)])
    remove_ops(func, doomed)


def short_circuit_jumps(func: Function, table: VersionTable) -> None:
    """3.12+: ``COPY 1; POP_JUMP_IF_TRUE L; POP_TOP`` -> ``JUMP_IF_TRUE_OR_POP L``
    (the shape ``a or b`` had before)."""
    ops = func.ops
    doomed = []
    resume = 0          # (a match's three ops are not looked at again)
    for i, a in enumerate(ops):
        if a.name != "COPY" or i < resume or i + 2 >= len(ops):
            continue        # (most ops: one test)
        b, c = ops[i + 1], ops[i + 2]
        if (a.arg == 1 and c.name == "POP_TOP"
                and b.name in ("POP_JUMP_IF_TRUE", "POP_JUMP_IF_FALSE")):
            b.name = "JUMP_IF_TRUE_OR_POP" if b.name.endswith("TRUE") else "JUMP_IF_FALSE_OR_POP"
            doomed += [c]
            # The COPY's position now belongs to the jump.
            a.name, a.arg = "NOP", None
            doomed.append(a)
            resume = i + 3
    remove_ops(func, doomed)


def unthread_short_circuit_pops(func: Function, table: VersionTable) -> None:
    """3.14+ threads an ``and`` operand's jump past the ``or`` test that follows
    when it knows that test's outcome: a false ``b`` in ``a or b and c or d``
    lands on the or's POP_TOP, skipping its test. Send it to the test, as
    3.12 and 3.13 do, so that each operator's jumps end at its own operand::

        b; COPY 1; POP_JUMP_IF_FALSE X; POP_TOP; c; T: COPY 1; POP_JUMP_IF_TRUE M; X: POP_TOP; d
        -> b; COPY 1; POP_JUMP_IF_FALSE T; POP_TOP; c; T: ...

    (Before ``short_circuit_jumps`` makes each triple one jump.)
    """
    ops = func.ops
    func.reindex()
    for i, op in enumerate(ops[:-2]):
        if op.name != "COPY" or op.arg != 1 or ops[i + 1].name not in POP_JUMPS \
                or ops[i + 2].name != "POP_TOP":
            continue
        x = ops[i + 1].target
        k = x.index if x is not None else -1
        if k >= 2 and ops[k] is x and x.name == "POP_TOP" and ops[k - 1].name in POP_JUMPS \
                and ops[k - 2].name == "COPY" and ops[k - 2].arg == 1 \
                and ops[k - 1].name != ops[i + 1].name:
            ops[i + 1].target = ops[k - 2]


def unfolded_not_jumps(func: Function, table: VersionTable) -> None:
    """Up to 3.13 the compiler folds ``not`` into an ``is``/``in`` test before a
    jump (``if not (a in b)`` is ``a not in b``); 3.14 folds it into the jump
    instead, so a jump on true after such a test is a ``not`` someone wrote.
    Spell it out, so that the structurer writes it back::

        COMPARE_OP in; POP_JUMP_IF_TRUE L    -> COMPARE_OP in; UNARY_NOT; POP_JUMP_IF_FALSE L

    (The structurer folds the two ``not`` of ``a in b or c`` away again.)
    """
    ops = func.ops
    replacements = {}
    for i, op in enumerate(ops[:-1]):
        jump = ops[i + 1]
        if op.name == "COMPARE_OP" and op.arg in _FOLDING_COMPARES \
                and jump.name == "POP_JUMP_IF_TRUE":
            jump.name = "POP_JUMP_IF_FALSE"
            replacements[id(op)] = [op, Op("UNARY_NOT", None, None, op.line, op.offset, op.handler)]
    if replacements:
        replace_ops(func, replacements)


#: the comparisons up to 3.13 folds a ``not`` into
_FOLDING_COMPARES = frozenset({"in", "not in", "is", "is not"})


def annotation_marks(func: Function, table: VersionTable) -> None:
    """3.14+ (PEP 649) records which module- or class-level annotations ran (an
    annotation inside an ``if`` may not), in a set the ``__annotate__``
    function reads; each ``x: int = v`` leaves a mark after its store. One op
    says so, for the structurer to put the annotation there::

        BUILD_SET 0; STORE_NAME __conditional_annotations__       -> (nothing)
        LOAD_NAME __conditional_annotations__; LOAD_CONST 2; SET_ADD 1; POP_TOP
                                                                   -> ANNOTATION_MARK 2
    """
    ops = func.ops
    doomed = []
    for i, op in enumerate(ops):
        if op.arg != _CONDITIONAL or i + 1 >= len(ops):
            continue
        if op.name in _NAME_STORES and i and ops[i - 1].name == "BUILD_SET" and ops[i - 1].arg == 0:
            doomed += [ops[i - 1], op]
        elif op.name in _NAME_LOADS and i + 3 < len(ops) and ops[i + 1].name == "LOAD_CONST" \
                and type(ops[i + 1].arg) is int and ops[i + 2].name == "SET_ADD" \
                and ops[i + 2].arg == 1 and ops[i + 3].name == "POP_TOP":
            op.name, op.arg = "ANNOTATION_MARK", ops[i + 1].arg
            doomed += ops[i + 1:i + 4]
    remove_ops(func, doomed)


_CONDITIONAL = "__conditional_annotations__"
_NAME_STORES = frozenset({"STORE_NAME", "STORE_DEREF", "STORE_GLOBAL", "STORE_FAST"})
_NAME_LOADS = frozenset({"LOAD_NAME", "LOAD_DEREF", "LOAD_GLOBAL", "LOAD_FAST",
                         "LOAD_FAST_BORROW", "LOAD_FROM_DICT_OR_DEREF"})


def lazy_imports(func: Function, table: VersionTable) -> None:
    """3.15+ (PEP 810): IMPORT_NAME's low bits say ``lazy import`` (bit 0) or
    an import the compiler keeps eager (bit 1: in a try or a function; no
    source says so). The decoded argument is the name; the lazy bit is kept
    in ``extra`` for the structurer, every other IMPORT_NAME's cleared::

        IMPORT_NAME 1 (json + lazy)    -> IMPORT_NAME 'json' (extra "lazy")
    """
    if table.opcode_by_name["IMPORT_NAME"].kind != "import_name":
        return
    for op in func.ops:
        if op.name == "IMPORT_NAME":
            op.extra = LAZY_IMPORT if isinstance(op.extra, int) and op.extra & 1 else None


#: ops that test a value's truth themselves: a conversion to bool before one is theirs
_TRUTH_USERS = frozenset({"POP_JUMP_IF_TRUE", "POP_JUMP_IF_FALSE", "UNARY_NOT"})


def bool_conversions(func: Function, table: VersionTable) -> None:
    """3.13 converts to bool explicitly (``TO_BOOL``, ``COMPARE_OP``'s bool bit).
    Before a conditional jump or a ``not`` that is the test's own conversion; a
    value's conversion anywhere else is what is left of ``not not x`` once the
    compiler has cancelled the two ``not`` (``bool(x)``, not ``x``)::

        LOAD_FAST y; TO_BOOL; POP_JUMP_IF_FALSE L   -> LOAD_FAST y; POP_JUMP_IF_FALSE L
        LOAD_FAST y; TO_BOOL; STORE_FAST x          -> LOAD_FAST y; UNARY_NOT; UNARY_NOT; STORE_FAST x
        COMPARE_OP bool(<); RETURN_VALUE            -> COMPARE_OP <; UNARY_NOT; UNARY_NOT; RETURN_VALUE

    (``not not not a`` is ``TO_BOOL; TO_BOOL; UNARY_NOT``: the first is a value's.)
    """
    ops = func.ops
    bit = table.compare_bool_bit
    doomed = []
    replacements = {}
    for i, op in enumerate(ops):
        if op.name == "TO_BOOL":
            if i + 1 < len(ops) and ops[i + 1].name in _TRUTH_USERS:
                doomed.append(op)
            else:
                op.name = "UNARY_NOT"
                replacements[id(op)] = [op, Op("UNARY_NOT")]
        elif op.name == "COMPARE_OP" and bit and isinstance(op.extra, int) and op.extra & bit \
                and not (i + 1 < len(ops) and ops[i + 1].name in _TRUTH_USERS):
            replacements[id(op)] = [op, Op("UNARY_NOT"), Op("UNARY_NOT")]
    remove_ops(func, doomed)
    replace_ops(func, replacements)


def chained_comparisons(func: Function, table: VersionTable) -> None:
    """``a < b < c`` keeps ``b`` for the next comparison and jumps to a clean-up
    block that drops it when a link fails. Each link becomes one ``COMPARE_LINK``
    and the clean-up goes, leaving straight-line code::

        a; b; DUP_TOP; ROT_THREE; COMPARE_OP <; JUMP_IF_FALSE_OR_POP C    (3.11+:
        c; COMPARE_OP <; JUMP E; C: ROT_TWO; POP_TOP; E: ...         SWAP 2; COPY 2)
        -> a; b; COMPARE_LINK <; c; COMPARE_OP <; E: ...

    In a condition the links use POP_JUMP_IF_FALSE C and the clean-up is
    ``C: POP_TOP [; JUMP next]``; the condition's own last jump stays.
    """
    if func.decoded_names is not None and func.decoded_names.isdisjoint(_LINK_COPIES):
        return          # (most code that compares never keeps an operand: no scan)
    ops = func.ops
    doomed = []
    cleanups = {}
    indexed = False     # (indices are needed only once a link is found: most code has none)
    for i in range(len(ops) - 3):
        cmp = ops[i + 2]
        if cmp.name != "COMPARE_OP":
            continue        # (the cheap test first: this looks at every op)
        a, b, jump = ops[i], ops[i + 1], ops[i + 3]
        dup = (a.name == "DUP_TOP" and b.name == "ROT_THREE") or (
            a.name == "SWAP" and a.arg == 2 and b.name == "COPY" and b.arg == 2)
        if not (dup and cmp.name == "COMPARE_OP" and jump.target is not None
                and jump.name in ("JUMP_IF_FALSE_OR_POP", "POP_JUMP_IF_FALSE")):
            continue
        if not indexed:
            func.reindex()
            indexed = True
        c = jump.target.index
        if jump.name == "JUMP_IF_FALSE_OR_POP":
            shape = [o.name for o in ops[c:c + 2]]
            if shape not in (["ROT_TWO", "POP_TOP"], ["SWAP", "POP_TOP"]):
                continue
            size = 2
        else:
            if ops[c].name != "POP_TOP":
                continue
            size = 1
        cmp.name = "COMPARE_LINK"
        doomed += [a, b, jump]
        cleanups[c] = size
    doomed_ids = {id(o) for o in doomed}
    for c, size in cleanups.items():
        cleanup = ops[c:c + size]
        if any(o.target is cleanup[0] and id(o) not in doomed_ids for o in ops):
            continue      # reached some other way too: leave it
        doomed += cleanup
        after = c + size
        # The clean-up's own `JUMP next` (now dead), and `JUMP E` over the clean-up.
        if after < len(ops) and ops[after].name == "JUMP" and size == 1 \
                and not any(o.target is ops[after] for o in ops):
            doomed.append(ops[after])
            after += 1
        if c >= 1 and ops[c - 1].name == "JUMP" and ops[c - 1].target.index == after:
            doomed.append(ops[c - 1])
        elif c >= 1 and ops[c - 1].name in ("JUMP", "RETURN_VALUE", "RAISE_VARARGS"):
            # 3.10+ copies the code after the condition into the clean-up; once the
            # clean-up goes, the copy (and a jump over it) is dead too.
            k = after
            while k < len(ops) and ops[k].name not in ("RETURN_VALUE", "RAISE_VARARGS", "JUMP"):
                k += 1
            copy = ops[after:k + 1]
            targeted = {id(o.target) for o in ops if o.target is not None}
            if k < len(ops) and not any(id(x) in targeted for x in copy):
                doomed += copy
                if ops[c - 1].name == "JUMP" and ops[c - 1].target.index == k + 1:
                    doomed.append(ops[c - 1])
    remove_ops(func, doomed)


def popped_branch_constants(func: Function, table: VersionTable) -> None:
    """Generated code (torch 2.15's Dynamo) ends each branch of a statement by
    pushing a constant that the join pops at once; no source writes that, and
    the pair does nothing, so it goes::

        ...; LOAD_CONST c; JUMP L; M: ...; LOAD_CONST d; L: POP_TOP
        -> ...; JUMP L; M: ...; L:

    Only when every way into the POP_TOP pushed a constant just before: the
    fall-through and each (unconditional, not itself jumped to) JUMP to it,
    and at least one such JUMP: a lone ``LOAD_CONST c; POP_TOP`` is a statement
    the compiler folded (3.10+: ``True or x``), which stays. Nothing may fall
    into the POP_TOP either: Dynamo's try/finally around a call that breaks
    its graph (3.11+) leaves the finally body's normal copy that way, past
    its handler::

        ...; exit(); LOAD_CONST None; JUMP L; H: ...; RERAISE 1; L: POP_TOP
        -> ...; exit(); JUMP L; H: ...; RERAISE 1; L:
    """
    ops = func.ops
    candidates = [i for i in range(1, len(ops)) if ops[i].name == "POP_TOP"
                  and (ops[i - 1].name == "LOAD_CONST" or ops[i - 1].name in NO_FALLTHROUGH)]
    if not candidates:          # (source seldom pops a constant it loaded: most code)
        return
    func.reindex()
    into: Dict[int, List[Op]] = {}      # index -> the ops that jump there
    handled = set()                     # indices a handler starts at
    for op in ops:
        if op.target is not None:
            into.setdefault(op.target.index, []).append(op)
        if op.handler is not None:
            handled.add(op.handler.target.index)
    doomed = []
    for i in candidates:
        jumps = into.get(i, [])
        if not jumps or i in handled or any(j.name != "JUMP" or j.index in into or j.index in handled
                               or ops[j.index - 1].name != "LOAD_CONST" for j in jumps):
            continue
        doomed += [ops[i]] + [ops[j.index - 1] for j in jumps]
        if ops[i - 1].name == "LOAD_CONST":
            doomed.append(ops[i - 1])
    remove_ops(func, doomed)


def copied_returns(func: Function, table: VersionTable) -> None:
    """3.12+ fuses every ``return <constant>`` statement into RETURN_CONST; a
    ``LOAD_CONST c; RETURN_VALUE`` left unfused is a branch of an expression whose
    closing RETURN_VALUE the compiler copied into it (``return a if t else None``)::

        LOAD_CONST c; RETURN_VALUE        -> LOAD_CONST c; RETURN_VALUE "copied"

    A RETURN_VALUE that a jump also reaches starts a block of its own, which
    the compiler never fuses with the constant before it (``return x and 1 or 0``
    ends ``LOAD_CONST 0; RETURN_VALUE``, the jumps landing on the return).

    (Run before ``split_superinstructions`` makes RETURN_CONST look the same.)
    """
    before = None       # (the op before, kept by hand: no slice, no enumerate)
    found = []
    for op in func.ops:
        if op.name == "RETURN_VALUE" and before is not None and before.name == "LOAD_CONST":
            found.append(op)
        before = op
    if found:
        targets = {id(op.target) for op in func.ops if op.target is not None}
        for op in found:
            if id(op) not in targets:
                op.arg = "copied"


def copied_loop_returns(func: Function, table: VersionTable) -> None:
    """In a for loop a ``return <constant>`` statement drops the iterator first
    (``POP_TOP; LOAD_CONST c; RETURN_VALUE``); a constant under the iterator is a
    branch of an expression whose return the compiler copied (3.10+)::

        LOAD_CONST c; ROT_TWO; POP_TOP; RETURN_VALUE  (3.11+: SWAP 2)
        -> LOAD_CONST c; ROT_TWO; POP_TOP; RETURN_VALUE "copied"
    """
    ops = func.ops
    for i, op in enumerate(ops[3:], 3):
        if op.name == "RETURN_VALUE" and ops[i - 3].name == "LOAD_CONST" \
                and (ops[i - 2].name == "ROT_TWO" or (ops[i - 2].name == "SWAP"
                                                      and ops[i - 2].arg == 2)) \
                and ops[i - 1].name == "POP_TOP":
            op.arg = "copied"


def doubled_returns(func: Function, table: VersionTable) -> None:
    """A return of an and/or (or of a chained comparison) ends in the RETURN_VALUE
    its jumps lead to; the compiler copies that RETURN_VALUE into the path that
    falls through to it::

        ...; RETURN_VALUE; L: RETURN_VALUE      -> ...; L: RETURN_VALUE

    (The label a pass gave the copy stays with the one kept.)
    """
    doomed = []
    a = None            # the op before (no pairs of a zip: most ops fail one test)
    for b in func.ops:
        if b.name == "RETURN_VALUE" and a is not None and a.name == "RETURN_VALUE" \
                and same_handler(a, b):
            if a.arg is not None:
                b.arg = a.arg
            doomed.append(a)
        a = b
    remove_ops(func, doomed)


def explicit_returns(func: Function, table: VersionTable) -> None:
    """Up to 3.9 the compiler's own ``return None`` is only ever the last op; any
    other RETURN_VALUE is a return statement: ``RETURN_VALUE`` -> ``RETURN_VALUE "explicit"``."""
    for op in func.ops[:-1]:
        if op.name == "RETURN_VALUE":
            op.arg = "explicit"


def backward_conditional_jumps(func: Function, table: VersionTable) -> None:
    """3.12+ has no backward conditional jump; it jumps over a backward JUMP
    instead. Put back the single jump older versions use::

        POP_JUMP_IF_TRUE L; JUMP X; L:      (X before the JUMP)
        -> POP_JUMP_IF_FALSE X; L:

    A JUMP on a line of its own is a ``continue`` statement's (the compiler's
    jump back at the end of a loop body is on the line of the test before it):
    the new jump goes in ``Function.jump_statements``.
    """
    ops = func.ops
    invert = _INVERTED_JUMPS
    targeted = None     # (indices and the jumps' targets: found at the first candidate)
    doomed = []
    for i, op in enumerate(ops[:-2]):
        if op.name not in invert or op.target is not ops[i + 2] or ops[i + 1].name != "JUMP":
            continue
        if targeted is None:
            func.reindex()
            targeted = {id(o.target) for o in ops if o.target is not None}
        jump = ops[i + 1]
        if jump.target.index <= i + 1 and id(jump) not in targeted and _same_region(op, jump) \
                and not _empty_loop_body(ops, jump.target.index, i) \
                and not _last_jump_back(ops, jump, i + 2):
            op.name = invert[op.name]
            op.target = jump.target
            doomed.append(jump)
            if jump.line is not None and op.line is not None and jump.line != op.line:
                func.jump_statements.add(id(op))
            elif jump.line is not None and jump.line == op.line and i and ops[i - 1].line == op.line:
                # (the test's own line: 3.13+ give a comprehension's jumps its
                # element's line, whatever line the test is on)
                func.branch_ends_back.add(id(op))
            before = ops[i - 1].handler if i else None
            if op.handler is None and before is not None and before.same_as(jump.target.handler):
                # 3.13 leaves the pair (neither can raise) out of the exception
                # table even inside a region: it runs under the region around it.
                op.handler = before
            if func.unguarded is not None:
                # The jump's own coverage tells an explicit `continue` (covered)
                # from the compiler's jump back at the end of the body (not).
                if id(jump) in func.unguarded:
                    func.unguarded.add(id(op))
                else:
                    func.unguarded.discard(id(op))
    remove_ops(func, doomed)


def _last_jump_back(ops: List[Op], jump: Op, k: int) -> bool:
    """``jump`` closes a while loop and is no ``continue``: no later op jumps
    back to its head, and the op after it is a jump out of the loop (a
    ``break`` ending the body, which 3.14 lays out there): folded into the
    test before it, the loop would keep no jump back of its own."""
    head = jump.target
    nxt = ops[k] if k < len(ops) else None
    return nxt is not None and nxt.name == "JUMP" and nxt.target.index > k \
        and head.name != "FOR_ITER" and not any(o.target is head for o in ops[k:])


def _empty_loop_body(ops: List[Op], head: int, i: int) -> bool:
    """The test at ``i`` jumps over a ``pass`` (or ``continue``), the whole body of
    a while loop whose test starts at ``head`` (3.14+ tests at the top only)::

        H: c; POP_JUMP_IF_FALSE E; JUMP H (the pass's line); E:

    Folded, the loop would be one block that jumps to itself, with no op left
    on the pass's line. (The test may branch inside, ``while f(a if c else b)``:
    its jumps land in it.)"""
    test, jump = ops[i], ops[i + 1]
    return test.line is not None and jump.line is not None and jump.line != test.line \
        and all(o.line == test.line and (o.name not in NO_FALLTHROUGH or _jumps_within(o, head, i))
                for o in ops[head:i])


def _jumps_within(op: Op, lo: int, hi: int) -> bool:
    """``op`` is a jump to an op in ``[lo, hi]`` (indices current)."""
    return op.name == "JUMP" and op.target is not None and lo <= op.target.index <= hi


def closing_jumps_back(func: Function, table: VersionTable) -> None:
    """3.14+ threads a test that lands on a loop body's closing jump back
    straight to the loop's head, and drops the closing jump: the if that ends
    the body (its own body never falls through) no longer ends at it. Put
    the closing jump back where the body ends, as 3.13 has it::

        H: ...; c; POP_JUMP_IF_FALSE H      (after backward_conditional_jumps)
           b; RAISE_VARARGS 1
        E: (after the loop)
        -> H: ...; c; POP_JUMP_IF_FALSE J; b; RAISE_VARARGS 1; J: JUMP H; E:

    The body ends at the first way out (a raise, a return, a jump) past which
    none of its jumps lands but on the op right after it, where a ``break``
    goes. A ``continue`` statement's jump (``Function.jump_statements``) and a
    body with no such end are left alone.

    An ``if c: break`` ending the body is threaded twice: its ``break`` falls
    into the loop's exit E, and the test's other jumps to the break land on E.
    Both jumps come back, and the test's jumps (those on its line) aim at the
    ``break`` again::

        H: ...; a; POP_JUMP_IF_FALSE E; c; POP_JUMP_IF_FALSE H; E:
        -> H: ...; a; POP_JUMP_IF_FALSE B; c; POP_JUMP_IF_FALSE J; B: JUMP E; J: JUMP H; E:

    Only while loops: 3.13 threads a for loop's test so too. A body that ends
    in the closing jump itself (``if c: x`` ending the loop's body, its false
    way laid out first as ``POP_JUMP_IF_TRUE B; JUMP H; B: x; JUMP H``) lost
    nothing and stays as it is.
    """
    func.reindex()
    ops = func.ops
    inserts: Dict[int, List[Op]] = {}
    for op in ops:
        if op.name not in POP_JUMPS and op.name not in _INVERTED_JUMPS:
            continue
        head = op.target
        if head is None or head.index > op.index or id(op) in func.jump_statements:
            continue
        # (its way on was a ``break``'s NOP, dropped (see jumps_to_line_nops), into
        # code another jump goes to as well: the loop's exit, not the body's end)
        dropped_break = id(op) in func.line_nop_jumps and op.index + 1 < len(ops) and any(
            o.target is ops[op.index + 1] for o in ops)
        end = None if dropped_break else _body_end(ops, op.index, head)
        if end is not None and (head.name == "FOR_ITER" or (
                ops[end - 1].name == "JUMP" and ops[end - 1].target is head)):
            # (a for loop's test jumps so in 3.13 too; a body that ends in the
            # closing jump lost nothing)
            continue
        if end is None:
            end = _break_end(ops, op, head, dropped_break)
            if end is None or end in inserts:
                continue
            exit_ = ops[end]
            brk = Op("JUMP", None, exit_, func.line_nop_jumps.get(id(op), op.line), op.offset,
                     op.handler)
            back = Op("JUMP", None, head, op.line, op.offset, op.handler)
            for other in ops[head.index:op.index]:
                if other.target is exit_ and other.line == op.line and other.name != "JUMP":
                    other.target = brk
            inserts[end] = [brk, back]
            op.target = back
            func.rebuilt_jumps_back.add(id(back))
            continue
        if end in inserts:
            continue
        jump = Op("JUMP", None, head, op.line, op.offset, op.handler)
        inserts[end] = [jump]
        op.target = jump
        func.rebuilt_jumps_back.add(id(jump))
    _insert_before(func, inserts)


def _insert_before(func: Function, inserts: Dict[int, List[Op]]) -> None:
    """Put ``inserts[k]`` before the op at index ``k`` (``len(ops)``: at the end)."""
    if not inserts:
        return
    out = []
    for k, op in enumerate(func.ops):
        out += inserts.get(k, ())
        out.append(op)
    out += inserts.get(len(func.ops), ())
    func.ops = out
    func.reindex()


def dead_loop_tails(func: Function, table: VersionTable) -> None:
    """3.14+ tests a while loop at the top only, and code of its body laid out
    past its last jump back (an else branch that raises or returns) ends the
    loop with no jump after it. Up to 3.9, the top-tested loops' versions,
    the body's closing jump stays there, unreached; put it back, so the loop
    ends where its body does::

        H: c; POP_JUMP_IF_FALSE E; x; POP_JUMP_IF_FALSE L; y; JUMP H
        L: x; RAISE_VARARGS 1
        E: ...
        -> ... L: x; RAISE_VARARGS 1; JUMP H; E: ...

    So too for a ``break`` there (a jump to E): ``while True: if a: (if b: x
    else: break) else: break`` ends in the one break's jump, the other's NOP
    (dropped) falling into E::

        H: a; POP_JUMP_IF_FALSE E; b; POP_JUMP_IF_FALSE L; x; JUMP H; L: JUMP E; E: ...
        -> ... L: JUMP E; JUMP H; E: ...

    Only where the top test (the first conditional jump from H on) goes past
    that code and nothing before the loop jumps into it. A for loop keeps its
    layout: 3.13 lays it out so too.
    """
    func.reindex()
    ops = func.ops
    latches: Dict[int, Op] = {}
    for op in ops:
        if op.target is not None and op.target.index < op.index:
            latches[id(op.target)] = op         # (the last one, in layout)
    inserts: Dict[int, List[Op]] = {}
    for op in ops:
        latch = latches.get(id(op))
        if latch is None or op.name == "FOR_ITER":
            continue
        test = next((o for o in ops[op.index:latch.index] if o.name in POP_JUMPS), None)
        if test is None or test.target.index <= latch.index + 1:
            continue
        end = test.target.index
        last = ops[end - 1]
        # (a break's jump to E, the loop's last branch's break falling into E)
        breaks = last.name == "JUMP" and last.target is ops[end]
        if (last.name not in ("RAISE_VARARGS", "RERAISE", "RETURN_VALUE") and not breaks) \
                or end in inserts or not same_handler(last, latch):
            continue
        if any(o.target is not None and latch.index < o.target.index < end
               and not op.index <= o.index < end for o in ops):
            continue
        inserts[end] = [Op("JUMP", None, op, latch.line, latch.offset, latch.handler)]
    _insert_before(func, inserts)


def adjacent_jumps(func: Function, table: VersionTable) -> None:
    """3.14+ copies a jump back to each way out of a condition that ends a
    body, side by side: one jump, as 3.13 jumps there::

        ...; a; POP_JUMP_IF_FALSE J2; b; POP_JUMP_IF_FALSE J1; ...; J1: JUMP H; J2: JUMP H
        -> ...; a; POP_JUMP_IF_FALSE J1; b; POP_JUMP_IF_FALSE J1; ...; J1: JUMP H

    (Two jumps to one place do the same: what aims at the second aims at the
    first. Only jumps on one line, a condition's: the ends of two statements'
    bodies that jump back alike are each their own.)
    """
    ops = func.ops
    doomed = []
    moved = {}
    for i in range(1, len(ops)):
        a, b = ops[i - 1], ops[i]
        if a.name == "JUMP" and b.name == "JUMP" and a.target is b.target \
                and a.target is not None and a.line == b.line and same_handler(a, b) \
                and id(a) not in moved:
            doomed.append(b)
            moved[id(b)] = moved.get(id(a), a)
    if doomed:
        for op in ops:
            if op.target is not None and id(op.target) in moved:
                op.target = moved[id(op.target)]
        remove_ops(func, doomed)


def _break_end(ops: List[Op], test: Op, head: Op, dropped_break: bool = False) -> Optional[int]:
    """The index of the loop's exit right after ``test`` where the if it ends
    was ``if ...: break`` (see closing_jumps_back): something before the test,
    inside the loop, jumps there, or the break's NOP is known (``dropped_break``)."""
    k = test.index + 1
    if k >= len(ops) or not same_handler(test, ops[k]):
        return None
    exit_ = ops[k]
    # (the loop's exit, not the body of an ``if a or b`` the test falls into:
    # nothing after it goes back to the head, and a for loop ends there)
    if head.name == "FOR_ITER" and head.target is not exit_:
        return None
    if any(o.target is head for o in ops[k:]):
        return None
    if dropped_break or any(o.target is exit_ for o in ops[head.index:test.index]):
        return k
    # (the loop's exit is an enclosing loop's continue: nothing else goes there)
    if exit_.name == "JUMP" and exit_.target is not None and exit_.target.index < head.index:
        return k
    return None


def _body_end(ops: List[Op], i: int, head: Op) -> Optional[int]:
    """Where the body after the test at ``i`` ends (see closing_jumps_back), or
    None: the first way out past which its jumps go nowhere but back to the
    head and, by a ``break``'s JUMP, to the op right after it. (A conditional
    jump there is an inner if's, whose body goes on.) None once the scan meets
    an op some jump from outside reaches: the body ended before it."""
    entered = {id(o.target) for k, o in enumerate(ops) if o.target is not None
               and not i <= k}
    for k in range(i + 2, len(ops) + 1):
        if id(ops[k - 1]) in entered:
            return None
        if ops[k - 1].name not in NO_FALLTHROUGH:
            continue
        after = ops[k] if k < len(ops) else None
        # (a jump back past the head leaves the loop: an enclosing loop's continue
        # after it, which a body of this loop's cannot be)
        # (a jump back to the test's own loop, one inside this one: ``while a: while
        # b: ...``, the inner test threaded to the outer head)
        if all(o.target is None or o.target is head
               or head.index < o.target.index < k or (o.target is after and o.name == "JUMP")
               for o in ops[i + 1:k]) and (same_handler(ops[i], ops[k - 1])
                                           or ops[k - 1].name == "RETURN_VALUE"):
            # (a return leaves the blocks around it: the clean-up copies
            # before it run outside their handlers)
            return k
    return None


_INVERTED_JUMPS = {"POP_JUMP_IF_TRUE": "POP_JUMP_IF_FALSE", "POP_JUMP_IF_FALSE": "POP_JUMP_IF_TRUE",
                   "POP_JUMP_IF_NONE": "POP_JUMP_IF_NOT_NONE",
                   "POP_JUMP_IF_NOT_NONE": "POP_JUMP_IF_NONE"}


def merge_copied_exits(func: Function, table: VersionTable) -> None:
    """3.10+ copies a block's closing RERAISE or RETURN_VALUE onto each branch
    that ends there (``if c: x()`` in a finally body); merge the copies back into
    the one exit older versions have::

        ...; POP_JUMP_IF_TRUE L; x(); RERAISE 0; L: RERAISE 0
        -> ...; POP_JUMP_IF_TRUE L; x(); L: RERAISE 0
    """
    doomed = []
    before = None       # (kept by hand, as in doubled_returns)
    for op in func.ops:
        if (op.name == "RERAISE" or op.name == "RETURN_VALUE") and before is not None \
                and op.name == before.name and op.arg == before.arg \
                and same_handler(op, before):
            doomed.append(before)
        before = op
    remove_ops(func, doomed)


def merge_copied_tails(func: Function, table: VersionTable) -> None:
    """3.10 copies the code that ends a function (a finally body's normal copy
    and the closing return) onto each branch that reaches it; merge a copy that
    sits right after its original back into it::

        POP_JUMP_IF_FALSE L; x(); fin; LOAD_CONST None; RETURN_VALUE
        L: fin; LOAD_CONST None; RETURN_VALUE
        -> POP_JUMP_IF_FALSE L'; x(); L': fin; LOAD_CONST None; RETURN_VALUE

    (Copies of a bare ``return`` are left alone: the structurer reads those.)
    """
    func.reindex()
    ops = func.ops
    jumped = {}
    for op in ops:
        if op.target is not None:
            jumped.setdefault(op.target.index, []).append(op)
    doomed = []
    gone = set()
    # (last first: a copy of a copy merges into the copy, then on into the first)
    for t in sorted(jumped, reverse=True):
        end = t
        while end < len(ops) and ops[end].target is None and ops[end].name != "RETURN_VALUE":
            end += 1
        size = end + 1 - t
        if end >= len(ops) or size < 3 or t - size < 0:
            continue
        copy, original = ops[t:end + 1], ops[t - size:t]
        if any(o.target is not None or id(o) in gone for o in original) or \
                not all(_same_op(a, b) for a, b in zip(copy, original)) or \
                any(o.index in jumped for o in copy[1:]):
            continue
        for op in ops:
            if op.target is copy[0]:
                op.target = original[0]
        doomed += copy
        gone.update(id(o) for o in copy)
    remove_ops(func, doomed)


def _same_op(a: Op, b: Op) -> bool:
    return a.name == b.name and a.arg == b.arg and type(a.arg) is type(b.arg) \
        and a.line == b.line and same_handler(a, b)


def _same_region(op: Op, jump: Op) -> bool:
    """Whether ``jump`` runs under ``op``'s handler. 3.12 leaves a backward jump
    that cannot raise out of the exception table, even inside a handler; it
    still counts as inside when it goes back into that handler's region."""
    if jump.handler is op.handler:
        return True
    h = op.handler
    return jump.handler is None and h is not None and h.same_as(jump.target.handler)


def assertion_error_loads(func: Function, table: VersionTable) -> None:
    """3.8 has no LOAD_ASSERTION_ERROR; an ``assert`` loads the global::

        c; POP_JUMP_IF_TRUE L; LOAD_GLOBAL AssertionError; [msg; CALL 1;] RAISE_VARARGS 1
        -> c; POP_JUMP_IF_TRUE L; LOAD_ASSERTION_ERROR; [msg; CALL 1;] RAISE_VARARGS 1

    (In a function ``if not c: raise AssertionError(msg)`` compiles the same.)
    Only after POP_JUMP_IF_TRUE: ``if x is None: raise AssertionError(msg)``
    jumps on false, which ``assert x is not None`` would not (``assert not c``
    does, and ``if c: raise AssertionError`` gives the same code).
    """
    if "AssertionError" not in getattr(func.code, "names", ("AssertionError",)):
        return          # (no op can load it)
    ops = func.ops
    for i, op in enumerate(ops):
        if not (op.name == "LOAD_GLOBAL" and op.arg == "AssertionError" and i >= 1
                and ops[i - 1].name == "POP_JUMP_IF_TRUE"):
            continue
        k = i + 1
        while k < len(ops) and ops[k].target is None and ops[k].name != "RAISE_VARARGS":
            k += 1
        if k < len(ops) and ops[k].name == "RAISE_VARARGS" and ops[k].arg == 1:
            op.name, op.arg = "LOAD_ASSERTION_ERROR", None


def unthread_short_circuits(func: Function, table: VersionTable) -> None:
    """Up to 3.11 the optimiser threads an ``and`` operand's jump through the ``or``
    that follows (and vice versa): a false ``a`` in ``a and b or c`` skips straight
    to ``c``. Undo it, as 3.12 leaves it, so each operator's jumps end at its own
    operand::

        a; POP_JUMP_IF_FALSE L; b; J: JUMP_IF_TRUE_OR_POP end; L: c
        -> a; JUMP_IF_FALSE_OR_POP J; b; J: JUMP_IF_TRUE_OR_POP end; L: c

    (the same value reaches J, fails its test and is popped: the same effect).
    Right to left, so an operand's rewritten jump can be a later one's landing.
    """
    func.reindex()
    ops = func.ops
    opposite = {"POP_JUMP_IF_FALSE": "JUMP_IF_TRUE_OR_POP",
                "POP_JUMP_IF_TRUE": "JUMP_IF_FALSE_OR_POP"}
    keep = {"POP_JUMP_IF_FALSE": "JUMP_IF_FALSE_OR_POP",
            "POP_JUMP_IF_TRUE": "JUMP_IF_TRUE_OR_POP"}
    for op in reversed(ops):
        want = opposite.get(op.name)
        if want is None or op.target is None or op.target.index <= op.index + 1:
            continue
        before = ops[op.target.index - 1]
        if before.name == want and before.index > op.index:
            op.name = keep[op.name]
            op.target = before


def unthread_continues(func: Function, table: VersionTable) -> None:
    """3.8/3.9 thread a conditional jump that lands on a jump back to a loop's
    head (a ``continue``, or the body's closing jump) straight to the head.
    Undo it where the if's body falls into that jump, so the if ends where
    its body does and the jump back is written once::

        for m in ms:                  H: FOR_ITER; c; POP_JUMP_IF_FALSE H
            if c:                        b; J: JUMP H
                b                     -> H: FOR_ITER; c; POP_JUMP_IF_FALSE J
            continue                     b; J: JUMP H

    Only over a body that stays in the jump's handler region and whose own
    jumps stay inside it (or go back to the head too); ``if not c: continue``
    compiles to a jump over the JUMP, which this leaves alone. ``if c: b``
    then ``else: continue`` reads the same way, b jumping over the else.
    """
    func.reindex()
    ops = func.ops
    for op in ops:
        if op.name not in POP_JUMPS \
                or op.target is None or op.target.index >= op.index:
            continue
        k = _fall_into_jump_back(ops, op)
        if k is not None:
            op.target = ops[k]


def _fall_into_jump_back(ops: List[Op], jump: Op) -> Optional[int]:
    """The index of the first ``JUMP head`` after ``jump`` (whose target is the
    loop's head) where the ops between fall into it, or None."""
    head, i = jump.target, jump.index
    k = next((k for k in range(i + 2, len(ops))
              if ops[k].name == "JUMP" and ops[k].target is head), None)
    if k is None or not same_handler(jump, ops[k]):
        return None
    # (b may end in a jump over an else that is this jump back: ``if c: b
    # else: continue``)
    before = ops[k - 1]
    over = before.target if before.name == "JUMP" and k + 1 < len(ops) \
        and before.target is ops[k + 1] else None
    if before.name in NO_FALLTHROUGH and over is None:
        return None
    # (the body's jumps: back to the head, or anywhere inside it, an inner
    # loop's back jump included; none out of it)
    if any(op.target is not None and op.target is not head and op.target is not over
           and not i < op.target.index <= k for op in ops[i + 1:k]):
        return None
    # (b falling into its own jump back, an ``else: continue`` right after it,
    # unreached from b, is where the test went)
    if k + 1 < len(ops) and ops[k + 1].name == "JUMP" and ops[k + 1].target is head:
        return k + 1
    return k


def unthread_if_ends(func: Function, table: VersionTable) -> None:
    """3.8/3.9 thread a conditional jump that lands on the jump ending an
    enclosing if's branch (over its else) straight to where that jump goes;
    where the inner if's body ends in a raise, that jump stays, unreached.
    Undo it, so the inner if ends at that jump, where its body does::

        if a:                      a; POP_JUMP_IF_FALSE E
            x                      x; c; POP_JUMP_IF_FALSE T
            if c:                  raise; J: JUMP T
                raise           -> ...; c; POP_JUMP_IF_FALSE J
        else:                      raise; J: JUMP T
            y                      E: y; T: ...

    Only after a raise, or where J ends the body of an if with an else (a
    test before goes to the op after J), where the ops between stay inside
    (their jumps land in them or on J), in J's handler region, and not in a
    loop whose closing jump comes after J (there J is a ``break``, the jump
    the loop's own test leaves by).
    """
    func.reindex()
    ops = func.ops
    # (inner ifs first: an outer if's body holds their jumps, which must land
    # inside it by the time it is looked at)
    for op in reversed(ops):
        if op.name not in POP_JUMPS \
                or op.target is None or op.target.index <= op.index + 2:
            continue
        k = _branch_end_before(ops, op)
        if k is not None:
            op.target = ops[k]


def _branch_end_before(ops: List[Op], jump: Op) -> Optional[int]:
    """The index of the first ``JUMP T`` between ``jump`` and its target T
    that the ops between reach only from inside, or None."""
    i, end = jump.index, jump.target
    t = end.index
    k = next((k for k in range(i + 2, t) if ops[k].name == "JUMP" and ops[k].target is end),
             None)
    if k is None or not same_handler(jump, ops[k]):
        return None
    if ops[k - 1].name != "RAISE_VARARGS" and not _jumps_over_else(ops, i, k):
        return None
    if any(op.target is not None and not i < op.target.index <= k for op in ops[i + 1:k]):
        return None
    if any(op.target is not None and op.target.index <= i for op in ops[k + 1:t]):
        return None
    return k


def _jumps_over_else(ops: List[Op], i: int, k: int) -> bool:
    """Whether the JUMP at ``k`` ends the body of an if that ``ops[i]`` is in,
    over its else: a test before ``i`` goes to the op after it."""
    after = ops[k + 1] if k + 1 < len(ops) else None
    return after is not None and any(
        op.name in POP_JUMPS and op.target is after
        for op in ops[:i])


def unthread_or_jumps(func: Function, table: VersionTable) -> None:
    """3.8/3.9 thread the jump of an ``or`` operand (``and`` with the polarity
    turned) that lands on a statement's only op, a ``break`` or ``continue``
    JUMP, to where that JUMP goes. Undo it, so each operand's jump ends on the
    statement the condition guards::

        if a or b:                 a; POP_JUMP_IF_TRUE X
            break                  b; POP_JUMP_IF_FALSE N; J: JUMP X; N: ...
                                -> a; POP_JUMP_IF_TRUE J
                                   b; POP_JUMP_IF_FALSE N; J: JUMP X; N: ...

    Only where the ops between are one condition on the jump's line (no
    statement ends in it, its jumps land on J or just past it) and stay in J's
    handler region.
    """
    func.reindex()
    ops = func.ops
    for op in ops:
        if op.name in POP_JUMPS and op.target is not None:
            k = _guarded_jump_after(ops, op)
            if k is not None:
                op.target = ops[k]


def _guarded_jump_after(ops: List[Op], jump: Op) -> Optional[int]:
    """The index of the ``JUMP T`` (T: ``jump``'s target) that the condition
    after ``jump`` guards, its last test jumping over it; or None."""
    i, t = jump.index, _destination(jump.target)
    k = i + 2
    while k < len(ops) and ops[k].name != "JUMP" and ops[k].name not in _STATEMENT_ENDS:
        k += 1
    if k >= len(ops) or ops[k].name != "JUMP" or _destination(ops[k]) is not t:
        return None
    last = ops[k - 1]
    if last.name not in POP_JUMPS or last.target is None \
            or not _over(ops, last, k) or not same_handler(jump, ops[k]) \
            or last.line != jump.line:
        # (on one line: a while's test jumping out to the next iteration of an
        # outer loop, then an ``if c: break`` in its body, reads the same)
        return None
    if any(op.target is not None and not i < op.target.index <= k + 1
           for op in ops[i + 1:k - 1]):
        return None
    return k


def _over(ops: List[Op], test: Op, k: int) -> bool:
    """Whether ``test`` jumps over the JUMP at ``k``: to the op after it, or
    (threaded) to where that op goes on to."""
    after = ops[k + 1] if k + 1 < len(ops) else None
    return after is not None and _destination(test.target) is _destination(after)


def _destination(op: Op) -> Op:
    """Where control goes on from ``op``: past any chain of JUMPs (the
    optimiser threads a jump through some of them, not always all)."""
    for _ in range(8):
        if op.name != "JUMP" or op.target is None or op.target is op:
            break
        op = op.target
    return op


#: ops that end a statement (a condition holds none)
_STATEMENT_ENDS = frozenset({"POP_TOP", "STORE_FAST", "STORE_NAME", "STORE_GLOBAL",
                             "STORE_DEREF", "STORE_ATTR", "STORE_SUBSCR", "RETURN_VALUE",
                             "RAISE_VARARGS", "RERAISE", "FOR_ITER", "SETUP_FINALLY"})


def unthread_with_exits(func: Function, table: VersionTable) -> None:
    """3.9 threads a with statement's normal way out through the jump that its
    handler falls into after suppressing an exception; undo it, as 3.10 leaves
    it, so a jump back right after the exit call means ``continue``::

        <exit call>; JUMP T; H: PUSH_EXC_INFO; WITH_EXCEPT_START ... POP_EXCEPT; POP_TOP; X: JUMP T
        -> <exit call>; JUMP X; ...
    """
    func.reindex()
    ops = func.ops
    for k, op in enumerate(ops[:-2]):
        if op.name != "JUMP" or ops[k - 1].name != "POP_TOP" \
                or ops[k + 1].name != "PUSH_EXC_INFO" or ops[k + 2].name != "WITH_EXCEPT_START":
            continue
        for j in range(k + 3, min(k + 16, len(ops) - 2)):
            if ops[j].name == "POP_EXCEPT" and ops[j + 1].name == "POP_TOP":
                after = ops[j + 2]
                if after.name == "JUMP" and after.target is op.target:
                    op.target = after
                break


def copied_with_exits(func: Function, table: VersionTable) -> None:
    """3.10 copies the code after a with statement, when it is a small block
    that returns, onto each of the statement's normal ways out; the handler's
    way out (an exception suppressed) still falls into the original. Where
    that code is also where an enclosing statement joins (``if c: with m: x()``
    then ``return a``), put back the jumps 3.11 keeps, so it is written once,
    after the statement that the with ends::

        POP_JUMP_IF_FALSE X; ...; <exit call>; POP_TOP; LOAD_FAST a; RETURN_VALUE
        H: PUSH_EXC_INFO; WITH_EXCEPT_START ... POP_EXCEPT; POP_TOP; X: LOAD_FAST a; RETURN_VALUE
        -> POP_JUMP_IF_FALSE X; ...; <exit call>; POP_TOP; JUMP X; H: ...

    (An exit call belongs to the innermost with whose handler follows it.)
    """
    func.reindex()
    ops = func.ops
    handlers = [h for h in range(len(ops) - 1) if ops[h].name == "PUSH_EXC_INFO"
                and ops[h + 1].name == "WITH_EXCEPT_START"]
    if not handlers:
        return
    targeted = {}
    first = {}          # handler index -> the first op it covers
    for op in ops:
        if op.target is not None:
            targeted.setdefault(op.target.index, []).append(op)
        if op.handler is not None:
            first.setdefault(op.handler.target.index, op.index)
    claimed = set()
    doomed = []
    for h in handlers:
        x = next((j + 2 for j in range(h + 2, min(h + 16, len(ops) - 2))
                  if ops[j].name == "POP_EXCEPT" and ops[j + 1].name == "POP_TOP"), None)
        if x is None or h not in first or not any(
                j.index < first[h] or j.index > x for j in targeted.get(x, ())):
            continue
        exits = [e for e in _with_exit_calls(ops, first[h], h) if e not in claimed]
        claimed.update(exits)
        tail = _straight_return(ops, x)
        if tail is None:
            continue
        size = tail - x + 1
        for e in exits:
            copy = ops[e + 1:e + 1 + size]
            if len(copy) == size and all(
                    a.name == b.name and a.arg == b.arg and type(a.arg) is type(b.arg)
                    and same_handler(a, b) and a.index not in targeted
                    for a, b in zip(copy, ops[x:tail + 1])):
                copy[0].name, copy[0].arg, copy[0].target = "JUMP", None, ops[x]
                doomed += copy[1:]
    remove_ops(func, doomed)


def _with_exit_calls(ops: List[Op], start: int, end: int) -> List[int]:
    """The indices of the closing POP_TOPs of the with exit calls
    (``LOAD_CONST None`` three times, ``CALL``, [an await], ``POP_TOP``) in ops[start:end]."""
    found = []
    for i in range(max(start, 3), end - 1):
        if ops[i].name == "CALL" and ops[i].arg == (2, (), 2) and all(
                ops[k].name == "LOAD_CONST" and ops[k].arg is None for k in range(i - 3, i)):
            k = i + 1
            if ops[k].name == "GET_AWAITABLE":
                k += 3
            if k < end and ops[k].name == "POP_TOP":
                found.append(k)
    return found


def _straight_return(ops: List[Op], x: int) -> Optional[int]:
    """The index of the RETURN_VALUE that ends the few ops from ``x`` with no jump, or None."""
    for k in range(x, min(x + 6, len(ops))):
        if ops[k].name == "RETURN_VALUE":
            return k
        if ops[k].target is not None or ops[k].name in NO_FALLTHROUGH:
            return None
    return None


def intrinsics(func: Function, table: VersionTable) -> None:
    """3.12+: ``CALL_INTRINSIC_1 INTRINSIC_PRINT`` -> ``PRINT_EXPR`` and friends;
    others become ``INTRINSIC <name>``. The statement-like ones return a value
    that is dropped at once, which older versions never pushed:
    ``CALL_INTRINSIC_1 INTRINSIC_IMPORT_STAR; POP_TOP`` -> ``IMPORT_STAR``."""
    doomed = []
    ops = func.ops
    for i, op in enumerate(ops):
        if op.name == "CALL_INTRINSIC_1":
            name = table.intrinsic1[op.arg]
            op.name, op.arg = _INTRINSIC1.get(name, ("INTRINSIC_1", name))
            if op.name in ("IMPORT_STAR", "PRINT_EXPR") and i + 1 < len(ops) \
                    and ops[i + 1].name == "POP_TOP":
                doomed.append(ops[i + 1])
        elif op.name == "CALL_INTRINSIC_2":
            op.name, op.arg = "INTRINSIC_2", table.intrinsic2[op.arg]
    remove_ops(func, doomed)


def closure_loads(func: Function, table: VersionTable) -> None:
    """3.13+ has no LOAD_CLOSURE: the compiler loads a cell itself (for a
    closure tuple, or ``__classcell__``) with LOAD_FAST on the cell's slot,
    where the cell's contents come by LOAD_DEREF. Name it as 3.12 does::

        LOAD_FAST x (a cell or free variable's slot)  -> LOAD_CLOSURE x

    (Dynamo's code passes such cells as plain values, to the functions that
    make its resume functions.) Not where an inlined comprehension shares the
    slot (LOAD_FAST_AND_CLEAR saves it): its own variable there is no cell.
    Nor ``__classdict__``, the class namespace's cell that a class body hands
    its annotation scopes: the class body readers take its loads as they are.
    """
    cells = set(func.code.cellvars) | set(func.code.freevars)
    if not cells:
        return
    cells -= {op.arg for op in func.ops if op.name == "LOAD_FAST_AND_CLEAR"}
    cells.discard("__classdict__")
    for op in func.ops:
        if op.name == "LOAD_FAST" and op.arg in cells:
            op.name = "LOAD_CLOSURE"


def class_deref(func: Function, table: VersionTable) -> None:
    """3.12+: a class body's free names, and names in the annotation scopes of its
    generic methods (which see the class namespace through ``__classdict__``)::

        LOAD_LOCALS; LOAD_FROM_DICT_OR_DEREF x                 -> LOAD_CLASSDEREF x
        LOAD_DEREF __classdict__; LOAD_FROM_DICT_OR_DEREF x    -> LOAD_CLASSDEREF x
        LOAD_DEREF __classdict__; LOAD_FROM_DICT_OR_GLOBALS x  -> LOAD_NAME x
        LOAD_LOCALS; STORE_DEREF __classdict__                 -> (nothing)
    """
    ops = func.ops
    doomed = []
    for i, op in enumerate(ops[:-1]):
        nxt = ops[i + 1]
        source = op.name == "LOAD_LOCALS" or (op.name == "LOAD_DEREF"
                                              and op.arg == "__classdict__")
        if source and nxt.name == "LOAD_FROM_DICT_OR_DEREF":
            nxt.name = "LOAD_CLASSDEREF"
            doomed.append(op)
        elif source and nxt.name == "LOAD_FROM_DICT_OR_GLOBALS":
            nxt.name = "LOAD_NAME"
            doomed.append(op)
        elif op.name == "LOAD_LOCALS" and nxt.name == "STORE_DEREF" \
                and nxt.arg == "__classdict__":
            doomed += [op, nxt]
    remove_ops(func, doomed)


def send_loops(func: Function, table: VersionTable) -> None:
    """3.11+: the delegation loop of ``await`` and ``yield from`` -> ``YIELD_FROM``
    (the 3.8-3.10 shape)::

        GET_AWAITABLE 0; LOAD_CONST None; L: SEND E; YIELD_VALUE; JUMP L; E: [END_SEND]
        -> GET_AWAITABLE 0; LOAD_CONST None; YIELD_FROM

    3.12+ also routes the YIELD_VALUE's exceptions to a ``CLEANUP_THROW; JUMP E``
    block out of line, or to a ``CLEANUP_THROW`` right before E that falls into it
    (the layout the compiler picks inside an inlined async comprehension); it goes too.
    Where the out-of-line block lay is kept (``Function.yield_from_cleanups``): it
    tells code compiled after a try's clauses from the try's else.
    """
    ops = func.ops
    doomed = []
    cleanups = []
    for i, op in enumerate(ops[:-3]):
        if op.name != "SEND":
            continue
        yield_, back, after = ops[i + 1], ops[i + 2], ops[i + 3]
        if after.name == "CLEANUP_THROW" and i + 4 < len(ops) and op.target is ops[i + 4] \
                and yield_.handler is not None and yield_.handler.target is after:
            after = ops[i + 4]
        if not (op.target is after and yield_.name == "YIELD_VALUE"
                and back.name == "JUMP" and back.target is op):
            continue
        doomed += [yield_, back]
        if after.name == "END_SEND":
            doomed.append(after)
        h = yield_.handler
        if h is not None and h.target.name == "CLEANUP_THROW":
            k = ops.index(h.target)
            doomed.append(ops[k])
            if k + 1 < len(ops) and ops[k + 1].name == "JUMP" and ops[k + 1].target is after:
                doomed.append(ops[k + 1])
                cleanups.append((op, k))
        op.name, op.arg, op.target = "YIELD_FROM", None, None
    gone = {id(o) for o in doomed}
    for op, k in cleanups:
        # (its handlers were compiled with the code before that block)
        while k > 0 and id(ops[k - 1]) in gone:
            k -= 1
        if k > 0:
            func.yield_from_cleanups[id(op)] = ops[k - 1]
    remove_ops(func, doomed)


def drop_generator_wrapper(func: Function, table: VersionTable) -> None:
    """3.12+: a generator or coroutine body runs under a handler that turns a
    leaked StopIteration into RuntimeError; the compiler adds it to each one::

        ... (every op: handler -> S) ...; S: STOPITERATION_ERROR; RERAISE 1
        -> ... (no handler) ...

    (Run after ``intrinsics``, which names the STOPITERATION_ERROR.)
    """
    ops = func.ops
    if len(ops) < 2 or ops[-2].name != "STOPITERATION_ERROR" or ops[-1].name != "RERAISE":
        return
    wrapper = ops[-2]
    func.unguarded = {id(op) for op in ops[:-2] if op.handler is None}
    for op in ops:
        if op.handler is not None and op.handler.target is wrapper:
            op.handler = None
    remove_ops(func, ops[-2:])


#: decoded names of ops control never falls through
_NO_FALLTHROUGH_DECODED = frozenset({
    "JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_ABSOLUTE", "JUMP_BACKWARD_NO_INTERRUPT", "JUMP",
    "RETURN_VALUE", "RETURN_CONST", "RAISE_VARARGS", "RERAISE"})


def jumps_to_line_nops(func: Function, table: VersionTable) -> None:
    """3.10+ drops a jump to the op after it but keeps a NOP for its line: a
    ``break`` ending a loop body whose exit follows. ``drop_noise`` drops the
    NOP and its jumps go on to the exit; record them with the NOP's line
    (``Function.line_nop_jumps``) when only jumps reach the NOP::

        POP_JUMP_IF_FALSE L; ...; JUMP_BACKWARD top; L: NOP (break); exit: ...
        -> POP_JUMP_IF_FALSE exit; ...; JUMP_BACKWARD top; exit: ...  (+ the jump, L's line)

    (Run before ``drop_noise``.)
    """
    ops = func.ops
    for i in range(1, len(ops) - 1):
        op = ops[i]
        if op.name == "NOP" and op.line is not None and ops[i - 1].name in _NO_FALLTHROUGH_DECODED \
                and ops[i + 1].line != op.line:
            for o in ops:
                if o.target is op:
                    func.line_nop_jumps[id(o)] = op.line


def jumps_back(func: Function) -> List[Op]:
    """The decoded ops of ``func`` that jump back unconditionally (a loop's
    latch, a ``continue``), its ops indexed first."""
    func.reindex()
    return [o for o in func.ops if o.name in _NO_FALLTHROUGH_DECODED and o.target is not None
            and o.target.index < o.index]


def while_true_lines(func: Function, table: VersionTable) -> None:
    """3.10-3.13 test ``while x:`` at both ends of the loop, and ``while
    True:`` leaves only a NOP of its line at the loop's top (``drop_noise``
    drops it). A loop jumping back to such a NOP is ``while True:`` even
    where its body starts with an ``if`` whose jumps look like a test at
    the top (``if x: continue`` / ``else: break``). Record the NOP's line
    for each jump back to it (``Function.while_true_lines``) where the op
    after it is on another line (the jumps, not that op: a loop first in the
    body starts there too)::

        L: NOP (line 3); LOAD_FAST x (line 4); ...; JUMP_BACKWARD L  -> while_true_lines[JUMP_BACKWARD] = 3

    (Run before ``drop_noise``.)
    """
    ops = func.ops
    tops = {id(op): op.line for i, op in enumerate(ops[:-1])
            if op.name == "NOP" and op.line is not None
            and ops[i + 1].line is not None and ops[i + 1].line != op.line}
    if not tops:
        return
    for o in jumps_back(func):
        if id(o.target) in tops:
            func.while_true_lines[id(o)] = tops[id(o.target)]


def nested_loop_tops(func: Function, table: VersionTable) -> None:
    """3.14+ tests a while loop at its top, so a loop whose body starts with
    another while loop has both loops' jumps back land one op apart: the outer
    one on the NOP of its ``while 1:`` line, the inner one on its test right
    after. ``drop_noise`` would send the outer jump to the inner test and the
    two loops would read as one. Keep that NOP as ``LOOP_TOP``, a no-op the
    loop forest sees as a head of its own::

        L1: NOP; L2: c; POP_JUMP_IF_FALSE X; ...; JUMP_BACKWARD L2; X: ...; JUMP_BACKWARD L1
        -> L1: LOOP_TOP; L2: c; ...

    (Run before ``drop_noise``.)
    """
    ops = func.ops
    back_to = {id(o.target) for o in jumps_back(func)}
    for i, op in enumerate(ops[:-1]):
        if op.name == "NOP" and id(op) in back_to and id(ops[i + 1]) in back_to:
            op.name = "LOOP_TOP"


def try_line_nops(func: Function, table: VersionTable) -> None:
    """A ``try:`` on a line of its own leaves a NOP of that line before its
    body (``drop_noise`` drops it). Record the line for the body's first op
    (``Function.try_lines``): 3.14 lays the exception table out by lines (a
    branch's NOT_TAKEN in the body is covered only when the body starts on
    the ``try:`` line), so the ``try:`` goes back on its own line::

        NOP (line 1); LOAD_CONST 251 (line 2, covered)  -> try_lines[LOAD_CONST] = 1

    (Run before ``drop_noise``.)
    """
    ops = func.ops
    for i in range(1, len(ops)):
        op, before = ops[i], ops[i - 1]
        if before.name == "NOP" and op.handler is not None and before.handler is not op.handler \
                and before.line is not None and op.line is not None and before.line < op.line:
            k = i
            while k + 1 < len(ops) and ops[k].name == "NOP" and ops[k + 1].handler is op.handler:
                k += 1      # (an ``if <constant>:`` first in the body leaves a NOP too)
            func.try_lines[id(ops[k])] = before.line


def cold_handlers(func: Function, table: VersionTable) -> None:
    """3.12+: handler code is laid out after all the code normal flow reaches
    (``Function.cold_handlers``), whatever statement it belongs to. The ops are
    unchanged; the layout of ``try: B / except E: raise / C`` is the same as
    that of ``try: B / except E: raise / else: C``::

        B; C; RETURN_VALUE; H: PUSH_EXC_INFO; ... RAISE_VARARGS      (3.12+, both)
        B; JUMP_FORWARD C; H: PUSH_EXC_INFO; ... RAISE_VARARGS; C: ...   (3.11, no else)
    """
    func.cold_handlers = True


def dead_ways_out(func: Function, table: VersionTable) -> None:
    """3.8/3.9 keep the unreached code after a jump that leaves a block
    (``Function.dead_ways_out``): an except clause's ``continue`` is followed by
    the clause's own way out, which a clause falling off its end has not. The
    ops are unchanged::

        POP_EXCEPT; JUMP_ABSOLUTE top; POP_EXCEPT; JUMP_FORWARD after   (continue)
        POP_EXCEPT; JUMP_ABSOLUTE top                                   (pass, then else)
    """
    func.dead_ways_out = True


def else_after_handlers(func: Function, table: VersionTable) -> None:
    """3.8/3.9 lay a try statement's else out after its handlers
    (``Function.else_after_handlers``), so normal code between the body's
    covered ops and the handler ends the body's last statement: a constant
    ``return`` unwinds the block first, then loads its value. The ops are
    unchanged::

        B; POP_BLOCK; LOAD_CONST c; RETURN_VALUE; H: ...         (try: B; return c)
        B; POP_BLOCK; JUMP_FORWARD L; H: ...; L: LOAD_CONST c; RETURN_VALUE   (else: return c)
    """
    func.else_after_handlers = True


def drop_async_gen_wrap(func: Function, table: VersionTable) -> None:
    """3.11+: ``yield x`` in an async generator wraps the value first:
    ``ASYNC_GEN_WRAP; YIELD_VALUE`` (3.12+: ``INTRINSIC_1 INTRINSIC_ASYNC_GEN_WRAP``)
    -> ``YIELD_VALUE``; and YIELD_VALUE's argument (3.12+) is dropped."""
    doomed = []
    for op in func.ops:
        if op.name == "ASYNC_GEN_WRAP" or (op.name == "INTRINSIC_1"
                                           and op.arg == "INTRINSIC_ASYNC_GEN_WRAP"):
            doomed.append(op)
        elif op.name == "YIELD_VALUE":
            op.arg = None
    remove_ops(func, doomed)


def async_for_loops(func: Function, table: VersionTable) -> None:
    """An ``async for`` header becomes one ``FOR_ITER "async"`` that, like FOR_ITER,
    leaves the next item on the stack or jumps past the loop (popping the iterator)::

        L: GET_ANEXT; LOAD_CONST None; YIELD_FROM      (handler E)   3.11+
           ... JUMP L ...; E: END_ASYNC_FOR; X:
        L: SETUP_FINALLY E; GET_ANEXT; LOAD_CONST None; YIELD_FROM; POP_BLOCK   (3.8-3.10)
           ... JUMP L ...; E: END_ASYNC_FOR; X:
        -> L: FOR_ITER "async" ->X ... JUMP L ...; X:
    """
    ops = func.ops
    doomed = []
    for i, op in enumerate(ops):
        if op.name != "GET_ANEXT" or i + 2 >= len(ops) or ops[i + 1].name != "LOAD_CONST" \
                or ops[i + 2].name != "YIELD_FROM":
            continue
        setup = ops[i - 1] if i >= 1 and ops[i - 1].name == "SETUP_FINALLY" else None
        end = setup.target if setup is not None else (op.handler.target if op.handler else None)
        if end is None or end.name != "END_ASYNC_FOR":
            continue
        k = ops.index(end)
        if k + 1 >= len(ops):
            continue
        head = setup if setup is not None else op
        head.name, head.arg, head.target = "FOR_ITER", "async", ops[k + 1]
        head.handler = end.handler
        doomed += [ops[i + 1], ops[i + 2], end]
        if setup is not None:
            doomed.append(op)
            if i + 3 < len(ops) and ops[i + 3].name == "POP_BLOCK":
                doomed.append(ops[i + 3])
    remove_ops(func, doomed)


def comprehension_cleanups_out_of_line(func: Function, table: VersionTable) -> None:
    """3.12+: an inlined comprehension's clean-up handler (it puts back the locals
    the comprehension hid, then re-raises) sits at the end of the code, except
    after an ``async for``, where the compiler leaves it in line and jumps over
    it; it moves to the end (nothing falls into it, so it means the same)::

        JUMP X; C: SWAP 2; POP_TOP; SWAP n; STORE_FAST x...; RERAISE; X: ...
        -> X: ...; C: SWAP 2; POP_TOP; SWAP n; STORE_FAST x...; RERAISE

    (Run after ``drop_generator_wrapper``, which wants the wrapper last.)
    """
    ops = func.ops
    for i, op in enumerate(ops):
        # (a loop, not any() over a generator: this looks at every op)
        if op.name == "JUMP" and _cleanup_block_end(ops, i + 1) is not None:
            break
    else:
        return          # (most code: one look at each op, no rebuilt list)
    moved, jumps, out = [], [], []
    i = 0
    while i < len(ops):
        op = ops[i]
        out.append(op)
        k = _cleanup_block_end(ops, i + 1) if op.name == "JUMP" else None
        if k is not None and op.target is ops[k]:
            moved += ops[i + 1:k]
            jumps.append(op)
            i = k
            continue
        i += 1
    if not moved:
        return
    func.ops = out + moved
    remove_ops(func, jumps)


def _cleanup_block_end(ops, k):
    """Index after ``SWAP 2; POP_TOP; SWAP n; STORE_FAST x...; RERAISE`` at ``k``, or None."""
    if k >= len(ops) or ops[k].name != "SWAP":
        return None         # (most jumps: one test)
    names = ["SWAP", "POP_TOP", "SWAP"]
    if [o.name for o in ops[k:k + 3]] != names:
        return None
    j = k + 3
    while j < len(ops) and ops[j].name == "STORE_FAST":
        j += 1
    if j == k + 3 or j >= len(ops) or ops[j].name != "RERAISE":
        return None
    return j + 1 if j + 1 < len(ops) else None


def except_star_handlers(func: Function, table: VersionTable) -> None:
    """3.11+: one spelling for the parts of an ``except*`` handler that differ::

        PUSH_EXC_INFO; COPY 1; BUILD_LIST 0; SWAP 2      (3.11)
        -> PUSH_EXC_INFO; BUILD_LIST 0; COPY 2           (3.12+: the same stack)
        INTRINSIC_2 INTRINSIC_PREP_RERAISE_STAR -> PREP_RERAISE_STAR        (3.12+)
        LIST_APPEND 1; JUMP P ... LIST_APPEND 1; P: PREP_RERAISE_STAR       (3.13)
        -> JUMP Q ... Q: LIST_APPEND 1; P: PREP_RERAISE_STAR

    (3.13 copies the closing ``LIST_APPEND 1`` onto each way into
    PREP_RERAISE_STAR; earlier versions jump to the one before it.)
    """
    ops = func.ops
    doomed = []
    replacements = {}
    appends = []        # where LIST_APPENDs are, for the second look
    i = -1
    for op in ops:
        i += 1
        name = op.name
        if name not in _EXCEPT_STAR_NAMES:
            continue            # (most ops: one test)
        if name == "LIST_APPEND":
            appends.append(i)
        elif name == "INTRINSIC_2" and op.arg == "INTRINSIC_PREP_RERAISE_STAR":
            op.name, op.arg = "PREP_RERAISE_STAR", None
        elif name == "PUSH_EXC_INFO" and [(o.name, o.arg) for o in ops[i + 1:i + 4]] == \
                [("COPY", 1), ("BUILD_LIST", 0), ("SWAP", 2)]:
            copy, build = ops[i + 1], ops[i + 2]
            replacements[id(copy)] = [Op("BUILD_LIST", 0, None, build.line, build.offset,
                                         build.handler),
                                      Op("COPY", 2, None, copy.line, copy.offset, copy.handler)]
            doomed += ops[i + 2:i + 4]
    for i in appends:
        if i + 1 >= len(ops):
            continue
        op = ops[i]
        prep = ops[i + 1].target
        if op.arg == 1 and ops[i + 1].name == "JUMP" and prep.name == "PREP_RERAISE_STAR":
            k = ops.index(prep)
            if k >= 1 and ops[k - 1].name == "LIST_APPEND" and ops[k - 1].arg == 1:
                ops[i + 1].target = ops[k - 1]
                doomed.append(op)
    remove_ops(func, doomed)
    replace_ops(func, replacements)


#: the op names except_star_handlers looks at
_EXCEPT_STAR_NAMES = frozenset({"LIST_APPEND", "INTRINSIC_2", "PUSH_EXC_INFO"})


def match_results(func: Function, table: VersionTable) -> None:
    """3.10: MATCH_CLASS and MATCH_KEYS push their result and a bool; 3.11+ push the
    result or None and test that (the stack is as deep either way)::

        MATCH_CLASS n; POP_JUMP_IF_FALSE L -> MATCH_CLASS n; COPY 1; POP_JUMP_IF_NONE L
        MATCH_KEYS; POP_JUMP_IF_FALSE L    -> MATCH_KEYS; COPY 1; POP_JUMP_IF_NONE L
    """
    ops = func.ops
    out = []
    for i, op in enumerate(ops):
        out.append(op)
        nxt = ops[i + 1] if i + 1 < len(ops) else None
        if op.name in ("MATCH_CLASS", "MATCH_KEYS") and nxt is not None \
                and nxt.name == "POP_JUMP_IF_FALSE":
            nxt.name = "POP_JUMP_IF_NONE"
            out.append(Op("COPY", 1, None, op.line, op.offset, op.handler))
    func.ops = out


# -- data ---------------------------------------------------------------------------

_RENAMES = {
    "POP_JUMP_FORWARD_IF_FALSE": "POP_JUMP_IF_FALSE",
    "POP_JUMP_BACKWARD_IF_FALSE": "POP_JUMP_IF_FALSE",
    "POP_JUMP_FORWARD_IF_TRUE": "POP_JUMP_IF_TRUE",
    "POP_JUMP_BACKWARD_IF_TRUE": "POP_JUMP_IF_TRUE",
    "POP_JUMP_FORWARD_IF_NONE": "POP_JUMP_IF_NONE",
    "POP_JUMP_BACKWARD_IF_NONE": "POP_JUMP_IF_NONE",
    "POP_JUMP_FORWARD_IF_NOT_NONE": "POP_JUMP_IF_NOT_NONE",
    "POP_JUMP_BACKWARD_IF_NOT_NONE": "POP_JUMP_IF_NOT_NONE",
    "JUMP_ABSOLUTE": "JUMP",
    "JUMP_FORWARD": "JUMP",
    "JUMP_BACKWARD": "JUMP",
    "JUMP_BACKWARD_NO_INTERRUPT": "JUMP",
    "JUMP_NO_INTERRUPT": "JUMP",
    "LOAD_FAST_CHECK": "LOAD_FAST",
    "ROT_TWO": "SWAP",
    # 3.14+: a borrowed reference is a reference-count choice made after layout
    "LOAD_FAST_BORROW": "LOAD_FAST",
    # 3.14+: what ends a for loop and leaves it early pops its iterator so
    "POP_ITER": "POP_TOP",
}

_OLD_BINARY = {
    "BINARY_POWER": "**", "BINARY_MULTIPLY": "*", "BINARY_MATRIX_MULTIPLY": "@",
    "BINARY_FLOOR_DIVIDE": "//", "BINARY_TRUE_DIVIDE": "/", "BINARY_MODULO": "%",
    "BINARY_ADD": "+", "BINARY_SUBTRACT": "-", "BINARY_LSHIFT": "<<", "BINARY_RSHIFT": ">>",
    "BINARY_AND": "&", "BINARY_XOR": "^", "BINARY_OR": "|",
    "INPLACE_POWER": "**=", "INPLACE_MULTIPLY": "*=", "INPLACE_MATRIX_MULTIPLY": "@=",
    "INPLACE_FLOOR_DIVIDE": "//=", "INPLACE_TRUE_DIVIDE": "/=", "INPLACE_MODULO": "%=",
    "INPLACE_ADD": "+=", "INPLACE_SUBTRACT": "-=", "INPLACE_LSHIFT": "<<=",
    "INPLACE_RSHIFT": ">>=", "INPLACE_AND": "&=", "INPLACE_XOR": "^=", "INPLACE_OR": "|=",
}

_SUPER = {
    "LOAD_FAST_LOAD_FAST": ("LOAD_FAST", "LOAD_FAST"),
    "STORE_FAST_LOAD_FAST": ("STORE_FAST", "LOAD_FAST"),
    "STORE_FAST_STORE_FAST": ("STORE_FAST", "STORE_FAST"),
    "LOAD_FAST_BORROW_LOAD_FAST_BORROW": ("LOAD_FAST", "LOAD_FAST"),
}

# (decode_ops leaves the silent ops out already; code from decode(), as the
# fallback reads it, still has them)
_NOISE = frozenset(("NOP", "CACHE") + SILENT_OPS)

_INTRINSIC1 = {
    "INTRINSIC_PRINT": ("PRINT_EXPR", None),
    "INTRINSIC_IMPORT_STAR": ("IMPORT_STAR", None),
    "INTRINSIC_UNARY_POSITIVE": ("UNARY_POSITIVE", None),
    "INTRINSIC_LIST_TO_TUPLE": ("LIST_TO_TUPLE", None),
    "INTRINSIC_STOPITERATION_ERROR": ("STOPITERATION_ERROR", None),
}

#: One-op passes: name -> the names of the ops the pass can change (it sees no others).
OP_PASSES: Dict[str, frozenset] = {
    "rename": frozenset(_RENAMES),
    "binary_ops": frozenset(_OLD_BINARY) | {"BINARY_OP"},
    "compare_ops": frozenset({"IS_OP", "CONTAINS_OP", "COMPARE_OP"}),
    "split_superinstructions": frozenset(_SUPER) | {"RETURN_CONST"},
    "call_ex_plain": frozenset({"CALL_FUNCTION_EX"}),
    "call_ex_null": frozenset({"CALL_FUNCTION_EX"}),
    "null_before_global": frozenset({"LOAD_GLOBAL"}),
    "null_after_global": frozenset({"LOAD_GLOBAL"}),
    "method_loads": frozenset({"LOAD_ATTR", "LOAD_SUPER_ATTR"}),
    "make_function_flags": frozenset({"MAKE_FUNCTION"}),
    "drop_noise": _NOISE,
    "small_ints": frozenset({"LOAD_SMALL_INT"}),
    "common_constants": frozenset({"LOAD_COMMON_CONSTANT"}),
    "stack_copies": frozenset({"DUP_TOP", "DUP_TOP_TWO", "ROT_THREE", "ROT_FOUR", "ROT_N"}),
}
_OP_REWRITES = {f.__name__: f for f in (
    rename, binary_ops, compare_ops, split_superinstructions, call_ex_plain, call_ex_null,
    null_before_global, null_after_global, method_loads, make_function_flags, drop_noise,
    small_ints, common_constants, stack_copies)}


def _alone(name: str) -> Callable[[Function, VersionTable], None]:
    """A one-op pass as a pass over a whole function."""
    def run(func: Function, table: VersionTable) -> None:
        rewrite_each(func, table, [(OP_PASSES[name], _OP_REWRITES[name])])
    run.__name__ = name
    run.__doc__ = _OP_REWRITES[name].__doc__
    return run


#: Every pass by name, each a function over a whole Function and the table
#: (a one-op pass made one: ``_alone``); ``PASSES`` lists which run for a version.
PASS_FUNCTIONS: Dict[str, Callable[[Function, VersionTable], None]] = {
    name: _alone(name) for name in OP_PASSES}
PASS_FUNCTIONS.update({
    f.__name__: f for f in (
        fold_kwnames, drop_generator_prologue,
        drop_qualname, fold_function_attributes, drop_end_for,
        drop_end_for_pop, short_circuit_jumps, intrinsics, class_deref, send_loops,
        drop_generator_wrapper, drop_async_gen_wrap, unthread_short_circuits,
        chained_comparisons, assertion_error_loads, backward_conditional_jumps,
        copied_returns, explicit_returns, copied_loop_returns, doubled_returns, match_results,
        async_for_loops, comprehension_cleanups_out_of_line, except_star_handlers,
        block_stack_handlers, exc_info_shuffles, finally_to_py39, merge_copied_exits,
        merge_copied_tails, unthread_with_exits, copied_with_exits, unthread_continues,
        unthread_if_ends, unthread_or_jumps, popped_branch_constants, cold_handlers,
        dead_ways_out, else_after_handlers, bool_conversions, jumps_to_line_nops,
        call_ex_kwargs_slot, with_specials, inlined_builtin_calls, closing_jumps_back,
        dead_loop_tails, closure_loads, unthread_short_circuit_pops, unfolded_not_jumps,
        iterator_pairs, annotation_marks, adjacent_jumps, lazy_imports, try_line_nops,
        nested_loop_tops, while_true_lines, unrotated_loops, jumps_into_dead_code)
})

#: 3.8-3.10's block set-ups and 3.8's finally ops: what the passes rebuilding them as
#: handlers start from (and what sets off those that meet the ops they make)
_BLOCK_SETUPS = frozenset({"SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH"})
_FINALLY_38 = frozenset({"BEGIN_FINALLY", "END_FINALLY", "CALL_FINALLY"})

#: Passes that change nothing unless one of these ops is in the decoded code,
#: so :func:`normalize` skips them when none is (most code has no ``async for``,
#: no try statement...). Only names the compiler writes and no pass that runs
#: before this one (in any version's list) creates belong here: then the names
#: present before the passes are all the pass can meet.
#: the decoded names of jumps back (a loop's)
_JUMPS_BACK = frozenset({"JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT", "INSTRUMENTED_JUMP_BACKWARD",
                         "JUMP_ABSOLUTE"})

NEEDS: Dict[str, frozenset] = {
    "block_stack_handlers": _BLOCK_SETUPS,
    "finally_to_py39": _FINALLY_38,
    "short_circuit_jumps": frozenset({"COPY"}),
    "comprehension_cleanups_out_of_line": frozenset({"RERAISE"}),
    "except_star_handlers": frozenset({"PUSH_EXC_INFO", "PREP_RERAISE_STAR",
                                       "CALL_INTRINSIC_2"}),
    "split_superinstructions": frozenset({"LOAD_FAST_LOAD_FAST", "STORE_FAST_LOAD_FAST",
                                          "STORE_FAST_STORE_FAST", "RETURN_CONST"}),
    "call_ex_plain": frozenset({"CALL_FUNCTION_EX"}),
    "call_ex_null": frozenset({"CALL_FUNCTION_EX"}),
    "drop_qualname": frozenset({"MAKE_FUNCTION"}),
    "make_function_flags": frozenset({"MAKE_FUNCTION"}),
    # (with no attribute to fold, make_function_flags has done the rest)
    "fold_function_attributes": frozenset({"SET_FUNCTION_ATTRIBUTE"}),
    "drop_end_for": frozenset({"END_FOR"}),
    "drop_end_for_pop": frozenset({"END_FOR"}),
    "intrinsics": frozenset({"CALL_INTRINSIC_1", "CALL_INTRINSIC_2"}),
    "class_deref": frozenset({"LOAD_FROM_DICT_OR_DEREF", "LOAD_FROM_DICT_OR_GLOBALS",
                              "LOAD_LOCALS"}),
    "send_loops": frozenset({"SEND"}),
    "async_for_loops": frozenset({"GET_ANEXT"}),
    "drop_async_gen_wrap": frozenset({"ASYNC_GEN_WRAP", "CALL_INTRINSIC_1", "YIELD_VALUE"}),
    "match_results": frozenset({"MATCH_CLASS", "MATCH_KEYS"}),
    "exc_info_shuffles": frozenset({"ROT_FOUR"}),
    "drop_generator_prologue": frozenset({"RETURN_GENERATOR"}),
    # (the names compare_ops makes COMPARE_OP of)
    "chained_comparisons": frozenset({"COMPARE_OP", "IS_OP", "CONTAINS_OP"}),
    # (3.12's COPY too, which short_circuit_jumps turns into these)
    "unthread_short_circuits": frozenset({"JUMP_IF_TRUE_OR_POP", "JUMP_IF_FALSE_OR_POP",
                                          "COPY"}),
    "copied_loop_returns": frozenset({"ROT_TWO", "SWAP"}),
    # (a RETURN_VALUE split from RETURN_CONST follows its LOAD_CONST: a pair of
    # returns holds a decoded one, and so does a LOAD_CONST before one unsplit)
    "copied_returns": frozenset({"RETURN_VALUE"}),
    "fold_kwnames": _CALL_OPS,
    "doubled_returns": frozenset({"RETURN_VALUE"}),
    "bool_conversions": frozenset({"TO_BOOL", "COMPARE_OP"}),
    "jumps_to_line_nops": frozenset({"NOP"}),
    "nested_loop_tops": frozenset({"NOP"}),
    "try_line_nops": frozenset({"NOP"}),
    "while_true_lines": frozenset({"NOP"}),
    "unthread_short_circuit_pops": frozenset({"COPY"}),
    "unfolded_not_jumps": frozenset({"COMPARE_OP", "IS_OP", "CONTAINS_OP"}),
    # (the jumps back they read or put back: no loop, none)
    "closing_jumps_back": _JUMPS_BACK,
    "dead_loop_tails": _JUMPS_BACK,
    "adjacent_jumps": _JUMPS_BACK | {"JUMP_FORWARD", "JUMP"},
    # (and the passes that add RERAISEs: their set-up names)
    "merge_copied_exits": frozenset({"RETURN_VALUE", "RERAISE"}) | _BLOCK_SETUPS | _FINALLY_38,
    # (the jump back it looks for: no loop, no such jump)
    "backward_conditional_jumps": _JUMPS_BACK,
    # (a rotated loop's jump back: 3.10's conditional jumps go either way)
    "unrotated_loops": _JUMPS_BACK | {"POP_JUMP_IF_TRUE", "POP_JUMP_IF_FALSE",
                                      "POP_JUMP_BACKWARD_IF_TRUE", "POP_JUMP_BACKWARD_IF_FALSE",
                                      "POP_JUMP_BACKWARD_IF_NONE",
                                      "POP_JUMP_BACKWARD_IF_NOT_NONE"},
    "with_specials": frozenset({"LOAD_SPECIAL"}),
    "annotation_marks": frozenset({"BUILD_SET"}),
    "lazy_imports": frozenset({"IMPORT_NAME"}),
    # (and the MAKE_FUNCTION of a generator expression, whose call gets its GET_ITER back)
    "iterator_pairs": frozenset({"GET_ITER", "SEND", "MAKE_FUNCTION"}),
    "inlined_builtin_calls": frozenset({"LOAD_COMMON_CONSTANT"}),
    "call_ex_kwargs_slot": frozenset({"CALL_FUNCTION_EX"}),
}

#: A chained comparison's link keeps its operand with DUP_TOP or COPY: decoded,
#: or made by the passes that rebuild 3.8's block set-ups
_LINK_COPIES = frozenset({"COPY", "DUP_TOP"}) | _BLOCK_SETUPS | _FINALLY_38

#: One-op passes first (see rewrite_each): a version's run of them costs one scan.
_COMMON = ["split_superinstructions", "rename", "binary_ops", "compare_ops", "drop_noise"]
#: 3.10 on: the compiler copies small exit blocks
_COPIED_EXITS = ["merge_copied_exits"]
#: 3.10 on: NOPs keep the lines of dropped jumps and of ``while True:`` (before
#: _COMMON's drop_noise)
_LINE_NOPS = ["jumps_to_line_nops", "while_true_lines"]
#: 3.10 on: Dynamo's idioms no compiler writes (its code is decompiled on those)
_GENERATED = ["popped_branch_constants", "jumps_into_dead_code"]
#: 3.10 on: the compiler copies a while loop's test to the bottom of its body
#: (before merge_copied_exits: a copied exit block is no rotated loop's exit)
_ROTATED = ["unrotated_loops"]

#: Which passes each version needs, in order.
PASSES = {
    (3, 8): _COMMON + [
        "call_ex_plain", "drop_generator_prologue", "explicit_returns", "fold_kwnames",
        "drop_qualname", "async_for_loops", "finally_to_py39", "block_stack_handlers",
        "exc_info_shuffles", "chained_comparisons", "unthread_short_circuits",
        "unthread_or_jumps", "unthread_continues", "unthread_if_ends", "assertion_error_loads",
        "copied_loop_returns", "doubled_returns", "dead_ways_out", "else_after_handlers",
        "stack_copies"],
    (3, 9): _COMMON + [
        "call_ex_plain", "drop_generator_prologue", "explicit_returns", "fold_kwnames",
        "drop_qualname", "async_for_loops", "block_stack_handlers", "exc_info_shuffles",
        "chained_comparisons", "unthread_short_circuits", "unthread_or_jumps",
        "unthread_continues", "unthread_if_ends", "unthread_with_exits", "copied_loop_returns",
        "doubled_returns", "dead_ways_out", "else_after_handlers", "stack_copies"],
    (3, 10): _LINE_NOPS + _COMMON + _GENERATED + [
        "call_ex_plain", "drop_generator_prologue", "fold_kwnames", "drop_qualname",
        "async_for_loops", "block_stack_handlers", "exc_info_shuffles", "chained_comparisons",
        "unthread_short_circuits", "copied_loop_returns", "doubled_returns", "match_results",
        "merge_copied_tails", "copied_with_exits"] + _ROTATED + _COPIED_EXITS + ["stack_copies"],
    (3, 11): _LINE_NOPS + _COMMON + _GENERATED + [
        "call_ex_null", "null_before_global", "drop_generator_prologue", "fold_kwnames",
        "send_loops", "async_for_loops", "drop_async_gen_wrap", "except_star_handlers",
        "chained_comparisons", "unthread_short_circuits", "copied_loop_returns",
        "doubled_returns"] + _ROTATED + _COPIED_EXITS,
    (3, 12): ["copied_returns"] + _LINE_NOPS + _COMMON + _GENERATED + [
        "call_ex_null", "null_before_global", "method_loads", "drop_generator_prologue",
        "intrinsics", "class_deref", "fold_kwnames", "drop_end_for", "short_circuit_jumps",
        "send_loops", "async_for_loops", "drop_generator_wrapper",
        "comprehension_cleanups_out_of_line", "drop_async_gen_wrap", "except_star_handlers",
        "chained_comparisons", "backward_conditional_jumps", "copied_loop_returns",
        "doubled_returns", "cold_handlers"] + _ROTATED + _COPIED_EXITS,
    (3, 13): ["copied_returns"] + _LINE_NOPS + _COMMON + ["closure_loads", "bool_conversions"]
    + _GENERATED + [
        "call_ex_null", "null_after_global", "method_loads", "make_function_flags",
        "drop_generator_prologue", "intrinsics", "class_deref", "fold_kwnames",
        "fold_function_attributes", "drop_end_for_pop", "short_circuit_jumps", "send_loops",
        "async_for_loops", "drop_generator_wrapper", "comprehension_cleanups_out_of_line",
        "drop_async_gen_wrap", "except_star_handlers", "chained_comparisons",
        "backward_conditional_jumps", "copied_loop_returns", "doubled_returns",
        "cold_handlers"] + _ROTATED + _COPIED_EXITS,
}
#: 3.14 and 3.15: their new spellings first (each brings its idiom to 3.13's
#: form, on the decoded names), then 3.13's passes; not ``copied_returns``:
#: with RETURN_CONST gone, every ``return <constant>`` is what it looks for;
#: not ``unrotated_loops`` and ``while_true_lines``: a while loop is tested at
#: its top only, and ``nested_loop_tops`` keeps the NOPs that tell loops apart
_FROM_314 = ["small_ints", "common_constants", "with_specials", "inlined_builtin_calls",
             "call_ex_kwargs_slot", "annotation_marks", "try_line_nops", "nested_loop_tops"]
_AFTER_314 = {"backward_conditional_jumps": ("adjacent_jumps", "backward_conditional_jumps",
                                             "closing_jumps_back", "dead_loop_tails"),
              "short_circuit_jumps": ("unthread_short_circuit_pops", "short_circuit_jumps"),
              "bool_conversions": ("bool_conversions", "unfolded_not_jumps")}
PASSES[(3, 14)] = _FROM_314 + [
    name for name in PASSES[(3, 13)]
    if name not in ("copied_returns", "unrotated_loops", "while_true_lines")
    for name in _AFTER_314.get(name, (name,))]
#: 3.15: its iterator pairs made one item first, on the decoded ops (the stack
#: effects it follows are the decoded names')
PASSES[(3, 15)] = ["iterator_pairs", "lazy_imports"] + PASSES[(3, 14)]
