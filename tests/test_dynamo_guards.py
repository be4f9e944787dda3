"""Guards written by depyf give the same verdict as torch's C++ guard manager.

Each program is compiled with backend="eager" (guards do not depend on the backend); every
cache entry's guards are written with render_guards, run, and compared with
``entry.guard_manager.check(L)`` on the recorded inputs and on perturbed ones.
"""
import collections
import contextlib
import dataclasses
import enum
import math
import re
import types

import pytest

torch = pytest.importorskip("torch")

import torch._dynamo  # noqa: E402
from torch._dynamo.eval_frame import _debug_get_cache_entry_list  # noqa: E402

from depyf.dynamo.guard_text import FP32_PRECISIONS  # noqa: E402
from depyf.dynamo.guards import PRELUDE, TRANSLATED_KINDS, render_guards  # noqa: E402
from depyf.dynamo.torch_compat import nan_guards_keep_their_value, release  # noqa: E402

pytestmark = pytest.mark.torch

# Every leaf-guard kind the programs below produce on torch 2.13.  A kind that is not listed
# (a new torch) fails the test that meets it, so its translation gets written and tested.
KINDS_SEEN = {
    "LAMBDA_GUARD", "GLOBAL_STATE", "TORCH_FUNCTION_MODE_STACK", "DEFAULT_DEVICE", "TYPE_MATCH",
    "ID_MATCH", "EQUALS_MATCH", "TRUE_MATCH", "FALSE_MATCH", "NONE_MATCH", "LENGTH_CHECK",
    "DICT_LENGTH", "DICT_CONTAINS", "TENSOR_MATCH", "DIMENSION_DYNAMIC_MARKING_GUARD",
    "NO_TENSOR_ALIASING", "TUPLE_ITERATOR_LEN", "RANGE_ITERATOR_MATCH", "FLOAT_IS_NAN",
    "SET_CONTAINS", "MAPPING_KEYS_MATCH", "SYMBOLIC_SHAPE_GUARD",
}
# Tested releases whose programs produce other kinds: release -> (kinds they produce
# besides, kinds they do not). 2.9 guards that a value lacks an attribute Dynamo sets,
# checks a tensor's dynamic dimensions itself and a float's NaN with a lambda guard;
# 2.14+ guards two arguments that are one object with OBJECT_ALIASING; 2.15 compiles no
# NaN here (its NaN guards are not translated).
KINDS_BY_RELEASE = {
    (2, 9): ({"NO_HASATTR", "DYNAMIC_INDICES"}, {"DIMENSION_DYNAMIC_MARKING_GUARD", "FLOAT_IS_NAN"}),
    (2, 14): ({"OBJECT_ALIASING"}, set()),
    (2, 15): ({"OBJECT_ALIASING"}, {"FLOAT_IS_NAN"}),      # (not compiled: NAN below)
}
_added, _gone = KINDS_BY_RELEASE.get(release(torch.__version__), (set(), set()))
KINDS_SEEN = (KINDS_SEEN | _added) - _gone
_seen = set()


def _leaf_kinds(manager):
    kinds = {type(g).__name__ for g in manager.get_leaf_guards()}
    if hasattr(manager, "get_epilogue_lambda_guards"):
        kinds |= {type(g).__name__ for g in manager.get_epilogue_lambda_guards()}
    if hasattr(manager, "get_key_value_managers"):
        for pair in manager.get_key_value_managers().values():
            for m in pair:
                if m is not None:
                    kinds |= _leaf_kinds(m)
    for child in manager.get_child_managers():
        kinds |= _leaf_kinds(child)
    return kinds


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def guard_functions(fn):
    """[(entry, python guard function, source)] for every cache entry of `fn`."""
    code = getattr(fn, "__code__", None) or fn.forward.__code__
    result = []
    for i, entry in enumerate(_debug_get_cache_entry_list(code)):
        kinds = _leaf_kinds(entry.guard_manager.root)
        assert kinds <= KINDS_SEEN, f"new guard kinds {kinds - KINDS_SEEN}: translate and list them"
        _seen.update(kinds)
        rendered = render_guards(entry.guard_manager, f"guard_{i}")
        assert "not_translated(" not in rendered.source, rendered.source
        assert set(rendered.kinds) <= TRANSLATED_KINDS | {"DICT_TYPE", "DICT_LENGTH"}
        assert rendered.count == len(rendered.lines) > 0
        namespace = {}
        exec(compile(PRELUDE + rendered.source, f"<guard_{i}>", "exec"), namespace)
        result.append((entry, namespace[f"guard_{i}"], rendered.source))
    assert result, "nothing was compiled"
    return result


def assert_same_verdicts(fn, variants, globals_=None, expect_some_false=True):
    """Each variant is a frame-locals dict (or a (context manager, dict) pair)."""
    verdicts = []
    for entry, check, source in guard_functions(fn):
        G = globals_ if globals_ is not None else getattr(fn, "__globals__", None) or fn.forward.__globals__
        for variant in variants:
            context, L = variant if isinstance(variant, tuple) else (contextlib.nullcontext(), variant)
            with context:
                expected = entry.guard_manager.check(L)
                got = check(L, G)
            assert got == expected, f"depyf says {got}, torch says {expected} for {L!r}\n{source}"
            verdicts.append(got)
    assert any(verdicts), "no variant passes: the recorded inputs should"
    if expect_some_false:
        assert not all(verdicts), "no variant fails: the perturbations test nothing"
    return verdicts


def compile_and_run(fn, *args, **options):
    options.setdefault("backend", "eager")
    compiled = torch.compile(fn, **options)
    return compiled(*args)


# ---- programs -------------------------------------------------------------------


def tensors_fn(x, y):
    return x * 2 + y.sum()


