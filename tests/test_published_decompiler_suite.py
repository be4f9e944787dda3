"""The checks of the published depyf's decompiler suite, on functions of our own.

Its main check: decompile a function's code object, compile the source, take
the code object of the same name out of the result, put it in place of the
function's code and call the function again: the results (and side effects)
must be the same. Its other checks: a decompiled function run with ``exec``
is found under its name; an ``assert`` survives; wrappers decompile to the
function they run; ``decompile_ensure`` gives source that compiles.
"""
import contextlib
import functools
from copy import deepcopy
from dataclasses import dataclass

import depyf
from depyf.utils import collect_all_code_objects, decompile_ensure


def recompiled_code(func):
    """The code object named like ``func``'s in the compiled decompilation of its code."""
    original = func.__code__
    source = depyf.decompile(original)
    module = compile(source, original.co_filename, "exec")
    same_name = [c for c in collect_all_code_objects(module) if c.co_name == original.co_name]
    assert same_name, source
    return same_name[0]


@contextlib.contextmanager
def decompiled_in_place(func):
    """``func`` running the code compiled from its decompilation, for the block."""
    original = func.__code__
    func.__code__ = recompiled_code(func)
    try:
        yield
    finally:
        func.__code__ = original


def assert_same_results(func, *calls):
    """``func`` gives the same result for each argument tuple in ``calls``
    after its code is replaced by its decompiled-and-compiled code."""
    calls = calls or [()]
    before = [func(*args) for args in calls]
    with decompiled_in_place(func):
        after = [func(*args) for args in calls]
    assert after == before


@dataclass
class Vec:
    x: int
    y: int

    def __matmul__(self, other):
        return self.x * other.x + self.y * other.y

    def __imatmul__(self, other):
        self.x, self.y = self.x * other.x, self.y * other.y
        return self

    def __setitem__(self, index, value):
        if index == 0:
            self.x = value
        elif index == 1:
            self.y = value
        else:
            raise IndexError(index)


TABLE = {"k": 1, 2: "two"}
HITS = 0


@contextlib.contextmanager
def recording():
    log = ["open"]
    try:
        yield log
    finally:
        log.append("closed")


class Path:
    """Records attribute reads, items and calls as a dotted name, like the
    model code the published suite's last cases come from."""

    def __init__(self, name=""):
        self.name = name

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return Path(self.name + "." + attr if self.name else attr)

    def __getitem__(self, key):
        return Path("%s[%r]" % (self.name, key))

    def __call__(self, *args, **kwargs):
        return Path("%s(%r, %r)" % (self.name, args, sorted(kwargs.items())))

    def __eq__(self, other):
        return isinstance(other, Path) and self.name == other.name

    def __repr__(self):
        return "Path(%r)" % self.name

    __hash__ = None


# -- operators -----------------------------------------------------------------

def test_unary_operators():
    def f(v):
        return +v, -v, not v, ~v
    assert_same_results(f, (0,), (3,), (-7,))


