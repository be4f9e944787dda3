"""Statements while earlier-evaluated values wait on the stack (Dynamo's bytecode).

Source never leaves a value on the stack across a statement; Dynamo's
generated code does (``graph_out_0[0]`` loaded, then ``del graph_out_0``, then
returned). The structured decompiler must not print such a statement before
the value's expression: these run the decompiled code (no fallback forced)
beside the bytecode and compare results and the order of side effects.
"""
import depyf
from test_fallback import Assembler, compare_code, template


def test_call_on_the_stack_across_an_expression_statement():
    # note(a) waits on the stack while note(b) runs as a statement: a is noted first
    asm = Assembler()
    asm.call(2, 1, lambda s: s.op("LOAD_FAST", 0))
    asm.call(2, 1, lambda s: s.op("LOAD_FAST", 1)).op("POP_TOP")
    asm.op("RETURN_VALUE")
    compare_code(asm.code(template, []), [(1, 2), ("x", "y")])


def test_value_on_the_stack_across_a_delete_of_its_name():
    # a + 1 is computed, then a is deleted, then the sum returned
    asm = Assembler()
    asm.op("LOAD_FAST", 0).op("LOAD_CONST", 0).binary("+")
    asm.op("DELETE_FAST", 0).op("RETURN_VALUE")
    source = compare_code(asm.code(template, [1]), [(1, 0), (41, 0)])
    assert source.index("del a") > source.index("a + 1"), source


# -- Dynamo's idioms, each decompiled without the fallback ------------------------------

import sys
import types

import pytest

from test_fallback import HOST, _compare

FALLBACK = "depyf: unstructured fallback"


def structured(code, argsets):
    source = compare_code(code, argsets)
    assert FALLBACK not in source, source
    return source


def _swap(asm, n):
    if HOST >= (3, 11):
        return asm.op("SWAP", n)
    return asm.op({2: "ROT_TWO", 3: "ROT_THREE"}[n])


def _copy(asm, n):
    if HOST >= (3, 11):
        return asm.op("COPY", n)
    assert n == 1
    return asm.op("DUP_TOP")


def test_function_loaded_before_bookkeeping_statements():
    # Dynamo loads the graph function, runs bookkeeping calls, then calls it:
    # note is read first, b(...) (a statement) runs before the final call
    asm = Assembler()
    if (3, 11) <= HOST < (3, 13):
        asm.op("PUSH_NULL")
    asm.op("LOAD_FAST", 2)
    if HOST >= (3, 13):
        asm.op("PUSH_NULL")
    asm.call(1, 1, lambda s: s.op("LOAD_CONST", 0)).op("POP_TOP")
    asm.op("LOAD_FAST", 0)
    if HOST == (3, 11):
        asm.op("PRECALL", 1)
    asm.op("CALL" if HOST >= (3, 11) else "CALL_FUNCTION", 1).op("RETURN_VALUE")
    source = structured(asm.code(template, ["bookkeeping"]), [(1, print), (2, len)])
    assert "stack_0" not in source or source.index("stack_0") < source.index("bookkeeping")


def _bookkeeping_in_a_branch(other_value=None):
    """torch 2.15's code around a graph call: the graph function waits on the
    stack while ``if a: note(a)`` runs, each branch pushing None (``other_value``:
    the else branch's constant) that the join pops; then the call."""
    asm = Assembler()
    if (3, 11) <= HOST < (3, 13):
        asm.op("PUSH_NULL")
    asm.op("LOAD_FAST", 2)
    if HOST >= (3, 13):
        asm.op("PUSH_NULL")
    asm.op("LOAD_FAST", 0).jump_if("FALSE", "else")
    asm.call(2, 1, lambda s: s.op("LOAD_FAST", 0)).op("POP_TOP")
    asm.op("LOAD_CONST", 0).jump("join")
    asm.label("else").op("LOAD_CONST", 0 if other_value is None else 1)
    asm.label("join").op("NOP").op("POP_TOP")
    asm.op("LOAD_FAST", 1)
    if HOST == (3, 11):
        asm.op("PRECALL", 1)
    asm.op("CALL" if HOST >= (3, 11) else "CALL_FUNCTION", 1).op("RETURN_VALUE")
    return asm.code(template, [None, other_value])