def test_tensor_metadata():
    x, y = torch.randn(3, 4), torch.randn(2, 3, requires_grad=True)
    compile_and_run(tensors_fn, x, y)
    assert_same_verdicts(tensors_fn, [
        {"x": x, "y": y},
        {"x": torch.randn(3, 4), "y": torch.randn(2, 3, requires_grad=True)},
        {"x": torch.randn(3, 5), "y": y},
        {"x": torch.randn(3, 4, dtype=torch.float64), "y": y},
        {"x": torch.randn(3, 4, requires_grad=True), "y": y},
        {"x": x, "y": torch.randn(2, 3)},
        {"x": torch.randn(4, 3).t(), "y": y},
        {"x": torch.randn(3, 4, 1), "y": y},
        {"x": torch.nn.Parameter(torch.randn(3, 4), requires_grad=False), "y": y},
        {"x": torch.randn(3, 4).to(torch.int64), "y": y},
        {"x": torch.empty(3, 4, device="meta"), "y": y},
        {"x": y, "y": y},
        {"x": x, "y": x},
        {"x": [1, 2], "y": y},
        {"x": 3, "y": y},
        {"y": y},
    ])


def scalars_fn(x, n, s, flag, nothing, ratio, pair):
    if flag and nothing is None and s == "a":
        return x * n + ratio + pair[0]
    return x


def test_python_scalars():
    x = torch.ones(2)
    base = {"x": x, "n": 4, "s": "a", "flag": True, "nothing": None, "ratio": 0.5, "pair": (1, 2)}
    compile_and_run(scalars_fn, *base.values())
    changes = [
        {}, {"n": 5}, {"n": 4.0}, {"n": True}, {"s": "b"}, {"s": b"a"}, {"flag": False}, {"flag": 1},
        {"nothing": 0}, {"ratio": 0.25}, {"ratio": 1}, {"pair": (1, 3)}, {"pair": [1, 2]},
        {"pair": (1, 2, 3)}, {"pair": (1.0, 2)},
    ]
    assert_same_verdicts(scalars_fn, [dict(base, **c) for c in changes])


SCALE = 3
OFFSET = torch.ones(2)


def globals_fn(x):
    return x * SCALE + OFFSET + math.pi


@contextlib.contextmanager
def global_set(name, value):
    saved = globals()[name]
    globals()[name] = value
    try:
        yield
    finally:
        globals()[name] = saved


def test_globals_changed():
    x = torch.ones(2)
    compile_and_run(globals_fn, x)
    assert_same_verdicts(globals_fn, [
        {"x": x},
        (global_set("SCALE", 4), {"x": x}),
        (global_set("SCALE", 3.0), {"x": x}),
        (global_set("OFFSET", torch.ones(3)), {"x": x}),
        (global_set("OFFSET", torch.ones(2, dtype=torch.float64)), {"x": x}),
        (global_set("math", collections), {"x": x}),
    ])


def dynamic_fn(x, y):
    return (x.sin() + x.shape[0]) @ y


def shape_variants(x, y):
    """The recorded inputs of dynamic_fn and ones whose sizes agree or clash."""
    return [
        {"x": x, "y": y},
        {"x": torch.randn(9, 7), "y": torch.randn(7, 3)},
        {"x": torch.randn(1, 4), "y": y},
        {"x": torch.randn(5, 1), "y": torch.randn(1, 6)},
        {"x": torch.randn(5, 4), "y": torch.randn(5, 6)},
    ]


def test_dynamic_shapes():
    x, y = torch.randn(5, 4), torch.randn(4, 6)
    compile_and_run(dynamic_fn, x, y, dynamic=True)
    source = guard_functions(dynamic_fn)[0][2]
    assert re.search(r"2 <= L\['x'\]\.size\(\)\[0\]", source), source
    assert_same_verdicts(dynamic_fn, shape_variants(x, y) + [
        {"x": torch.randn(8, 5).t(), "y": torch.randn(8, 2)},
        {"x": torch.randn(5, 4, 2), "y": y},
        {"x": torch.randn(5, 4, dtype=torch.float64), "y": y},
    ])


def test_recompiled_shapes_and_mark_dynamic():
    def f(x):
        return x.cos() * 2

    compile_fn = torch.compile(f, backend="eager")
    compile_fn(torch.randn(3))
    compile_fn(torch.randn(4))  # a second entry, dynamic in dim 0 after the recompile
    z = torch.randn(6, 2)
    torch._dynamo.mark_dynamic(z, 0)
    compile_fn(z)
    marked = torch.randn(6, 2)
    torch._dynamo.mark_dynamic(marked, 0)
    also_marked = torch.randn(6, 2)
    torch._dynamo.mark_dynamic(also_marked, 1)
    assert len(guard_functions(f)) >= 2
    assert_same_verdicts(f, [
        {"x": torch.randn(3)}, {"x": torch.randn(4)}, {"x": torch.randn(11)}, {"x": torch.randn(1)},
        {"x": marked}, {"x": also_marked}, {"x": torch.randn(6, 2)}, {"x": torch.randn(6, 3)},
    ])


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3, 4)
        self.scale = 2.0
        self.register_buffer("shift", torch.zeros(4))

    def forward(self, x):
        y = self.fc(x) * self.scale + self.shift
        if self.training:
            y = y + 1
        return y


@contextlib.contextmanager
def attribute(obj, name, value):
    saved = getattr(obj, name)
    setattr(obj, name, value)
    try:
        yield
    finally:
        setattr(obj, name, saved)


