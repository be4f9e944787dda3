"""Equivalence up to temporaries (depyf.verify.effect_trace): the candidate's
own locals carry values the original kept on the stack; everything else it
does must happen in the same order, with the same values.

Each case is two functions, written so that the original's code keeps on the
stack what the candidate names (its names are not the original's: they are
the candidate's temporaries), and the traps are what a wrong step would do.
"""
import json
import os
import subprocess
import sys
import textwrap

import pytest

from depyf.verify import effect_trace

needs_model = pytest.mark.skipif(effect_trace.VERSION not in effect_trace.MODELLED,
                                 reason="effect_trace does not know this interpreter's instructions")


def code_of(source):
    module = compile(textwrap.dedent(source), "<test>", "exec")
    return next(c for c in module.co_consts if hasattr(c, "co_code"))


def same(original, candidate):
    return effect_trace.equivalent(code_of(original), code_of(candidate))


@needs_model
def test_a_value_named_instead_of_kept_on_the_stack():
    assert same("""
        def f(g, x):
            return g(x)
    """, """
        def f(g, x):
            stack_0 = g
            return stack_0(x)
    """)


@needs_model
def test_spilled_operands_of_a_call():
    assert same("""
        def f(g, h, x):
            return g(h(x), x.y)
    """, """
        def f(g, h, x):
            stack_0 = h(x)
            stack_1 = x.y
            return g(stack_0, stack_1)
    """)


@needs_model
def test_calls_in_another_order_are_refused():
    assert not same("""
        def f(a, b):
            a()
            b()
    """, """
        def f(a, b):
            b()
            a()
    """)


def test_a_global_read_after_a_call_that_may_rebind_it_is_refused():
    # G is read before h() runs in the original: h may rebind it
    assert not same("""
        def f():
            return G(h())
    """, """
        def f():
            stack_0 = h()
            return G(stack_0)
    """)


def test_a_value_used_twice_is_not_computed_twice():
    assert not same("""
        def f(g, x):
            stack_0 = g(x)
            return stack_0 + stack_0
    """, """
        def f(g, x):
            return g(x) + g(x)
    """)


@needs_model
def test_a_list_is_built_when_it_is_first_used():
    # building a list of values at hand runs no code: when is unseen
    assert same("""
        def f(g, x):
            return g(x(), [1])
    """, """
        def f(g, x):
            stack_0 = [1]
            return g(x(), stack_0)
    """)


def test_a_list_mutated_before_it_escapes_into_a_call_is_refused():
    assert not same("""
        def f(g):
            items = [1]
            g(items)
            items.append(2)
            return items
    """, """
        def f(g):
            items = [1]
            items.append(2)
            g(items)
            return items
    """)


def test_two_lists_alike_are_two_lists():
    assert not same("""
        def f(g):
            stack_0 = []
            return g(stack_0, stack_0)
    """, """
        def f(g):
            return g([], [])
    """)


@needs_model
def test_extending_a_list_built_here_is_the_extend_instruction():
    assert same("""
        def f(y):
            return [*y]
    """, """
        def f(y):
            stack_0 = []
            stack_0.extend(y)
            return stack_0
    """)


def test_extending_a_list_of_unknown_type_runs_its_extend():
    assert not same("""
        def f(y):
            return [*y]
    """, """
        def f(y, g):
            stack_0 = g()
            stack_0.extend(y)
            return stack_0
    """)


@needs_model
def test_branches_compare_up_to_polarity():
    assert same("""
        def f(x, a, b):
            if x:
                return a()
            return b()
    """, """
        def f(x, a, b):
            if not x:
                return b()
            return a()
    """)


def test_swapped_branches_are_refused():
    assert not same("""
        def f(x, a, b):
            if x:
                return a()
            return b()
    """, """
        def f(x, a, b):
            if x:
                return b()
            return a()
    """)


def test_another_return_value_is_refused():
    assert not same("""
        def f(g, x):
            g(x)
            return x
    """, """
        def f(g, x):
            return g(x)
    """)


def test_stores_to_the_originals_variables_keep_their_place():
    assert not same("""
        def f(g, x):
            y = x
            g()
            return y
    """, """
        def f(g, x):
            g()
            y = x
            return y
    """)


def test_exception_handlers_are_not_modelled():
    assert not same("""
        def f(g):
            try:
                g()
            except ValueError:
                pass
    """, """
        def f(g):
            try:
                g()
            except ValueError:
                pass
    """)


def test_loops_are_not_modelled():
    assert not same("""
        def f(g):
            while g():
                pass
    """, """
        def f(g):
            while g():
                pass
    """)


def test_other_parameter_names_are_refused():
    # (a caller passes arguments by name)
    assert not same("""
        def f(g, x):
            return g(x)
    """, """
        def f(g, y):
            return g(y)
    """)


@needs_model
def test_keyword_arguments_compare_by_name():
    assert same("""
        def f(g, x):
            return g(x, key=x.y)
    """, """
        def f(g, x):
            stack_0 = g
            stack_1 = x.y
            return stack_0(x, key=stack_1)
    """)
    assert not same("""
        def f(g, x):
            return g(x, key=1)
    """, """
        def f(g, x):
            return g(x, other=1)
    """)


def test_in_and_not_in_differ():
    assert not same("""
        def f(x, y):
            return x in y
    """, """
        def f(x, y):
            return x not in y
    """)


def test_a_test_of_none_is_not_a_truth_test():
    assert not same("""
        def f(x, a, b):
            if x is None:
                return a
            return b
    """, """
        def f(x, a, b):
            if not x:
                return a
            return b
    """)


@needs_model
def test_slices_and_items():
    assert same("""
        def f(g, x):
            x[1:2] = g(x[0], x[::2])
            del x[0]
    """, """
        def f(g, x):
            stack_0 = g
            stack_1 = x[0]
            stack_0 = stack_0(stack_1, x[::2])
            x[1:2] = stack_0
            del x[0]
    """)


@pytest.mark.torch
def test_dynamos_transformed_code_and_mutants_of_its_text():
    """On Dynamo's code of the test programs: most faithful texts are
    equivalent, and every text with two statements holding calls swapped, or
    one dropped, is refused."""
    pytest.importorskip("torch")
    here = os.path.dirname(os.path.abspath(__file__))
    src = os.path.join(os.path.dirname(here), "src")
    env = dict(os.environ, PYTHONPATH=src + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, os.path.join(here, "effect_trace_dynamo.py")],
                          env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    counts = json.loads(proc.stdout.strip().splitlines()[-1])
    assert counts["equivalent"] >= 0.75 * counts["functions"], counts
    assert counts["mutants"] >= 100 and counts["accepted"] == [], counts
    assert counts["refused"] == counts["mutants"], counts


@needs_model
def test_docstring_examples():
    import doctest
    result = doctest.testmod(effect_trace)
    assert result.attempted and not result.failed, result


@needs_model
def test_a_method_call_is_the_call_of_the_attribute_read():
    assert same("""
        def f(x, a):
            return x.m(a)
    """, """
        def f(x, a):
            stack_0 = x.m
            return stack_0(a)
    """)
    assert not same("""
        def f(x, a):
            return x.m(a)
    """, """
        def f(x, a):
            return x.m(a, x)
    """)