def test_constants_each_branch_pushes_for_the_join_to_pop():
    source = structured(_bookkeeping_in_a_branch(), [(1, 2), (0, "y"), ("x", "y")])
    assert "if a:" in source, source


def test_different_constants_the_join_pops():
    # (the value the join pops is one or the other: still nothing to keep)
    structured(_bookkeeping_in_a_branch(7), [(1, 2), (0, "y")])


def test_walrus_on_the_stack_across_a_statement():
    # COPY + STORE of a waiting value (Dynamo's `tmp_1 = f` kept for the call later)
    asm = Assembler()
    asm.op("LOAD_FAST", 0).op("LOAD_CONST", 0).binary("+")
    _copy(asm, 1).op("STORE_FAST", 1)
    asm.call(2, 1, lambda s: s.op("LOAD_FAST", 1)).op("POP_TOP")
    asm.op("LOAD_CONST", 1).op("STORE_FAST", 1)
    asm.op("LOAD_FAST", 1).binary("*").op("RETURN_VALUE")
    structured(asm.code(template, [1, 10]), [(1, 0), (5, 0)])


def test_store_taken_for_a_tuple_assignment_that_is_none():
    # 1 waits while 2 is stored; then 1 is used otherwise: `a = 2` must stay
    asm = Assembler()
    asm.op("LOAD_CONST", 0).op("LOAD_CONST", 1).op("STORE_FAST", 0)
    asm.op("BUILD_LIST", 1).op("LOAD_FAST", 0).op("BUILD_TUPLE", 2).op("RETURN_VALUE")
    source = structured(asm.code(template, [1, 2]), [(0, 0)])
    assert "a = 2" in source, source


def juggled_lists():
    """Dynamo's resume-argument lists (3.11+): L = [a]; M = L[0:1];
    M.extend([b]); N = [M]; N[0][0:0] = []; x = N[-1]; del N[-1]; return (x,)"""
    asm = Assembler()
    asm.op("LOAD_FAST", 0).op("BUILD_LIST", 1)
    asm.op("COPY", 1).op("LOAD_CONST", 0).op("LOAD_CONST", 1).op("BUILD_SLICE", 2)
    asm.op("BINARY_SUBSCR").op("SWAP", 2)
    asm.op("LOAD_FAST", 1).op("BUILD_LIST", 1).op("LIST_EXTEND", 2).op("POP_TOP")
    asm.op("BUILD_LIST", 1)
    asm.op("BUILD_LIST", 0).op("COPY", 2).op("LOAD_CONST", 0).op("BINARY_SUBSCR")
    asm.op("LOAD_CONST", 0).op("LOAD_CONST", 0).op("BUILD_SLICE", 2).op("STORE_SUBSCR")
    asm.op("COPY", 1).op("LOAD_CONST", 2).op("BINARY_SUBSCR").op("SWAP", 2)
    asm.op("LOAD_CONST", 2).op("DELETE_SUBSCR")
    asm.op("BUILD_TUPLE", 1).op("RETURN_VALUE")
    return asm.code(template, [0, 1, -1])


@pytest.mark.skipif(HOST < (3, 11), reason="COPY/SWAP/BUILD_SLICE shapes of 3.11+ Dynamo")
def test_list_slice_extended_and_stored_through_copies():
    source = structured(juggled_lists(), [(1, 2), ("x", "y")])
    assert ".extend(" in source, source


def test_values_waiting_across_an_if_statement():
    # note(a) is evaluated, then `if b:` runs note("then") or note("else"); both
    # branches return note(a)'s value plus their own: note(a) must come first
    asm = Assembler()
    asm.call(2, 1, lambda s: s.op("LOAD_FAST", 0))
    asm.op("LOAD_FAST", 1).jump_if("FALSE", "else")
    asm.call(2, 1, lambda s: s.op("LOAD_CONST", 0)).op("POP_TOP")
    asm.op("LOAD_CONST", 2).binary("+").op("RETURN_VALUE")
    asm.label("else")
    asm.call(2, 1, lambda s: s.op("LOAD_CONST", 1)).op("POP_TOP")
    asm.op("LOAD_CONST", 3).binary("+").op("RETURN_VALUE")
    structured(asm.code(template, ["then", "else", 10, 20]), [(1, True), (2, False)])