def test_module_attributes():
    net, x = Net(), torch.randn(2, 3)
    compile_and_run(net, x)
    other = Net()
    hook = contextlib.ExitStack()
    assert_same_verdicts(net, [
        {"self": net, "x": x},
        {"self": other, "x": x},
        (attribute(net, "training", False), {"self": net, "x": x}),
        (attribute(net, "scale", 3.0), {"self": net, "x": x}),
        (attribute(net.fc, "weight", torch.nn.Parameter(torch.randn(4, 3))), {"self": net, "x": x}),
        (attribute(net.fc, "weight", torch.nn.Parameter(torch.randn(5, 3))), {"self": net, "x": x}),
        (attribute(net.fc, "bias", None), {"self": net, "x": x}),
        (attribute(net, "shift", torch.zeros(4, dtype=torch.float64)), {"self": net, "x": x}),
        (_forward_hook(net.fc), {"self": net, "x": x}),
        (torch.no_grad(), {"self": net, "x": x}),
        {"self": torch.nn.Linear(3, 4), "x": x},
        {"self": net, "x": torch.randn(2, 4)},
    ])
    hook.close()


@contextlib.contextmanager
def _forward_hook(module):
    handle = module.register_forward_hook(lambda *args: None)
    try:
        yield
    finally:
        handle.remove()


def make_closure(k, t):
    def inner(x):
        return x * k + t

    return inner


def closure_caller(x, fn):
    return fn(x)


def test_closures_and_cells():
    x = torch.ones(3)
    fn = make_closure(3, torch.ones(3))
    compile_and_run(closure_caller, x, fn)
    assert_same_verdicts(closure_caller, [
        {"x": x, "fn": fn},
        {"x": x, "fn": make_closure(3, torch.ones(3))},
        {"x": x, "fn": make_closure(4, torch.ones(3))},
        {"x": x, "fn": make_closure(3.0, torch.ones(3))},
        {"x": x, "fn": make_closure(3, torch.ones(4))},
        {"x": x, "fn": make_closure(3, x)},
        {"x": x, "fn": lambda x: x},
        {"x": x, "fn": None},
    ])


def containers_fn(d, lst, od):
    return d["a"] * len(d) + lst[0] + lst[1] * 2 + od["k"]


def test_dicts_and_lists_of_tensors():
    d = {"a": torch.ones(2), "b": 1}
    lst = [torch.ones(2), torch.zeros(2)]
    od = collections.OrderedDict(k=torch.ones(2))
    compile_and_run(containers_fn, d, lst, od)
    same = {"d": d, "lst": lst, "od": od}
    assert_same_verdicts(containers_fn, [
        same,
        dict(same, d={"a": torch.ones(2), "b": 1}),
        dict(same, d={"b": 1, "a": torch.ones(2)}),
        dict(same, d={"a": torch.ones(2), "b": 1, "c": 2}),
        dict(same, d={"a": torch.ones(3), "b": 1}),
        dict(same, d={"a": torch.ones(2)}),
        dict(same, d=collections.OrderedDict(a=torch.ones(2), b=1)),
        dict(same, lst=[torch.ones(2)]),
        dict(same, lst=[torch.ones(2), torch.zeros(2), torch.zeros(2)]),
        dict(same, lst=(torch.ones(2), torch.zeros(2))),
        dict(same, lst=[torch.ones(2), torch.zeros(2, dtype=torch.int32)]),
        dict(same, lst=[lst[0], lst[0]]),
        dict(same, od={"k": torch.ones(2)}),
        dict(same, od=collections.OrderedDict(k=torch.ones(2, 2))),
    ])


def test_global_state():
    def f(x):
        return x + 1

    x = torch.ones(2)
    compile_and_run(f, x)

    class Mode(torch.overrides.TorchFunctionMode):
        pass

    @contextlib.contextmanager
    def setting(get, set_, value):
        saved = get()
        set_(value)
        try:
            yield
        finally:
            set_(saved)

    L = {"x": x}
    assert_same_verdicts(f, [
        L,
        (torch.no_grad(), L),
        (torch.enable_grad(), L),
        (setting(torch.are_deterministic_algorithms_enabled, torch.use_deterministic_algorithms, True), L),
        (setting(torch.get_default_dtype, torch.set_default_dtype, torch.float64), L),
        (setting(torch.get_num_threads, torch.set_num_threads, torch.get_num_threads() + 1), L),
        (setting(lambda: torch._C._get_fp32_precision_getter("cuda", "matmul"),
                 lambda p: torch._C._set_fp32_precision_setter("cuda", "matmul", p), "tf32"), L),
        (torch.autocast("cpu"), L),
        (torch.autocast("cpu", dtype=torch.float16), L),
        (Mode(), L),
        (torch._C.DisableTorchFunctionSubclass(), L),
        (torch.device("cpu"), L),
        (torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t), L),
    ])


def test_global_state_reader_matches_torch():
    """global_state() and autocast_state() read what torch's GlobalStateGuard records."""
    import json

    namespace = {}
    exec(PRELUDE, namespace)

    def both():
        torch_state = json.loads(torch._C._dynamo.guards.GlobalStateGuard().__getstate__())
        ours = namespace["global_state"]()
        # (each release records its own set of settings; ours reads every one)
        for key, value in torch_state.items():
            if key == "default_dtype":
                assert value == {torch.float32: 6, torch.float64: 7}[ours[key]]
            elif key == "cuda_matmul_precision":
                assert FP32_PRECISIONS[value] == ours[key]
            elif key != "autocast_state":
                assert value == ours[key], key
        devices, cache = namespace["autocast_state"]()
        assert torch_state["autocast_state"]["enabled"] == [e for e, _ in devices.values()]
        assert torch_state["autocast_state"]["cached_enabled"] == cache

    both()
    with torch.no_grad(), torch.autocast("cpu"):
        both()
    torch.set_default_dtype(torch.float64)
    try:
        both()
    finally:
        torch.set_default_dtype(torch.float32)
    # (torch 2.9 keeps one flag; later ones a flag and whether split-k may reduce)
    saved = torch._C._get_cublas_allow_fp16_reduced_precision_reduction()
    flags = (saved,) if isinstance(saved, bool) else tuple(saved)
    torch._C._set_cublas_allow_fp16_reduced_precision_reduction(False, *flags[1:])
    try:
        both()
    finally:
        torch._C._set_cublas_allow_fp16_reduced_precision_reduction(*flags)


