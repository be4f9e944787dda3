# Helpers used by the guard functions that depyf writes for torch.compile.
#
# Each guard function is `def guard_NAME(L, G)`: L is the frame's locals dict,
# G its globals dict.  It returns True exactly when torch's C++ guard manager
# accepts the frame, so the cached compiled code may run.  The helpers below
# spell out what each C++ guard checks, in plain Python.
import collections
import gc
import importlib
import itertools
import math
import types
import weakref

import torch


class GuardNotTranslated(Exception):
    """Raised by a guard that depyf could not write as Python (never passes silently)."""


def not_translated(kind, text):
    raise GuardNotTranslated(f"depyf cannot check guard {kind} in Python: {text}")


def find_class(module, qualname):
    """The class `qualname` of `module`, e.g. find_class('collections', 'OrderedDict')."""
    obj = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def check_equals(value, expected):
    """EQUALS_MATCH: the same type (exactly) and an equal value."""
    return value is expected or (type(value) is type(expected) and value == expected)


# ---- tensors -----------------------------------------------------------------

def dispatch_key_set(*names):
    """A DispatchKeySet built from key names, e.g. dispatch_key_set('CPU', 'AutogradCPU')."""
    keys = torch._C.DispatchKeySet(torch._C.DispatchKey.Undefined)
    for name in names:
        keys = keys | torch._C.DispatchKeySet(getattr(torch._C.DispatchKey, name))
    return keys


def with_local_dispatch_keys(keys):
    """Dispatch keys as the dispatcher sees them now: thread-local includes added, excludes removed."""
    return (keys | torch._C._dispatch_tls_local_include_set()) - torch._C._dispatch_tls_local_exclude_set()


_NO_STRIDE_LAYOUTS = (torch.sparse_coo, torch.sparse_csr, torch.sparse_csc, torch.sparse_bsr, torch.sparse_bsc)


def check_tensor(t, pytype, dtype, device_index, requires_grad, size, stride, dispatch_keys):
    """TENSOR_MATCH: exact Python type, dtype, device index, requires_grad, dispatch keys (which
    carry the device type and layout), rank, and every size and stride that is not None (None
    marks a dynamic dimension, checked by the shape guards instead).  `pytype` is the class,
    or its id() for a class defined inside a function."""
    if (type(t) is not pytype) if isinstance(pytype, type) else (id(type(t)) != pytype):
        return False
    actual_keys = with_local_dispatch_keys(torch._C._dispatch_keys(t))
    if actual_keys.raw_repr() != dispatch_keys.raw_repr():
        return False
    if t.dtype != dtype or t.device.index != device_index or t.requires_grad != requires_grad:
        return False
    if t.dim() != len(size):
        return False
    actual_size = t.size()
    actual_stride = [-1] * t.dim() if t.layout in _NO_STRIDE_LAYOUTS else t.stride()
    for i in range(t.dim()):
        if size[i] is not None and size[i] != actual_size[i]:
            return False
        if stride[i] is not None and stride[i] != actual_stride[i]:
            return False
    return True


def check_overlapping(overlapping, non_overlapping):
    """STORAGE_OVERLAPPING: exactly the first group may share memory (with some other input);
    torch's own overlap test decides what may overlap."""
    tensors = list(overlapping) + list(non_overlapping)
    may_overlap = torch._C._dynamo.guards.compute_overlapping_tensors(tensors, symbolic=False)
    return may_overlap == set(range(len(overlapping)))


def no_aliasing(*tensors):
    """NO_TENSOR_ALIASING: no two of these are the same object."""
    return len({id(t) for t in tensors}) == len(tensors)


# ---- containers and iterators ------------------------------------------------

def dict_contains_key(key, d):
    """DICT_CONTAINS: `d` is a dict holding `key` (dict's own lookup, no overridden __contains__)."""
    return isinstance(d, dict) and dict.__contains__(d, key)


def set_contains(s, item):
    """SET_CONTAINS: `s` is a set or frozenset holding `item`."""
    if isinstance(s, set):
        return set.__contains__(s, item)
    return isinstance(s, frozenset) and frozenset.__contains__(s, item)


def dict_key_at(d, index):
    """The index-th key in a dict's own order (no overridden keys())."""
    return list(dict.keys(d))[index]


def dict_value_at(d, index):
    """The index-th value in a dict's own order (no overridden values())."""
    return list(dict.values(d))[index]


def dict_version(d):
    """The version tag CPython keeps per dict; only torch can read it."""
    return torch._C._dynamo.guards.dict_version(d)


def type_dict(cls):
    """The dict behind cls.__dict__ (the mappingproxy wraps exactly one dict)."""
    (namespace,) = [r for r in gc.get_referents(cls.__dict__) if isinstance(r, dict)]
    return namespace


def odict_getitem(d, key):
    return collections.OrderedDict.__getitem__(d, key)


def tuple_iterator_len(it):
    """How many items a tuple iterator has left."""
    return it.__length_hint__()


def tuple_iterator_getitem(it, index):
    """The item `index` places ahead of a tuple iterator, without advancing it."""
    _, (items,), start = it.__reduce__()
    return items[start + index]


def normalize_range_iter(it):
    """(start, stop, step) of what a range iterator has left."""
    _, (r,), done = it.__reduce__()
    return (r.start + (done or 0) * r.step, r.stop, r.step)


def normalize_count_iter(it):
    """(start, step) of an itertools.count."""
    _, args = it.__reduce__()
    return (args[0], args[1] if len(args) > 1 else 1)


def dataclass_fields(obj):
    import dataclasses

    return dataclasses.fields(obj)


def namedtuple_fields(cls):
    return cls._fields