def test_values_left_below_the_returned_value():
    # torch 2.9's resume functions return with the frame values' lists still on
    # the stack below the result (later torch pops them first): the frame drops
    # them, and note(a), evaluated before the result, still comes first
    asm = Assembler()
    asm.call(2, 1, lambda s: s.op("LOAD_FAST", 0))
    asm.op("BUILD_LIST", 0).op("BUILD_LIST", 1)
    asm.call(2, 1, lambda s: s.op("LOAD_FAST", 1))
    asm.op("RETURN_VALUE")
    structured(asm.code(template, []), [(1, 2), ("x", "y")])


def test_value_used_twice_waits_across_a_statement_that_does_nothing():
    # note(a) + 1 is copied (one value, used twice) and both copies wait while
    # `[]` runs as a statement: the tuple returned holds it twice, noted once
    asm = Assembler()
    asm.call(2, 1, lambda s: s.op("LOAD_FAST", 0)).op("LOAD_CONST", 0).binary("+")
    _copy(asm, 1)
    asm.op("BUILD_LIST", 0).op("POP_TOP")
    asm.op("BUILD_TUPLE", 2).op("RETURN_VALUE")
    source = structured(asm.code(template, [1]), [(1, 0), ("x", 0)])
    assert source.count("note(") == 1, source


def template_loop(a, b, note):
    x = note(a)
    for v in (1, 2):
        note(v)
    return x


def template_while(a, b, note):
    x = note(a)
    while True:
        if note(b) >= 3:
            break
    return x


def _waiting_x(template):
    """``template``'s code with its store and load of x made NOPs: the value
    waits on the stack from its store to its load."""
    import dis
    code = template.__code__
    raw = bytearray(code.co_code)
    x = [op for op in dis.get_instructions(code) if op.argval == "x"]
    assert [op.opname[:5] for op in x] == ["STORE", "LOAD_"], x
    for op in x:
        raw[op.offset:op.offset + 2] = bytes([dis.opmap["NOP"], 0])
    return code.replace(co_code=bytes(raw), co_stacksize=code.co_stacksize + 1)


def test_value_waiting_across_a_for_loop():
    # Dynamo's rebuilt objects: a value waits on the stack while a loop runs
    # (here note(a), returned after a loop that notes too): it is evaluated
    # before the loop
    source = structured(_waiting_x(template_loop), [(1, 0), ("x", 0)])
    assert source.index("note(a)") < source.index("for "), source


def test_value_waiting_across_a_while_loop():
    # (3.12+ moves the return into the loop's break, where the structurer
    # leaves a waiting value to the fallback: the results are checked alone)
    source = compare_code(_waiting_x(template_while), [(1, 0), ("x", 0)])
    assert FALLBACK in source or source.index("note(a)") < source.index("while "), source


def test_jump_over_unreachable_code_into_an_expression():
    # a resume function's prologue: a value pushed, a flag stored, then a jump
    # past the original code's start into the middle of an expression
    asm = Assembler()
    asm.op("LOAD_FAST", 0).op("LOAD_CONST", 0).op("STORE_FAST", 1).jump("resume")
    asm.op("LOAD_CONST", 1).op("LOAD_CONST", 1).binary("*").op("POP_TOP")
    asm.label("resume").op("LOAD_CONST", 2).binary("+").op("RETURN_VALUE")
    structured(asm.code(template, [False, 7, 1]), [(1, 0), (41, 0)])


def _run_code(code):
    return types.FunctionType(code, {})(5)


def test_code_object_constant_used_as_a_value():
    # Dynamo hands a code object to _create_nested_fn; here b runs it
    def inner(y):
        return y * 2 + 1
    asm = Assembler()
    if (3, 11) <= HOST < (3, 13):
        asm.op("PUSH_NULL")
    asm.op("LOAD_FAST", 1)
    if HOST >= (3, 13):
        asm.op("PUSH_NULL")
    asm.op("LOAD_CONST", 0)
    if HOST == (3, 11):
        asm.op("PRECALL", 1)
    asm.op("CALL" if HOST >= (3, 11) else "CALL_FUNCTION", 1).op("RETURN_VALUE")
    source = structured(asm.code(template, [inner.__code__]), [(0, _run_code)])
    assert "inner.__code__" in source, source