def iterators_fn(x, it, r, v, tags):
    a = next(it)
    b = next(r)
    if "fast" in tags:
        x = x + 1
    return x * a + b + v


# A NaN of the sign bit set (x86's default NaN); torch 2.15's NaN guards tell it apart
NEGATIVE_NAN = -float("nan")
# (on 2.15 those guards are not translated: test_nan_guards_of_recorded_bits)
NAN = 2.5 if nan_guards_keep_their_value() else float("nan")


def test_iterators_nan_and_sets():
    x = torch.ones(2)
    base = {"x": x, "it": iter((2, 3)), "r": iter(range(1, 5)), "v": NAN, "tags": {"fast", "slow"}}
    compile_and_run(iterators_fn, *base.values())

    def fresh(**changes):
        values = {"x": x, "it": iter((2, 3)), "r": iter(range(1, 5)), "v": NAN, "tags": {"fast", "slow"}}
        values.update(changes)
        return values

    advanced = iter((2, 3))
    next(advanced)
    assert_same_verdicts(iterators_fn, [
        fresh(), fresh(it=iter((2, 3, 4))), fresh(it=advanced), fresh(it=iter((5, 3))),
        fresh(it=iter([2, 3])), fresh(r=iter(range(1, 6))), fresh(r=iter(range(2, 5))), fresh(v=1.0),
        fresh(v=float("inf")), fresh(v=NEGATIVE_NAN), fresh(tags={"slow"}),
        fresh(tags=frozenset({"fast", "slow"})),
    ])


@pytest.mark.skipif(not nan_guards_keep_their_value(), reason="this torch's NaN guards pass any NaN")
def test_nan_guards_of_recorded_bits():
    """torch 2.15 fails a NaN of other bits (-nan against nan), comparing with a value
    only its C++ guard holds: the guard is written as one that raises, naming it."""
    compile_and_run(iterators_fn, torch.ones(2), iter((2, 3)), iter(range(1, 5)), float("nan"), set())
    entry = _debug_get_cache_entry_list(iterators_fn.__code__)[0]
    assert entry.guard_manager.check({"x": torch.ones(2), "it": iter((2, 3)), "r": iter(range(1, 5)),
                                      "v": NEGATIVE_NAN, "tags": set()}) is False
    rendered = render_guards(entry.guard_manager, "guard_0")
    assert "not_translated('FLOAT_IS_NAN'" in rendered.source, rendered.source


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y


def objects_fn(p, t):
    if isinstance(p, Point):
        return t * p.x + p.y
    return t


def test_user_objects():
    t = torch.ones(2)
    compile_and_run(objects_fn, Point(2, 3), t)

    class Other:
        def __init__(self):
            self.x, self.y = 2, 3

    no_y = Point(2, 3)
    del no_y.y
    assert_same_verdicts(objects_fn, [
        {"p": Point(2, 3), "t": t}, {"p": Point(2, 4), "t": t}, {"p": Point(2.0, 3), "t": t},
        {"p": Other(), "t": t}, {"p": no_y, "t": t}, {"p": None, "t": t},
    ])


class Color(enum.Enum):
    RED = 1
    BLUE = 2


@dataclasses.dataclass
class Pair:
    a: int
    b: object


Named = collections.namedtuple("Named", "a b")


class Counter:
    step = 3

    def scaled(self, x):
        return x * self.step


def make_callee(k):
    def callee(x, k=k):
        return x * k

    return callee


def flag_fn(x, on):
    return x * 2 if not on else x


def enum_fn(x, c):
    return x + 1 if c is Color.RED else x


def dataclass_fn(x, p):
    return x * p.a + p.b


def namedtuple_fn(x, n):
    return x * n.a + n.b


def defaults_fn(x, f):
    return f(x)


def class_attr_fn(x, o):
    return o.scaled(x) + type(o).step


def set_fn(x, s):
    return x + 1 if 3 in s else x


def mapping_fn(x, m):
    return x * len(m) + m["a"]


def dict_iter_fn(x, d):
    x = x * 2
    for value in d.values():
        x = x + value
    return x


def module_list_fn(x, layers):
    for layer in layers:
        x = layer(x)
    return x


def alias_fn(a, b):
    return a + b


def storage_fn(x):
    return x.sum(0)


Two = type("Two", (dict,), {})
_LINEAR = torch.nn.Linear(2, 2)
_SHARED = torch.ones(2)
_LAYERS = torch.nn.ModuleList([torch.nn.Linear(3, 3), torch.nn.ReLU()])


def _no_y():
    p = Pair(2, 3)
    del p.b
    return p


