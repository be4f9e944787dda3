"""The decompiler frees what it builds by reference counting alone.

depyf's torch hooks decompile inside torch.compile's own compile. Objects a
decompilation leaves in reference cycles outlive it until the next garbage
collection, and every young-generation collection torch triggers after the
hook walks them again and moves them on to the older generations: time
spent in torch's compile that no timer of depyf's sees. So a decompilation,
faithful or readable, leaves no cyclic garbage.
"""
import ast
import gc

import pytest

import depyf
from depyf.decompiler.api import decompile_report
from depyf.decompiler.readable import Readable, make_readable
from depyf.decompiler.readable.facts import scope_of
from depyf.dynamo import fullcode


def cyclic_garbage(work) -> int:
    """How many objects ``work()`` leaves that only a collection frees (run
    once before, so that what its caches keep for good is not counted)."""
    work()
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        work()
        return gc.collect()
    finally:
        if enabled:
            gc.enable()


def loops_and_handlers(items, log):
    total = 0
    for i, item in enumerate(items):
        try:
            if item is None:
                continue
            total += item
        except TypeError as e:
            log.append(e)
        finally:
            log.append(i)
    with open(__file__) as f:
        first = f.readline()
    return total, first, [x * 2 for x in items if x], {k: v for k, v in log}


def closures(start):
    def counter(step):
        nonlocal start
        start += step
        return start

    def again(n):
        return again(n - 1) if n else counter(1)
    return counter, again, lambda: start


class Shapes:
    size = 3

    def area(self, *args, scale=1, **kwargs):
        return [self.size * scale for _ in args], kwargs


FAITHFUL = [loops_and_handlers, closures, Shapes.area]


@pytest.mark.parametrize("obj", FAITHFUL, ids=lambda o: o.__name__)
def test_a_faithful_decompilation_leaves_no_cycles(obj):
    assert cyclic_garbage(lambda: depyf.decompile(obj)) == 0


DYNAMO_SHAPED = '''
def f(a, b):
    stack_0 = __compiled_fn_1
    tmp_1 = utils.enter()
    stack_1 = stack_0(a, b)
    del tmp_1
    graph_out_0 = stack_1
    stack_3 = [graph_out_0[1]]
    stack_2 = stack_3[0:1]
    stack_2.extend([b])
    del graph_out_0
    if stack_2[0]:
        item = print('x')
        return __resume_at_9_2(*[[], [], *stack_2], item)
    return __resume_at_12_3(*[[], stack_2])
'''


def test_the_readable_passes_leave_no_cycles():
    def work():
        fn = ast.parse(DYNAMO_SHAPED).body[0]
        make_readable(fn, Readable(keep={"a", "b"}, callees={"__resume_at_9_2": ("x", "y", "z", "w")}))
    assert cyclic_garbage(work) == 0


def test_the_name_facts_alone_leave_no_cycles():
    fn = ast.parse(DYNAMO_SHAPED).body[0]
    assert cyclic_garbage(lambda: scope_of(fn, keep={"a"})) == 0


def dynamo_like(a, b):
    stack = [a, b]
    moved = stack[0:1]
    moved.extend([b])
    out = print(moved)
    del stack
    return (moved, out)


def test_a_readable_decompilation_with_its_line_map_leaves_no_cycles():
    code = compile(DYNAMO_SHAPED, "<dynamo>", "exec").co_consts[0]
    hints = Readable(keep={"a", "b"})
    for each in (code, dynamo_like.__code__):
        assert cyclic_garbage(lambda: fullcode.safe_decompile(
            each, "__transformed_code_0_for_f", check=False, readable=hints, lines={})) == 0
        assert cyclic_garbage(lambda: decompile_report(each, readable=hints, line_map=True)) == 0


def test_naming_a_constant_no_literal_writes_leaves_no_cycles():
    import fractions
    code = compile("def f(x):\n    return x + 1.5\n", "<dynamo>", "exec").co_consts[0]
    odd = code.replace(co_consts=tuple(fractions.Fraction(1, 3) if c == 1.5 else c for c in code.co_consts))
    text, problem = fullcode.safe_decompile(odd, "g", check=False, readable=Readable(keep={"x"}), lines={})
    assert "Fraction(1, 3)" in text and problem is None, text
    assert cyclic_garbage(lambda: fullcode.safe_decompile(
        odd, "g", check=False, readable=Readable(keep={"x"}), lines={})) == 0