def test_module_globals_constant():
    asm = Assembler()
    asm.op("LOAD_CONST", 0).op("RETURN_VALUE")
    code = asm.code(template, [sys.modules[__name__].__dict__])
    source = depyf.decompile(types.FunctionType(code, {}))
    namespace = {}
    exec(compile(source, "<globals>", "exec"), namespace)
    assert namespace["template"](0, 0, 0) is globals(), source


def cell_template(a, b, note):
    x = a

    def inner():
        return x


@pytest.mark.skipif(not (3, 11) <= HOST < (3, 13), reason="MAKE_CELL/LOAD_CLOSURE as 3.11-3.12 write them")
def test_cell_used_as_a_value():
    # the cell itself (not its contents) goes to b, as Dynamo passes closures
    asm = Assembler()
    cell = len(cell_template.__code__.co_varnames)
    asm.items.insert(0, ("MAKE_CELL", cell))
    asm.op("LOAD_FAST", 0).op("STORE_DEREF", cell)
    asm.op("PUSH_NULL").op("LOAD_FAST", 1).op("LOAD_CLOSURE", cell).op("BUILD_TUPLE", 1)
    if HOST == (3, 11):
        asm.op("PRECALL", 1)
    asm.op("CALL", 1).op("RETURN_VALUE")
    code = asm.code(cell_template, [None])
    # MAKE_CELL must come before RESUME
    raw = bytearray(code.co_code)
    raw[0:2], raw[2:4] = raw[2:4], raw[0:2]
    code = code.replace(co_code=bytes(raw))
    structured(code, [(3, lambda cells: cells[0].cell_contents * 2)])


def _functions_closing_over_x():
    x = None

    def passed_on():
        return x

    def passed_on_with_default(d=None):
        return x
    return passed_on.__code__, passed_on_with_default.__code__


def _closure_passed_on(inner, defaults=None):
    """A function of code ``inner``, made with cell_template's cell of x and
    handed to b at once (torch 2.9 makes a resume function with the frame's
    cells so); its default pushed by ``defaults(asm)``."""
    asm = Assembler()
    cell = len(cell_template.__code__.co_varnames)
    asm.items.insert(0, ("MAKE_CELL", cell))
    asm.op("LOAD_FAST", 0).op("STORE_DEREF", cell)
    asm.op("PUSH_NULL").op("LOAD_FAST", 1)
    if defaults:
        defaults(asm)
    asm.op("LOAD_CLOSURE", cell).op("BUILD_TUPLE", 1).op("LOAD_CONST", 0)
    asm.op("MAKE_FUNCTION", 8 | (1 if defaults else 0))
    if HOST == (3, 11):
        asm.op("PRECALL", 1)
    asm.op("CALL", 1).op("RETURN_VALUE")
    # (made there, as Dynamo's code names its resume functions)
    code = asm.code(cell_template, [inner.replace(co_qualname="cell_template.<locals>." + inner.co_name)])
    # MAKE_CELL must come before RESUME
    raw = bytearray(code.co_code)
    raw[0:2], raw[2:4] = raw[2:4], raw[0:2]
    return code.replace(co_code=bytes(raw))


_MADE = [(3, lambda f: f() * 2), ("x", lambda f: (f.__name__, f.__qualname__))]
_CELLS_ONLY = pytest.mark.skipif(not (3, 11) <= HOST < (3, 13),
                                 reason="MAKE_CELL/MAKE_FUNCTION as 3.11-3.12 write them")


@_CELLS_ONLY
def test_function_with_cells_used_as_a_value():
    source = structured(_closure_passed_on(_functions_closing_over_x()[0]), _MADE)
    assert "def passed_on():" in source and "return b(passed_on)" in source, source


@_CELLS_ONLY
def test_function_used_as_a_value_whose_name_the_code_has():
    # cell_template binds `inner` itself: a def of that name would rebind it
    inner = next(c for c in cell_template.__code__.co_consts if isinstance(c, types.CodeType))
    source = compare_code(_closure_passed_on(inner), _MADE)
    assert FALLBACK in source, source