# (function, recorded inputs, changes to try, torch.compile options)
VALUE_PROGRAMS = {
    "bool_false": (flag_fn, {"x": torch.ones(2), "on": False}, [{"on": True}, {"on": 0}, {"on": None}], {}),
    "enum": (enum_fn, {"x": torch.ones(2), "c": Color.RED}, [{"c": Color.BLUE}, {"c": 1}], {}),
    "dataclass": (dataclass_fn, {"x": torch.ones(2), "p": Pair(2, 3)},
                  [{"p": Pair(3, 3)}, {"p": Pair(2, 3.0)}, {"p": Named(2, 3)}, {"p": _no_y()}], {}),
    "namedtuple": (namedtuple_fn, {"x": torch.ones(2), "n": Named(2, 3)},
                   [{"n": Named(2, 4)}, {"n": (2, 3)}, {"n": Pair(2, 3)}], {}),
    "defaults": (defaults_fn, {"x": torch.ones(2), "f": make_callee(5)},
                 [{"f": make_callee(5)}, {"f": make_callee(6)}, {"f": make_callee(5.0)}, {"f": len}], {}),
    "class_attribute": (class_attr_fn, {"x": torch.ones(2), "o": Counter()},
                        [{"o": type("Sub", (Counter,), {"step": 4})()}, {"o": object()}], {}),
    "set": (set_fn, {"x": torch.ones(2), "s": {1, 2, 3}},
            [{"s": {1, 2}}, {"s": frozenset({1, 2, 3})}, {"s": {1, 2, 3, 4}}, {"s": [1, 2, 3]}], {}),
    "mappingproxy": (mapping_fn, {"x": torch.ones(2), "m": types.MappingProxyType({"a": 1})},
                     [{"m": types.MappingProxyType({"a": 2})}, {"m": types.MappingProxyType({"a": 1, "b": 2})},
                      {"m": {"a": 1}}], {}),
    "dict_iteration": (dict_iter_fn, {"x": torch.ones(2), "d": {"a": torch.ones(2), "b": 2}},
                       [{"d": {"a": torch.ones(2), "b": 3}}, {"d": {"b": 2, "a": torch.ones(2)}},
                        {"d": {"a": torch.ones(2), "b": 2, "c": 1}}, {"d": {}}, {"d": Two(a=torch.ones(2), b=2)},
                        {"d": collections.OrderedDict(a=torch.ones(2), b=2)}, {"d": {"a": torch.ones(3), "b": 2}}], {}),
    "empty_dict_iteration": (dict_iter_fn, {"x": torch.ones(2), "d": {}}, [{"d": {"a": 1}}, {"d": Two()}], {}),
    "dict_subclass_iteration": (dict_iter_fn, {"x": torch.ones(2), "d": Two(a=1)},
                                [{"d": {"a": 1}}, {"d": Two(a=2)}, {"d": Two(b=1)}], {}),
    "object_keys": (dict_iter_fn, {"x": torch.ones(2), "d": {_LINEAR: 1}},
                    [{"d": {torch.nn.Linear(2, 2): 1}}, {"d": {_LINEAR: 2}}], {}),
    "module_list": (module_list_fn, {"x": torch.ones(2, 3), "layers": _LAYERS},
                    [{"layers": torch.nn.ModuleList([torch.nn.Linear(3, 3), torch.nn.ReLU()])},
                     {"layers": torch.nn.ModuleList([torch.nn.Linear(3, 3)])},
                     {"layers": torch.nn.ModuleList([torch.nn.Linear(3, 3), torch.nn.ReLU(inplace=True)])}], {}),
    "aliased_inputs": (alias_fn, {"a": _SHARED, "b": _SHARED}, [{"b": torch.ones(2)}, {"a": torch.ones(2)}], {}),
    "dynamic_int": (alias_fn, {"a": torch.ones(3), "b": 3},
                    [{"b": 5}, {"b": 1}, {"b": 0}, {"b": 5.0}, {"a": torch.ones(7)}], {"dynamic": True}),
    "dynamic_strides": (storage_fn, {"x": torch.ones(4, 6)[:, ::2]},
                        [{"x": torch.ones(5, 8)[:, ::2]}, {"x": torch.ones(5, 4)}, {"x": torch.ones(4, 6).t()},
                         {"x": torch.ones(10)[2:].view(2, 4)}], {"dynamic": True}),
}


@pytest.mark.parametrize("name", sorted(VALUE_PROGRAMS))
def test_python_values(name):
    fn, recorded, changes, options = VALUE_PROGRAMS[name]
    compile_and_run(fn, *recorded.values(), **options)
    assert_same_verdicts(fn, [recorded] + [dict(recorded, **change) for change in changes])


def test_cpp_shape_guards():
    """With torch's C++ shape guards the shape expressions come as SYMBOLIC_SHAPE_GUARD."""
    with torch._dynamo.config.patch(enable_cpp_symbolic_shape_guards=True):
        x, y = torch.randn(5, 4), torch.randn(4, 6)
        compile_and_run(dynamic_fn, x, y, dynamic=True)
    assert_same_verdicts(dynamic_fn, shape_variants(x, y))