def weakref_target(ref):
    """What a weakref points to (None once dead); fails on anything that is not a weakref."""
    if not isinstance(ref, weakref.ReferenceType):
        raise TypeError("not a weakref")
    return ref()


def unwrap_method(f):
    """The function behind a bound method, as torch's accessors of __code__, __closure__, ... do."""
    return f.__func__ if isinstance(f, types.MethodType) else f


def function_defaults(f):
    defaults = unwrap_method(f).__defaults__
    if defaults is None:
        raise AttributeError("no __defaults__")
    return defaults


def function_kwdefaults(f):
    defaults = unwrap_method(f).__kwdefaults__
    if defaults is None:
        raise AttributeError("no __kwdefaults__")
    return defaults


def tensor_grad(t):
    if not isinstance(t, torch.Tensor):
        raise TypeError("not a tensor")
    return t.grad


def key_to_id(keys):
    """Dict keys as torch compares them: tensors, modules and method-wrappers by id."""
    by_id = (torch.Tensor, torch.nn.Module, types.MethodWrapperType)
    return [id(k) if isinstance(k, by_id) else k for k in keys]


def has_type_id(obj, type_id):
    return id(type(obj)) == type_id


def has_id(obj, obj_id):
    return id(obj) == obj_id


# ---- global state ------------------------------------------------------------

# Devices in the order torch keeps autocast state (ATen's _AUTOCAST_SUPPORTED_DEVICES).
AUTOCAST_DEVICES = ("cpu", "cuda", "mtia", "maia", "xpu", "ipu", "hpu", "xla", "privateuseone", "mps")


def autocast_state():
    """{device: (enabled, dtype)} for every autocast device, plus the cache flag."""
    devices = {d: (torch.is_autocast_enabled(d), torch.get_autocast_dtype(d)) for d in AUTOCAST_DEVICES}
    return devices, torch.is_autocast_cache_enabled()


def autocast_state_matches(expected_devices, expected_cache_enabled):
    """Autocast guard: a device whose autocast is off now and was off then matches whatever its dtype."""
    devices, cache_enabled = autocast_state()
    for device, (enabled, dtype) in devices.items():
        expected_enabled, expected_dtype = expected_devices.get(device, (False, None))
        if not enabled and not expected_enabled:
            continue
        if enabled != expected_enabled or dtype != expected_dtype:
            return False
    return cache_enabled == expected_cache_enabled


def cublas_reduction_option(setting):
    """A cuBLAS reduced-precision reduction setting as torch's GLOBAL_STATE records
    it: torch 2.9 reads and records a flag; later ones read (allow reduced
    precision, allow split-k) and record 0, 1 or 2."""
    if isinstance(setting, bool):
        return setting
    allow_reduced_precision, allow_splitk = setting
    if allow_reduced_precision:
        return 0
    return 1 if allow_splitk else 2


def cuda_matmul_allows_tf32():
    return torch._C._get_fp32_precision_getter("cuda", "matmul") == "tf32"


def cuda_matmul_precision():
    return torch._C._get_fp32_precision_getter("cuda", "matmul")


def cublas_fp16_reduction():
    return cublas_reduction_option(torch._C._get_cublas_allow_fp16_reduced_precision_reduction())


def cublas_bf16_reduction():
    return cublas_reduction_option(torch._C._get_cublas_allow_bf16_reduced_precision_reduction())


def global_state():
    """The process-wide settings torch's GLOBAL_STATE guard compares, read through torch."""
    return {
        "grad_mode": torch.is_grad_enabled(),
        "torch_function": torch._C._is_torch_function_enabled(),
        "torch_function_all_disabled": torch._C._is_torch_function_all_disabled(),
        "deterministic_algorithms": torch.are_deterministic_algorithms_enabled(),
        "deterministic_algorithms_warn_only": torch.is_deterministic_algorithms_warn_only_enabled(),
        "allow_tf32": cuda_matmul_allows_tf32(),
        "allow_fp16_reduce": cublas_fp16_reduction(),
        "allow_bf16_reduce": cublas_bf16_reduction(),
        "cuda_matmul_precision": cuda_matmul_precision(),
        "num_threads": torch.get_num_threads(),
        "default_dtype": torch.get_default_dtype(),
    }


def torch_function_mode_types():
    """Types of the modes on the torch function mode stack, innermost last."""
    return [type(torch._C._get_function_stack_at(i)) for i in range(torch._C._len_torch_function_stack())]


def torch_function_mode_at(index):
    return torch._C._get_function_stack_at(index)


def saved_tensors_hooks_ids():
    """Ids of the innermost inlineable saved-tensors hooks pair, or None."""
    from torch._functorch._aot_autograd.utils import saved_tensors_hooks_are_inlineable, top_saved_tensors_hooks

    hooks = top_saved_tensors_hooks()
    if not saved_tensors_hooks_are_inlineable(hooks):
        return None
    return tuple(map(id, hooks))


def current_stream(device):
    return torch.accelerator.current_stream(device)


def tensor_from_numpy(value):
    import numpy

    if isinstance(value, numpy.ndarray):
        return torch.as_tensor(value)
    if isinstance(value, numpy.generic):
        return torch.as_tensor(numpy.asarray(value))
    return value


def numpy_isnan(value):
    import numpy

    return numpy.isnan(value)


# ---- shape guards ------------------------------------------------------------

def is_non_overlapping_and_dense_indicator(*args):
    from torch.fx.experimental.symbolic_shapes import _eval_is_non_overlapping_and_dense_flat

    return _eval_is_non_overlapping_and_dense_flat(*args)


def cast_symbool_to_symint_guardless(value):
    return 1 if value else 0