@_CELLS_ONLY
def test_function_with_computed_defaults_used_as_a_value():
    # note(a) runs where MAKE_FUNCTION's default was evaluated, before b is
    # called: a def would run it where the def stands
    def default(asm):
        asm.call(2, 1, lambda s: s.op("LOAD_FAST", 0)).op("BUILD_TUPLE", 1)
    source = compare_code(_closure_passed_on(_functions_closing_over_x()[1], default), _MADE)
    assert FALLBACK in source, source


def test_branches_sharing_a_long_tail_after_statements(monkeypatch):
    # Dynamo's two calls of a resume function: a value waits while `if b:`
    # picks a branch; each runs a statement, then the same long tail returns.
    # Neither branch is the value of a conditional expression, which a
    # few tries show: the statement stops every shorter tail too.
    from depyf.decompiler.structure import walker as structure
    tries = []
    original = structure.Walker.value_before_tail

    def counted(self, *args, **kwargs):
        tries.append(args[1])
        return original(self, *args, **kwargs)
    monkeypatch.setattr(structure.Walker, "value_before_tail", counted)
    asm = Assembler()
    asm.call(2, 1, lambda s: s.op("LOAD_FAST", 0))
    asm.op("LOAD_FAST", 1).jump_if("FALSE", "else")
    for label, note in (("then", 0), ("else", 1)):
        if label == "else":
            asm.label("else")
        asm.call(2, 1, lambda s, note=note: s.op("LOAD_CONST", note)).op("POP_TOP")
        asm.op("LOAD_CONST", 3 + note).binary("+")     # where the branches differ last
        for _ in range(12):
            asm.op("LOAD_CONST", 2).binary("+")
        asm.op("RETURN_VALUE")
    source = structured(asm.code(template, ["then", "else", 1, 10, 20]), [(1, True), (2, False)])
    assert source.count("note(") >= 3, source
    assert len(tries) == 1, tries


@pytest.mark.skipif(HOST < (3, 14), reason="3.14+ CALL_FUNCTION_EX always takes a mapping or NULL")
def test_call_ex_whose_null_mapping_was_swapped_up():
    # torch 2.15 on 3.14: `PUSH_NULL; PUSH_NULL; SWAP 3; SWAP 2` puts the
    # callable's NULL and the empty mapping under and over the arguments
    asm = Assembler()
    asm.op("LOAD_FAST", 2).op("LOAD_FAST", 0).op("BUILD_LIST", 1)
    asm.op("PUSH_NULL").op("PUSH_NULL").op("SWAP", 3).op("SWAP", 2)
    asm.op("CALL_FUNCTION_EX").op("RETURN_VALUE")
    source = structured(asm.code(template, []), [(1, 0), ("x", 0)])
    assert "note(*[a])" in source or "note(a)" in source, source


@pytest.mark.skipif(HOST < (3, 11), reason="cells live among the locals from 3.11")
def test_a_cell_passed_as_a_value_stays_a_cell_when_structured():
    # Dynamo 2.15 hands the frame's cells to the code making a nested resume
    # function: `__nested_resume_fns = box,`; 3.13+ loads a cell with LOAD_FAST
    from test_fallback import LOAD_CLOSURE_IS_REAL, template_cell
    box = 3
    asm = Assembler()
    asm.op("MAKE_CELL", box).op("LOAD_FAST", 0).op("STORE_DEREF", box)
    cell = "LOAD_CLOSURE" if LOAD_CLOSURE_IS_REAL else "LOAD_FAST"
    asm.call(2, 1, lambda s: s.op(cell, box).op("BUILD_TUPLE", 1))
    asm.op("RETURN_VALUE")
    source = structured(asm.code(template_cell, [None]), [(1, 0), ("x", 0)])
    assert "__closure__" in source, source