class PassThrough(torch.overrides.TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


def test_compiled_under_torch_function_mode():
    def f(x):
        return x + 1

    x = torch.ones(2)
    with PassThrough():
        compile_and_run(f, x)
    assert_same_verdicts(f, [(PassThrough(), {"x": x}), {"x": x}, (PassThrough(), {"x": torch.ones(3)})])


def test_local_classes_compare_by_identity():
    def make():
        class Local(torch.Tensor):
            pass

        class Box:
            def __init__(self, v):
                self.v = v

        return Local, Box

    Local, Box = make()
    OtherLocal, OtherBox = make()

    def f(x, b):
        return x * b.v

    x = torch.ones(2).as_subclass(Local)
    compile_and_run(f, x, Box(2))
    assert_same_verdicts(f, [
        {"x": x, "b": Box(2)}, {"x": torch.ones(2).as_subclass(OtherLocal), "b": Box(2)},
        {"x": torch.ones(2), "b": Box(2)}, {"x": x, "b": OtherBox(2)}, {"x": x, "b": Box(3)},
    ])


def test_sources_are_readable():
    x, y = torch.randn(3, 4), torch.randn(2, 3)
    compile_and_run(tensors_fn, x, y)
    net = Net()
    compile_and_run(net, x[:, :3])
    for fn in (tensors_fn, net):
        for _, _, source in guard_functions(fn):
            compile(PRELUDE + source, "<guards>", "exec")
            for line in source.splitlines():
                # Object addresses only where torch compares identities (ID_MATCH).
                if re.search(r"\d{9,}", line):
                    assert re.search(r"id\(.*\) [!=]= \d+", line), line
            assert "___" not in source, source
    # Names as torch prints them, e.g. in recompile reasons.
    assert "L['self']._modules['fc']._parameters['weight']" in source, source


def test_untranslatable_guard_raises():
    """An unknown leaf kind must raise naming the kind, never pass."""
    from depyf.dynamo import guards

    renderer = guards.Renderer(_FakeRoot())
    renderer.run()
    code = guards.render_guards(_FakeRoot(), "g")
    namespace = {}
    exec(PRELUDE + code.source, namespace)
    with pytest.raises(namespace["GuardNotTranslated"], match="BRAND_NEW_GUARD"):
        namespace["g"]({}, {})


class _FakeLeaf:
    def verbose_code_parts(self):
        return ["something_new(L['x'])"]


_FakeLeaf.__name__ = "BRAND_NEW_GUARD"


class _FakeRoot:
    def get_leaf_guards(self):
        return [_FakeLeaf()]

    def get_accessors(self):
        return []

    def get_child_managers(self):
        return []

    def get_epilogue_lambda_guards(self):
        return []


class _FakeManager:
    def __init__(self, cls):
        self.cls = cls

    def get_type_of_guarded_value(self):
        return self.cls


# Texts about a value V, some of them Python, with V glued to names, in strings, etc.
_STAND_IN_TOKENS = ["V", "V", "V", "V.y", "V[0]", "xV", "V_", "'V'", "V'", "not", "and", "or", "is", "in", "==",
                    "!=", "None", "True", "False", "(", ")", "[", "]", ",", "'s'", "1", "0.5", "___dict_contains",
                    "hasattr", "f", "L", "G['g']", "inf", "'", "'a  b'", "'a==b'", "\"d\"", "=", "-", "%", ".", "if", "else", "Vif", "'V'"]
_STAND_IN_SHAPES = {
    "DICT_CONTAINS": "{}", "NO_HASATTR": "{}", "DIMENSION_DYNAMIC_MARKING_GUARD": "{}", "LAMBDA_GUARD": "{}",
    "MAPPING_KEYS_MATCH": "{}", "ID_MATCH": "___check_obj_id({}, 140185114770976)",
    "TYPE_MATCH": f"___check_type_id({{}}, {id(dict)})", "LENGTH_CHECK": "len({}) == 2", "DICT_LENGTH": "not {}",
    "SET_CONTAINS": "set.__contains__(V, {})", "DICT_VERSION": "___dict_version({}) == 7",
    "TENSOR_MATCH": "check_tensor({}, Tensor, DispatchKeySet(CPU, BackendSelect), torch.float32, device=None, "
                    "requires_grad=False, size=[2], stride=[1])",
    "NONE_MATCH": "{} is None", "EQUALS_MATCH": "{} == 2", "FLOAT_IS_NAN": "{}", "DISPATCH_KEY_SET_MATCH": "{}",
}
_STAND_IN_VALUES = ["L['x']", "G['torch'].abs", "L['a']._modules['0']", "L['x'][0]", "L['a.b'].c", "L['or']",
                    "G['m'].x"]


def test_leaf_guards_on_a_stand_in_read_as_on_the_value():
    """A leaf guard translated about the stand-in value, its name put back, is the guard
    translated about the value itself (or the stand-in is not used)."""
    import random

    from depyf.dynamo import guards

    rng = random.Random(3)
    renderer = guards.Renderer(_FakeRoot())
    # (a name going on past the value, a value in a string: Python that the stand-in changes)
    cases = [("LAMBDA_GUARD", "G['torch'].abs", "G['torch'].absif 1 else 2"), ("LAMBDA_GUARD", "L['or']", "' L['or'] '")]
    for _ in range(6000):
        kind = rng.choice(sorted(_STAND_IN_SHAPES))
        tokens = [rng.choice(_STAND_IN_TOKENS) for _ in range(rng.randint(1, 6))]
        inner = rng.choice(["V", rng.choice([" ", ""]).join(tokens)])
        cases.append((kind, rng.choice(_STAND_IN_VALUES), _STAND_IN_SHAPES[kind].format(inner)))
    compared = 0
    for kind, value, text in cases:
        text = text.replace("V", value)
        cls = {"TENSOR_MATCH": torch.Tensor, "EQUALS_MATCH": int}.get(kind, dict)
        node = guards.Node(_FakeManager(cls), value, value)
        shared = guards.stand_in_parts((text,), node)
        if shared is None:
            continue
        try:
            checks = renderer._checks(kind, shared, guards.about_stand_in(node), None)
        except Exception:  # noqa: BLE001 - then the value's own translation is used
            continue
        via = [(c.kind, c.expr, c.negated, c.line) for c in (check.about(value) for check in checks)]
        own = [(c.kind, c.expr, c.negated, c.line) for c in renderer._translate(kind, (text,), node, None)]
        assert via == own, text
        compared += 1
    assert compared > 1500, compared


def test_every_torch_leaf_guard_kind_is_known():
    """Each leaf-guard class torch defines is translated or deliberately refused."""
    refused = set()
    classes = {
        name for name, value in vars(torch._C._dynamo.guards).items()
        if isinstance(value, type) and issubclass(value, torch._C._dynamo.guards.LeafGuard)
        and name not in ("LeafGuard", "RelationalGuard")
    }
    assert classes <= TRANSLATED_KINDS | refused, classes - TRANSLATED_KINDS - refused


def test_zz_kinds_seen_are_all_exercised():
    if not _seen:
        pytest.skip("run with the program tests")
    assert _seen == KINDS_SEEN, f"listed but not produced: {KINDS_SEEN - _seen}"


# ---- guard kinds the programs above do not produce, on trees built like torch builds them ----
#
# The texts follow torch's own format for each guard (see torch/_dynamo/guards.py); the
# verdicts come from torch's C++ guards, so the translation is tested, not the text.

from torch._C._dynamo import guards as cguards  # noqa: E402
from torch._dynamo.guards import GuardManagerType  # noqa: E402

PLAIN = GuardManagerType.GUARD_MANAGER
# The trees below are built with the builders of torch 2.13+, which take each
# guard's user stack last; torch 2.9's take none (the translation is the same).
synthetic = pytest.mark.skipif("arg2" not in (cguards.GuardManager.add_type_match_guard.__doc__ or ""),
                               reason="this torch's guard builders take no user stack")


def local(root, name, value, index=0):
    return root.framelocals_manager(key=(name, index), source=f"L[{name!r}]", example_value=value,
                                    guard_manager_enum=PLAIN)


def check_tree(root, variants, some_pass=True, G=None):
    rendered = render_guards(root, "synthetic")
    assert "not_translated(" not in rendered.source, rendered.source
    namespace = {}
    exec(PRELUDE + rendered.source, namespace)
    verdicts = []
    for L in variants:
        expected = root.check(L)
        got = namespace["synthetic"](L, G if G is not None else {})
        assert got == expected, f"depyf says {got}, torch says {expected} for {L!r}\n{rendered.source}"
        verdicts.append(got)
    assert not all(verdicts), verdicts
    assert any(verdicts) or not some_pass, verdicts
    return rendered


@synthetic
def test_synthetic_dict_version_not_none_and_nan():
    root = cguards.RootGuardManager()
    d = {"a": 1}
    local(root, "d", d).add_dict_version_guard(d, [f"___dict_version(L['d']) == {cguards.dict_version(d)}"], None)
    local(root, "t", torch.ones(1), 1).add_not_none_guard(["L['t'] is not None"], None)
    if not nan_guards_keep_their_value():       # (2.15's are not translated)
        local(root, "c", complex("nan+1j"), 2).add_complex_is_nan_guard(
            ["(type(L['c']) is complex and __numpy_isnan(L['c']))"], None)
    local(root, "o", object(), 3).add_no_hasattr_guard("zz", ["not hasattr(L['o'], 'zz')"], None)
    good = {"d": d, "t": 1, "c": complex("nan+1j"), "o": object()}
    changed = dict(d)
    check_tree(root, [good, dict(good, d=changed), dict(good, t=None), dict(good, c=1j),
                      dict(good, c=complex(1, float("nan"))), dict(good, o=types.SimpleNamespace(zz=1))])
    d["b"] = 2  # a new dict version: the recorded dict no longer passes
    check_tree(root, [good, dict(good, d={"a": 1})], some_pass=False)


@synthetic
def test_synthetic_storage_overlap_and_object_aliasing():
    root = cguards.RootGuardManager()
    base = torch.zeros(8)
    names = ["a", "b", "c"]
    managers = [local(root, n, base, i) for i, n in enumerate(names)]
    text = "check_overlapping(overlapping=[L['a'], L['b']], non_overlapping=[L['c']])"
    cguards.install_storage_overlapping_guard(managers[:2], managers[2:], [text], None)
    other = cguards.RootGuardManager()
    x, y = local(other, "x", base), local(other, "y", base, 1)
    cguards.install_object_aliasing_guard(x, y, ["L['y'] is L['x']"], None)
    check_tree(root, [
        {"a": base[0:4], "b": base[2:6], "c": base[6:8]},
        {"a": base[0:2], "b": base[2:6], "c": base[6:8]},
        {"a": base[0:4], "b": base[2:6], "c": base[5:7]},
        {"a": base[0:4], "b": base[2:6], "c": torch.zeros(2)},
    ])
    check_tree(other, [{"x": base, "y": base}, {"x": base, "y": torch.zeros(8)}])


class Slotted:
    __slots__ = ("v",)

    def __init__(self, v):
        self.v = v


@synthetic
def test_synthetic_accessors():
    """Accessors the programs above do not reach: weakrefs, type dicts, tensor properties..."""
    import weakref

    root = cguards.RootGuardManager()
    holder = Counter()
    ref = weakref.ref(holder)
    r = local(root, "r", ref)
    target = r.weakref_call_manager(source="L['r']()", example_value=holder, guard_manager_enum=PLAIN)
    target.add_type_match_guard(id(Counter), [f"___check_type_id(L['r'](), {id(Counter)})"], None)
    cls = target.type_manager(source="type(L['r']())", example_value=Counter, guard_manager_enum=PLAIN)
    cls_dict = cls.type_dict_manager(source="type(L['r']()).__dict__", example_value=Counter.__dict__,
                                     guard_manager_enum=PLAIN)
    cls_dict.add_dict_contains_guard(True, "step", ["___dict_contains('step', type(L['r']()).__dict__)"], None)
    mro = cls.type_mro_manager(source="type(L['r']()).__mro__", example_value=Counter.__mro__,
                               guard_manager_enum=PLAIN)
    mro.add_length_check_guard(2, ["len(type(L['r']()).__mro__) == 2"], None)
    t = local(root, "t", torch.ones(3, 2), 1)
    size = t.tensor_property_size_manager(1, source="L['t'].size()[1]", example_value=2,
                                          guard_manager_enum=PLAIN)
    size.add_equals_match_guard(2, ["L['t'].size()[1] == 2"], None)
    offset = t.tensor_property_storage_offset_manager(None, source="L['t'].storage_offset()", example_value=0,
                                                      guard_manager_enum=PLAIN)
    offset.add_equals_match_guard(0, ["L['t'].storage_offset() == 0"], None)
    s = local(root, "s", Slotted(1), 2)
    v = s.generic_getattr_manager(attr="v", source="L['s'].v", example_value=1, guard_manager_enum=PLAIN)
    v.add_equals_match_guard(1, ["L['s'].v == 1"], None)
    it = local(root, "it", iter(range(2, 9, 3)), 3)
    it.add_range_iterator_match_guard(2, 11, 3, id(type(iter(range(0)))),
                                      ["___normalize_range_iter(L['it']) == (2, 11, 3)"], None)
    f = local(root, "f", make_callee(1), 4)
    kw = f.func_defaults_manager(source="L['f'].__defaults__", example_value=(1,), guard_manager_enum=PLAIN)
    kw.add_length_check_guard(1, ["len(L['f'].__defaults__) == 1"], None)

    def good():
        return {"r": ref, "t": torch.ones(3, 2), "s": Slotted(1), "it": iter(range(2, 9, 3)), "f": make_callee(1)}

    advanced = iter(range(2, 9, 3))
    next(advanced)
    sub = type("Sub", (Counter,), {})()
    check_tree(root, [
        good(), dict(good(), r=weakref.ref(sub)), dict(good(), r=holder), dict(good(), t=torch.ones(3, 3)),
        dict(good(), t=torch.ones(4, 2)[1:]), dict(good(), t=torch.ones(3)), dict(good(), s=Slotted(2)),
        dict(good(), it=advanced), dict(good(), it=iter(range(2, 12, 3))), dict(good(), f=len),
        dict(good(), f=lambda x: x),
    ])
    del holder  # a dead weakref reads as None, which fails the type check
    check_tree(root, [good(), dict(good(), s=Slotted(2))], some_pass=False)


_WEAK_TARGET = Counter()
SYNTHETIC_GLOBALS = {"w": __import__("weakref").ref(_WEAK_TARGET)}


@synthetic
def test_synthetic_more_accessors_and_global_guards():
    root = cguards.RootGuardManager()
    g = root.globals_dict_manager(f_globals=SYNTHETIC_GLOBALS, source="G", example_value=SYNTHETIC_GLOBALS,
                                  guard_manager_enum=PLAIN)
    target = g.global_weakref_manager(global_name="w", source="G['w']()", example_value=_WEAK_TARGET,
                                      guard_manager_enum=PLAIN)
    target.add_type_match_guard(id(Counter), [f"___check_type_id(G['w'](), {id(Counter)})"], None)
    f = local(root, "f", make_callee(1))
    kw = f.func_kwdefaults_manager(source="L['f'].__kwdefaults__", example_value={"j": 3}, guard_manager_enum=PLAIN)
    kw.add_dict_length_check_guard(1, ["len(L['f'].__kwdefaults__) == 1"], None)
    c = local(root, "c", lambda: 4, 1).call_function_no_args_manager(source="L['c']()", example_value=4,
                                                                     guard_manager_enum=PLAIN)
    c.add_equals_match_guard(4, ["L['c']() == 4"], None)
    s = local(root, "s", {7}, 2).set_getitem_manager(index=0, source="list(L['s'])[0]", example_value=7,
                                                     guard_manager_enum=PLAIN)
    s.add_equals_match_guard(7, ["list(L['s'])[0] == 7"], None)
    m = local(root, "m", {"a": 1}, 3).getitem_manager(key="a", source="L['m']['a']", example_value=1,
                                                      guard_manager_enum=PLAIN)
    m.add_equals_match_guard(1, ["L['m']['a'] == 1"], None)
    t = local(root, "t", torch.ones(2), 4)
    t.grad_manager(source="L['t'].grad", example_value=None, guard_manager_enum=PLAIN).add_none_match_guard(
        ["L['t'].grad is None"], None)
    item = t.lambda_manager(python_lambda=lambda x: x.sum().item(), source="L['t'].sum().item()",
                            example_value=2.0, guard_manager_enum=PLAIN)
    item.add_equals_match_guard(2.0, ["L['t'].sum().item() == 2.0"], None)
    keys = torch._C._dispatch_keys(torch.ones(1))
    local(root, "k", keys, 5).add_dispatch_key_set_guard(keys, [f"L['k'].raw_repr() == {keys!r}.raw_repr()"], None)
    root.add_dual_level_match_guard(-1, ["torch.autograd.forward_ad._current_level == -1"], None)

    def kwonly(x, *, j=3):
        return x

    def good():
        return {"f": kwonly, "c": lambda: 4, "s": {7}, "m": {"a": 1}, "t": torch.ones(2), "k": keys}

    with_grad = torch.ones(2, requires_grad=True)
    with_grad.grad = torch.ones(2)
    rendered = check_tree(root, [
        good(), dict(good(), f=make_callee(1)), dict(good(), c=lambda: 5), dict(good(), c=4),
        dict(good(), s={8}), dict(good(), s={7, 8}), dict(good(), m={"a": 2}), dict(good(), m={}),
        dict(good(), t=torch.zeros(2)), dict(good(), t=with_grad),
        dict(good(), k=torch._C._dispatch_keys(torch.ones(1, requires_grad=True).to_sparse())),
        dict(good(), k=torch._C._dispatch_keys(torch.ones(1, dtype=torch.int8))),
    ], G=SYNTHETIC_GLOBALS)
    assert "weakref_target(G['w'])" in rendered.source, rendered.source
    with torch.autograd.forward_ad.dual_level():
        namespace = {}
        exec(PRELUDE + rendered.source, namespace)
        assert root.check(good()) is False
        assert namespace["synthetic"](good(), SYNTHETIC_GLOBALS) is False