def test_binary_operators():
    def arithmetic(a, b):
        return (a ** b) ** 2, a * b * a, (a // b) // 2, a / b / 3, (a % b) % 2, a + b + a, a - b - a

    def bitwise(a, b):
        return (a << b) << 1, (a >> b) >> 1, a & b & 6, a ^ b ^ 5, a | b | 8

    def matrix():
        return Vec(2, 3) @ Vec(4, 5)
    assert_same_results(arithmetic, (7, 2), (-9, 4))
    assert_same_results(bitwise, (12, 2), (5, 1))
    assert_same_results(matrix)


def test_in_place_operators():
    def f(a):
        a **= 2
        a *= 3
        a //= 2
        a %= 100
        a += 7
        a -= 1
        a <<= 2
        a >>= 1
        a &= 0xFF
        a ^= 0x0F
        a |= 0x100
        b = float(a)
        b /= 4
        return a, b

    def matrix():
        v = Vec(3, 4)
        v @= Vec(2, 2)
        return v
    assert_same_results(f, (3,), (11,))
    assert_same_results(matrix)


# -- stores, deletes, unpacking ------------------------------------------------

def test_subscripts_and_attributes():
    def f():
        v = Vec(1, 1)
        v[0] = 8
        v[1] = v.x + 1
        v.x = v.y * 2
        d = deepcopy(TABLE)
        del d["k"]
        w = Vec(5, 6)
        del w.y
        w.y = 0
        return v, d, w, (9, 8, 7)[1], len((1, 2, 3, 4))
    assert_same_results(f)


def test_a_global_store_has_the_same_side_effect():
    def bump(by):
        global HITS
        HITS = HITS + by
        return HITS
    start = HITS
    with decompiled_in_place(bump):
        assert bump(5) == start + 5
    assert HITS == start + 5


def test_delete_then_rebind_a_local():
    def f():
        n = 1
        del n
        n = 2
        return n
    assert_same_results(f)


def test_unpacking():
    def f(items):
        a, b = items[:2]
        c, = items[:1]
        d, *rest = items
        *init, e = (x * 2 for x in items)
        g, h = (None for _ in range(2))
        return a, b, c, d, rest, init, e, g, h
    assert_same_results(f, ([1, 2, 3],), ((4, 5, 6, 7),))


# -- building values -----------------------------------------------------------

def test_containers_and_their_unpacking():
    def f(a, b):
        xs = [1, 2, a]
        ys = {b, 9}
        m = {"one": 1}
        n = {b: a}
        return ((a, b), (a,), [a, b], [a], {a, b}, {a},
                {a: 1, 2: b}, {1: 2, 3: 4}, (*xs, *ys), [*xs, *ys], [*xs],
                {*xs, *ys}, {**m, **n}, {**m}, [1, 2, 3], {5, 6, 7}, ())
    assert_same_results(f, (1, 2), ("p", "q"))


def test_dict_merge_in_a_call():
    def f():
        base = {1: "a"}
        extra = {"z": 3}
        base.update(**extra)
        return base
    assert_same_results(f)


# -- calls and signatures ------------------------------------------------------

def test_calls_with_positional_keyword_and_starred_arguments():
    def target(a, b, c=1):
        return a, b, c

    def gather(*args, **kwargs):
        return args, kwargs

    def f():
        xs = [4, 5]
        kw = {"k": 6}
        return (target(1, xs, kw), target(kw, 1, xs), target(a=xs, b=kw), target(b=1, a=2, c=3),
                gather(*xs), gather(**kw), gather(*xs, **kw), gather(), gather(1, 2, *xs),
                gather(1, **kw), gather(q=2, **kw))
    assert_same_results(f)


def test_signatures_of_replaced_functions():
    def keyword_only(a, b, c=1, *, d=2):
        return a, b, c, d

    def star_args(*args, **kwargs):
        return args, kwargs

    def mixed(a, b, *args, **kwargs):
        return a, b, args, kwargs
    assert_same_results(keyword_only, (1, [2], {3: 3}), ({}, 1, []))
    assert_same_results(star_args, (1, 2, 3), ())
    assert_same_results(mixed, (1, 2), (1, 2, 3, 4))
    with decompiled_in_place(keyword_only):
        assert keyword_only(1, 2, d=5) == (1, 2, 1, 5)
    with decompiled_in_place(mixed):
        assert mixed(1, 2, 3, e=4) == (1, 2, (3,), {"e": 4})


# -- comparisons, imports, slices, formatting ----------------------------------

def test_comparisons_identity_and_membership():
    def f(a, b):
        return ((a == b) + (a < b) + (a > b) + (a >= b) + (a <= b) + (a != b),
                a is b, a is not None, a in (1, 2, 3), b not in [4, 5])
    assert_same_results(f, (1, 2), (3, 3), (5, 4))


def test_imports_inside_a_function():
    def f():
        from math import hypot
        import operator
        return operator.mul(hypot(3, 4), 2)
    assert_same_results(f)


def test_slices():
    def f(xs):
        return xs[:], xs[2:], xs[:3], xs[1:4], xs[::-1], xs[1::2]
    assert_same_results(f, ([0, 1, 2, 3, 4, 5],), ("abcdef",))


def test_formatted_strings():
    def f(a, b, c):
        return f"{a} {b!r} {b!s} {b!a} {c:.3f} {a!s:>{int(c)}}"
    assert_same_results(f, (1, "é", 2.5), ("x", None, 4.0))


def test_swaps_and_rotations():
    def f():
        a, b, c, d, e = 1, 2, 3, 4, 5
        a, b = b, a
        a, b, c = c, b, a
        a, b, c, d = d, c, b, a
        a, b, c, d, e = e, d, c, b, a
        return a, b, c, d, e
    assert_same_results(f)


# -- comprehensions and generators ---------------------------------------------

def test_comprehensions():
    def f(n):
        return ([i * i for i in range(n)], {i % 3 for i in range(n)},
                {i: -i for i in range(n)},
                [{j: {k for k in range(j)} for j in range(i)} for i in range(n)])
    assert_same_results(f, *[(n,) for n in range(6)])


def test_a_generator_expression_with_a_condition():
    def f(a, b, c, d):
        return tuple(v for v in [a, b, c, d] if v is not None)
    assert_same_results(f, (1, None, 2, None), (None, None, None, None))


# -- control flow --------------------------------------------------------------

def test_if_elif_else_and_compound_conditions():
    def chain(a):
        if a == 0:
            return "zero"
        elif a == 1:
            return "one"
        else:
            return "many"

    def both(a, b):
        c = 1
        if a > 0 and b > 1:
            c += 1
        else:
            c += 2
        return c + 3

    def either(a, b):
        c = 1
        if a > 0 or b > 1:
            c += 1
        else:
            c += 2
        return c + 3

    def none_checks(a):
        if a is None:
            return 0
        elif a is not None:
            return 1
    grid = [(a, b) for a in range(-2, 3) for b in range(-2, 3)]
    assert_same_results(chain, *[(a,) for a in range(4)])
    assert_same_results(both, *grid)
    assert_same_results(either, *grid)
    assert_same_results(none_checks, (None,), (0,), ("",))


def test_a_nested_function_closing_over_a_parameter():
    def f(a):
        def g(b=3):
            return a + b
        return g(2), g()
    assert_same_results(f, *[(a,) for a in range(5)])


def test_for_and_with():
    def loop(a):
        for i in range(5):
            a += i
        return a

    def managed(a):
        with recording() as log:
            log.append(a)
        return log
    assert_same_results(loop, (0,), (10,))
    assert_same_results(managed, (5,))


class Owner:
    def own_class(self):
        return __class__

    def parent_repr(self):
        return super().__repr__()[:7]


def test_methods_using_their_class_cell():
    obj = Owner()
    for method in (Owner.own_class, Owner.parent_repr):
        expected = method(obj)
        with decompiled_in_place(method):
            assert method(obj) == expected


def test_extended_arguments_past_256_locals():
    source = "def many():\n" + "".join("    v%d = %d\n" % (i, i * 3) for i in range(300)) \
        + "    return v0 + v150 + v299\n"
    scope = {}
    exec(source, scope)
    assert_same_results(scope["many"])


# -- shapes from model code (the published suite takes them from PyTorch models) --

def test_conditional_expressions():
    def plain(flag):
        collected = () if flag else None
        return collected

    def in_a_keyword(a, g, b):
        return g(arg1=a if a is not None else b, arg2=2)

    def with_and(p, q):
        return () if (p and q) else None

    def head_mask(mask, layer):
        if mask is not None:
            return mask.size()[0] == (layer.count), \
                f"mask for {layer.count} layers, got {mask.size()[0]}"
    assert_same_results(plain, (0,), (1,))
    assert_same_results(in_a_keyword, (None, Path("g"), 2), (1, Path("g"), 2))
    assert_same_results(with_and, *[(p, q) for p in (0, 1) for q in (0, 1)])
    assert_same_results(head_mask, (Path("mask"), Path("layer")), (None, Path("layer")))


# -- the checks outside the main loop ------------------------------------------

def test_a_decompiled_nested_function_runs_under_its_own_name():
    def short_circuit(a, b):
        if a > 0 and b > 0:
            return a + b
        elif a > 1 or b > 2:
            return a - b
        else:
            return 2
    scope = {}
    exec(depyf.decompile(short_circuit), scope)
    values = [-1, 0, 1, 2, 3]
    assert [scope["short_circuit"](a, b) for a in values for b in values] == \
        [short_circuit(a, b) for a in values for b in values]


def test_an_assert_statement_survives():
    # Compiled from text: pytest rewrites the asserts of test modules, not these.
    scope = {}
    exec("def checked(x):\n    assert x == 1, 'x is not one?'\n    return x\n", scope)
    checked = scope["checked"]
    rebuilt = {}
    exec(depyf.decompile(checked.__code__), rebuilt)
    assert rebuilt["checked"](1) == 1
    try:
        rebuilt["checked"](2)
    except AssertionError as e:
        assert str(e) == "x is not one?"
    else:
        raise AssertionError("the decompiled assert did not fire")


def add(a, b):
    return a + b


class Summer:
    def __call__(self, a, b):
        return a + b


def test_wrappers_decompile_to_the_function_they_run():
    for wrapped, name in [(functools.partial(add, 1), "add"),
                          (functools.lru_cache(None)(add), "add"),
                          (Summer(), "__call__")]:
        source = depyf.decompile(wrapped)
        assert source.lstrip().startswith("def %s(" % name), source
        scope = {}
        exec(source, scope)
        assert scope[name](*([None] if name == "__call__" else []), 2, 3) == 5


def test_decompile_ensure_of_a_return_in_finally():
    def f(a, b):
        try:
            return a + b
        finally:
            return a - b
    scope = {}
    exec(decompile_ensure(f.__code__), scope)
    assert scope["f"](5, 3) == f(5, 3) == 2