@pytest.mark.skipif(HOST < (3, 13), reason="CALL_KW takes its names off the stack from 3.13")
def test_call_kw_whose_names_were_loaded_first():
    # torch 2.15: the keyword names' tuple is loaded before the argument and
    # moved up to the top with a SWAP
    asm = Assembler()
    asm.op("LOAD_FAST", 2).op("PUSH_NULL").op("LOAD_CONST", 0).op("LOAD_FAST", 0)
    asm.op("SWAP", 2).op("CALL_KW", 1).op("RETURN_VALUE")
    source = structured(asm.code(template, [("end",)]), [(1, 0), ("x", 0)])
    assert "note(end=a)" in source, source


# -- the plan's shortcuts choose what the plain fixpoint chooses ----------------------

import ast
import random

from depyf.bytecode.code import CodeRecord
from depyf.decompiler.expressions import Context, StackMachine
from depyf.decompiler.spill import plan_spills, spill
from depyf.decompiler.values import Null, PendingNamed

_LOCALS, _GLOBALS = ["a", "b", "c"], ["g", "h"]


class _RandomStack:
    """Random waiting values and statements, with the times the stack machine
    would stamp: parts before what holds them, values used twice, constants,
    temporaries, displays, slices, walruses and pending stores, some parts of
    the statement older than some waiting values (Dynamo's SWAPs)."""

    def __init__(self, seed):
        self.rnd = random.Random(seed)
        self.time = 0
        self.made = []

    def stamp(self, node):
        self.time += self.rnd.choice([1, 1, 2, 5])
        node._seq = self.time
        return node

    def leaf(self):
        rnd = self.rnd
        pick = rnd.random()
        if pick < 0.55:
            return self.stamp(ast.Name(rnd.choice(_LOCALS + _GLOBALS), ast.Load()))
        if pick < 0.75:
            return self.stamp(ast.Constant(rnd.randrange(3)))
        if pick < 0.85:
            temp = ast.Name("stack_%d" % rnd.randrange(90, 99), ast.Load())
            temp._spill_temp = True
            temp._seq = rnd.randrange(max(1, self.time))
            return temp
        return self.stamp(ast.List([], ast.Load()))

    def expr(self, depth):
        rnd = self.rnd
        if self.made and rnd.random() < 0.12:
            return rnd.choice(self.made)            # (a value used twice)
        if depth <= 0 or rnd.random() < 0.3:
            return self.leaf()
        sub = lambda: self.expr(depth - 1)
        node = rnd.choice([
            lambda: ast.Call(sub(), [sub() for _ in range(rnd.randrange(3))], []),
            lambda: ast.Subscript(sub(), sub(), ast.Load()),
            lambda: ast.Attribute(sub(), "x", ast.Load()),
            lambda: ast.List([sub() for _ in range(rnd.randrange(3))], ast.Load()),
            lambda: ast.Tuple([sub() for _ in range(rnd.randrange(3))], ast.Load()),
            lambda: ast.Slice(sub(), rnd.choice([None, sub()]), None),
            lambda: ast.NamedExpr(ast.Name(rnd.choice(_LOCALS), ast.Store()), sub()),
            lambda: ast.BinOp(sub(), ast.Add(), sub())])()
        if rnd.random() < 0.9:
            self.stamp(node)
        if rnd.random() < 0.5:
            self.made.append(node)
        return node

    def machine(self):
        rnd = self.rnd
        code = CodeRecord(version=(3, 11), varnames=tuple(_LOCALS), names=tuple(_GLOBALS))
        m = StackMachine(Context(code, lambda code, how: None, "function"))
        m.copied = True
        for _ in range(rnd.randrange(1, 6)):
            pick = rnd.random()
            if pick < 0.15:
                m.stack.append(self.stamp(Null()))
            elif pick < 0.25:
                value = self.expr(2)
                m.stack.append(PendingNamed(value, [ast.Name(rnd.choice(_LOCALS), ast.Store())]))
            else:
                m.stack.append(self.expr(rnd.randrange(4)))
        if rnd.random() < 0.3:
            self.time -= rnd.randrange(20)      # the statement's parts: some older
        return m

    def statement(self):
        rnd = self.rnd
        return rnd.choice([
            lambda: ast.Expr(self.expr(3)),
            lambda: ast.Delete([ast.Name(rnd.choice(_LOCALS + _GLOBALS), ast.Del())]),
            lambda: ast.Assign([ast.Name(rnd.choice(_LOCALS), ast.Store())], self.expr(3)),
            lambda: ast.Return(self.expr(2)),
            lambda: ast.Assign([ast.Subscript(self.expr(1), self.expr(1), ast.Store())],
                               self.expr(2))])()


def test_plan_shortcuts_choose_what_every_round_asked_afresh_chooses():
    # What a round carries from the last (the values it found undisturbed, the
    # earliest part of a value) and values pure whatever runs after them: the
    # same values spilled, in the same order, as rounds that ask all afresh
    several_rounds = 0
    for seed in range(600):
        made = _RandomStack(seed)
        m = made.machine()
        before_branches = made.rnd.random() < 0.1
        stmt = made.expr(2) if before_branches else made.statement()
        time = made.time + 1
        plain = plan_spills(m, stmt, time, exhaustive=True, before_branches=before_branches)
        quick = plan_spills(m, stmt, time, before_branches=before_branches)
        assert [id(v) for v in quick] == [id(v) for v in plain], (seed, ast.dump(stmt))
        several_rounds += len(plain) > 1
    assert several_rounds > 100


def test_spilled_values_are_replaced_everywhere():
    # a spilled value is a temporary in the statement, in every waiting value
    # and on the stack (a waiting value met once is in no other node: it is
    # replaced on the stack alone)
    for seed in range(300):
        made = _RandomStack(seed)
        m = made.machine()
        stmt = made.statement()
        time = made.time + 1
        spilled = {id(v) for v in plan_spills(m, stmt, time)}
        assigns = spill(m, stmt, time)
        assert len(assigns) == len(spilled)
        todo = [stmt] + m.stack
        seen = set()
        while todo:
            node = todo.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            assert id(node) not in spilled, (seed, ast.dump(stmt))
            for value in vars(node).values():
                if isinstance(value, ast.AST):
                    todo.append(value)
                elif isinstance(value, list):
                    todo += [v for v in value if isinstance(v, ast.AST)]


def _protected_call(asm, func_local, load_args, argc, finally_body):
    """Dynamo's try/finally around the call that breaks a graph inside a with
    block (3.11+): the callee and its arguments are pushed before the try,
    which covers the call alone and unwinds the whole stack (depth 0); the
    normal way out runs a copy of the finally body and jumps over the handler
    with a None the join pops; the result waits on the stack after it."""
    asm.callee(func_local)
    load_args(asm)
    asm.label("try").call_op(argc).label("body_end")
    finally_body(asm)
    asm.op("LOAD_CONST", 0).jump("after")
    asm.label("handler").op("PUSH_EXC_INFO")
    finally_body(asm)
    asm.op("RERAISE", 0)
    asm.label("cleanup").op("COPY", 3).op("POP_EXCEPT").op("RERAISE", 1)
    asm.label("after").op("NOP").op("POP_TOP")
    asm.handler("try", "body_end", "handler", 0)
    asm.handler("handler", "cleanup", "cleanup", 1, lasti=True)
    return asm


@pytest.mark.skipif(HOST < (3, 11), reason="exception tables of 3.11+")
def test_try_finally_around_a_call_whose_operands_wait_on_the_stack():
    # (a * 2, b(a)) returned, b(a) called inside try/finally: note('exit') runs
    # after it whether it raises or not, note('enter') before it, a * 2 first
    asm = Assembler()
    asm.op("LOAD_FAST", 0).op("LOAD_CONST", 2).binary("*")
    exit_note = lambda s: s.call(2, 1, lambda t: t.op("LOAD_CONST", 3)).op("POP_TOP")
    _protected_call(asm, 1, lambda s: s.call(2, 1, lambda t: t.op("LOAD_CONST", 1)).op("POP_TOP")
                    .op("LOAD_FAST", 0), 1, exit_note)
    asm.op("BUILD_TUPLE", 2).op("RETURN_VALUE")
    # (the call reads its operands as pushed: `note('enter')` ran between)
    code = asm.code(template, [None, "enter", 2, "exit"])
    source = structured(code, [(1, str), ("x", int), (3, len)])
    assert "try:" in source and "finally:" in source, source
