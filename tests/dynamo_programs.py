"""torch.compile test programs for the dump, runnable in a fresh process.

``python tests/dynamo_programs.py DUMP_DIR NAME...`` runs each program twice
(plain, then under ``depyf.prepare_debug(DUMP_DIR/NAME)``) with the same seed,
and prints one JSON line per program: whether results were identical, which
frames Dynamo compiled (seen through a bytecode hook of our own), and the
warnings depyf gave. tests/test_dynamo_dump.py checks the rest on disk.
"""
from __future__ import annotations

import contextlib
import functools
import json
import os
import sys
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F


def toy_example(backend):
    # The README example of the published depyf.
    def toy_example(a, b):
        x = a / (torch.abs(a) + 1)
        if b.sum() < 0:
            b = b * -1
        return x * b
    f = torch.compile(toy_example, backend=backend)
    return [f(torch.randn(10), torch.randn(10)) for _ in range(100)]


def mlp_train(backend):
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    step = torch.compile(lambda x, y: F.mse_loss(model(x), y), backend=backend)
    out = []
    for _ in range(3):
        x, y = torch.randn(5, 8), torch.randn(5, 4)
        loss = step(x, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.detach())
    out.extend(p.detach().clone() for p in model.parameters())
    return out


def _untraceable(x):
    return float(x.sum().detach().tolist())


def graph_breaks(backend):
    def f(x, y):
        a = x.sin()
        print("depyf test: a graph break")
        b = a.cos() + y
        if b.sum().item() > 0:
            b = b * 2
        c = torch._dynamo.disable(_untraceable)(b)
        return b + c
    g = torch.compile(f, backend=backend)
    return [g(torch.randn(4), torch.randn(4)) for _ in range(4)]


def constants(backend):
    # a torch.device and a dtype live across a graph break: Dynamo puts the
    # objects themselves in the transformed code's co_consts
    def f(x):
        d, t = x.device, x.dtype
        print("depyf test: a device across a graph break")
        return torch.ones(2, device=d, dtype=t) + x.sum()
    g = torch.compile(f, backend=backend)
    return [g(torch.randn(3)) for _ in range(2)]


SCALE = [2.0]


class _Box:
    pass


def side_effects(backend):
    # what the transformed code does besides calling graphs: a global rebound,
    # a list the caller holds changed, an object's attributes set, across a graph break
    global _SCALE_SEEN
    _SCALE_SEEN = 0
    SCALE[0] = 2.0
    box = _Box()

    def f(x, acc):
        global _SCALE_SEEN
        _SCALE_SEEN = _SCALE_SEEN + 1
        acc.append(x.sum())
        box.value = x * SCALE[0]
        box.count = getattr(box, "count", 0) + 1
        print("depyf test: side effects")
        acc.extend([x.mean()])
        return box.value + box.count
    g = torch.compile(f, backend=backend)
    acc = []
    out = [g(torch.randn(3), acc) for _ in range(2)]
    return out + acc + [box.count, _SCALE_SEEN]


_SCALE_SEEN = 0


class _Stateful(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.bn = nn.BatchNorm1d(4)
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        a = self.bn(self.lin(x))
        if a.sum().item() > 0:      # a graph break on data
            a = a * 2
        return F.relu(a), self.calls


def module_state(backend):
    # buffers (BatchNorm's running stats) and a Python attribute the forward changes
    m = _Stateful()
    g = torch.compile(m, backend=backend)
    out = []
    for _ in range(3):
        y, calls = g(torch.randn(5, 4))
        out += [y, calls]
    return out + [m.bn.running_mean.clone(), m.bn.num_batches_tracked.clone(), m.calls]


def recompiles(backend):
    def f(x):
        return (x * 2).relu().sum(0)
    g = torch.compile(f, backend=backend)
    out = [g(torch.randn(n, 3)) for n in (2, 3, 4, 4)]
    out.append(g(torch.randn(3, 3, dtype=torch.float64)))
    h = torch.compile(lambda x, n: x.reshape(n, -1).mean(1), backend=backend, dynamic=True)
    out += [h(torch.randn(n * 6), n) for n in (2, 3)]
    return out


def closures(backend):
    scale = torch.tensor(3.0)

    def outer(x):
        count = 0

        def inner(y):
            nonlocal count
            count += 1
            return y * scale + count
        z = inner(x)
        print("break with cells live")
        z = inner(z)
        return z, count
    g = torch.compile(outer, backend=backend)
    # both results: the count (a cell the transformed code sets) too
    return [v for _ in range(2) for v in g(torch.randn(3))]


def module_hooks(backend):
    net = nn.Sequential(nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 2))
    seen = []
    net[0].register_forward_hook(lambda mod, inp, out: out * 0.5)
    net[2].register_forward_pre_hook(lambda mod, inp: (inp[0] + 1,))
    net.register_forward_hook(lambda mod, inp, out: seen.append(1))
    g = torch.compile(net, backend=backend)
    # the hooks' side effect (seen, changed by the transformed code) too
    return [g(torch.randn(3, 4)) for _ in range(2)] + [len(seen)]


class Attention(nn.Module):
    def __init__(self, dim=16, heads=2):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.norm(x)).chunk(3, dim=-1)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) / (d // self.heads) ** 0.5
        att = att.masked_fill(torch.triu(torch.ones(t, t, dtype=torch.bool), 1), float("-inf"))
        y = att.softmax(-1) @ v
        return x + self.proj(y.transpose(1, 2).reshape(b, t, d))


def attention(backend):
    block = Attention()
    g = torch.compile(block, backend=backend)
    x = torch.randn(2, 5, 16, requires_grad=True)
    y = g(x)
    y.sum().backward()
    return [y.detach(), x.grad]


def grad_mode_break(backend):
    # A graph break inside a with block (a print or an .item() under
    # torch.no_grad(), as real models have): Dynamo leaves the block around
    # the breaking call with a try/finally of its own, while the values the
    # resume call needs wait on the stack.
    def f(x, n):
        with torch.no_grad():
            y = x * 2
            print("depyf test: a graph break in a with block")
            y = y + 1
        for i in range(n):
            x = x + i
        return x, y
    g = torch.compile(f, backend=backend)
    return [t for _ in range(3) for t in g(torch.randn(3, requires_grad=True), 2)]


def _keeps_kwargs(fn):
    """A decorator of the kind Hugging Face puts on ``forward``
    (``deprecate_kwarg``, ``can_return_tuple``): the frame Dynamo compiles is
    the wrapper, which reaches the module as ``args[0]``."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper


class WrappedForward(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = nn.Sequential(nn.Linear(4, 4), nn.LayerNorm(4))
        self.head = nn.Linear(4, 2)

    @_keeps_kwargs
    def forward(self, x):
        return self.head(torch.relu(self.inner(x)))


def wrapped_forward(backend):
    g = torch.compile(WrappedForward(), backend=backend)
    return [g(torch.randn(3, 4)) for _ in range(2)]


def inductor_small(backend):
    # One graph, forward and backward, through Inductor (C++ code).
    f = torch.compile(lambda x: (x.sin() * 2).sum(), backend="inductor")
    x = torch.randn(8, requires_grad=True)
    y = f(x)
    y.backward()
    return [y.detach(), x.grad]


@contextlib.contextmanager
def disk_full():
    """depyf itself fails (a full disk, say): one warning per function, same results."""
    from depyf.dynamo import dump

    def broken(self, name, text):
        raise OSError("No space left on device (simulated)")
    saved, dump.DumpDir.write = dump.DumpDir.write, broken
    try:
        yield
    finally:
        dump.DumpDir.write = saved


@contextlib.contextmanager
def old_torch():
    """A torch without the bytecode hook: one clear message, graphs still dumped."""
    from torch._dynamo import convert_frame
    saved = convert_frame.register_bytecode_hook
    del convert_frame.register_bytecode_hook
    try:
        yield
    finally:
        convert_frame.register_bytecode_hook = saved


def _rank_fn_0(x):
    return x.sin() * 2


def _rank_fn_1(x):
    return x.cos() - 1


def _shared_fn(x):
    return (x + 1).relu()


def spawn_worker(rank, dump):
    """One of two processes writing into one dump directory at once."""
    import depyf
    fn = torch.compile(_rank_fn_0 if rank == 0 else _rank_fn_1, backend="eager")
    shared = torch.compile(_shared_fn, backend="eager")
    with depyf.prepare_debug(dump):
        for n in range(2, 6):
            fn(torch.randn(n))
            shared(torch.randn(3))


PROGRAMS = {
    "toy_example": (toy_example, "eager"),
    "toy_example_aot": (toy_example, "aot_eager"),
    "mlp_train": (mlp_train, "aot_eager"),
    "graph_breaks": (graph_breaks, "eager"),
    "recompiles": (recompiles, "eager"),
    "constants": (constants, "eager"),
    "side_effects": (side_effects, "eager"),
    "module_state": (module_state, "eager"),
    "closures": (closures, "eager"),
    "module_hooks": (module_hooks, "eager"),
    "attention": (attention, "aot_eager"),
    "grad_mode_break": (grad_mode_break, "eager"),
    "wrapped_forward": (wrapped_forward, "eager"),
    # Compiled once only (the C++ compile is slow): results are compared by the others.
    "inductor_small": (inductor_small, "inductor"),
    "toy_example_broken": (toy_example, "eager"),
    "toy_example_old_torch": (toy_example, "eager"),
    "toy_example_log_bytecode": (toy_example, "eager"),
}
PREPARE_ARGS = {"toy_example_log_bytecode": {"log_bytecode": True}}
# Around the run under prepare_debug (prepare_debug included).
AROUND = {"toy_example_broken": disk_full, "toy_example_old_torch": old_torch}
SINGLE_RUN = {"inductor_small"}


def plain_programs():
    """The programs Dynamo compiles with no Inductor (gcc's time) and nothing
    set up around them or passed to prepare_debug: each program's own shape once."""
    return [name for name, (_, backend) in PROGRAMS.items()
            if backend != "inductor" and name not in AROUND and name not in PREPARE_ARGS]


@contextlib.contextmanager
def run_decompiled(session):
    """Make Dynamo run the transformed code as depyf decompiled it (compiled
    from the dumped file) instead of its own bytecode: the results then tell
    whether the decompiled code does what Dynamo's does."""
    import types

    def module_globals(code):
        for module in list(sys.modules.values()):
            if getattr(module, "__file__", None) == code.co_filename:
                return vars(module)
        return None

    def find(code, name):
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                if const.co_name == name:
                    return const
                inner = find(const, name)
                if inner is not None:
                    return inner
        return None

    def hook(code, new_code):
        fn = session.functions.get(id(code))
        if fn is None or not fn.entries or fn.entries[-1].new_code is not new_code:
            return None
        entry = fn.entries[-1]
        name = entry.names(fn.name)["transformed"]
        path = session.dir.file(name + ".py")
        with open(path) as f:
            text = f.read()
        module = compile(text, path, "exec")
        made = find(module, name)
        if made is not None and made.co_freevars != new_code.co_freevars:
            # The readable form declares no free variable nothing reads
            # (drop_unused_nonlocals), and torch takes back only code of the
            # closure's shape: the declaration comes back for the run, which
            # it cannot change.
            missing = [v for v in new_code.co_freevars if v not in made.co_freevars]
            module = compile(_declare_free(text, name, missing), path, "exec")
            made = find(module, name)
        namespace = module_globals(code)
        if made is None or namespace is None:
            return None
        # what the file defines for the code (constants no literal writes) and
        # the frame's globals lack
        defined = {}
        exec(module, defined)
        for needed in made.co_names:
            if needed not in namespace and needed in defined:
                namespace[needed] = defined[needed]
        for real, stable in entry.graphs.items():
            namespace[stable] = namespace[real]
        session.swapped += 1
        return made

    session.swapped = 0
    handle = torch._dynamo.convert_frame.register_bytecode_hook(hook)
    try:
        yield
    finally:
        handle.remove()


def _declare_free(text, name, freevars):
    """``text`` with ``nonlocal`` of ``freevars`` first in ``def name``'s body."""
    lines = text.splitlines(True)
    at = next(i for i, line in enumerate(lines) if line.lstrip().startswith("def %s(" % name))
    while not lines[at].rstrip().endswith(":"):
        at += 1
    body = next(line for line in lines[at + 1:] if line.strip())
    indent = body[:len(body) - len(body.lstrip())]
    lines.insert(at + 1, "%snonlocal %s\n" % (indent, ", ".join(freevars)))
    return "".join(lines)


def _run(program, backend):
    torch._dynamo.reset()
    torch.manual_seed(0)
    return program(backend)


def _same(a, b) -> bool:
    if len(a) != len(b):
        return False
    return all(torch.equal(x, y) if isinstance(x, torch.Tensor) else x == y for x, y in zip(a, b))


def run(name: str, dump_root: str) -> dict:
    import depyf
    program, backend = PROGRAMS[name]
    plain = None if name in SINGLE_RUN else _run(program, backend)
    compiled = []
    handle = torch._dynamo.convert_frame.register_bytecode_hook(
        lambda code, new: compiled.append(code.co_name))
    dump = os.path.join(dump_root, name)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch._dynamo.reset()
        torch.manual_seed(0)
        with AROUND.get(name, contextlib.nullcontext)():
            with depyf.prepare_debug(dump, **PREPARE_ARGS.get(name, {})):
                dumped = program(backend)
    handle.remove()
    from torch._dynamo.convert_frame import _bytecode_hooks
    from torch._logging._internal import trace_log
    left = [h for h in _bytecode_hooks.values() if "depyf" in getattr(h, "__module__", "") or
            "depyf" in type(getattr(h, "__self__", None)).__module__]
    left += [h for h in trace_log.handlers if "depyf" in type(h).__module__]
    return {"hooks_left": [repr(h) for h in left],"name": name, "dump": dump, "same": None if plain is None else _same(plain, dumped), "compiled": compiled,
            "warnings": [str(w.message) for w in caught if "depyf" in str(w.message)]}


if __name__ == "__main__":
    root = sys.argv[1]
    if sys.argv[2:3] == ["--decompiled"]:
        # Each program under prepare_debug with Dynamo running depyf's code:
        # the readable form, or with --faithful the faithful one.
        import depyf
        faithful = sys.argv[3:4] == ["--faithful"]
        for name in sys.argv[3 + faithful:]:
            program, backend = PROGRAMS[name]
            plain = _run(program, backend)
            torch._dynamo.reset()
            torch.manual_seed(0)
            error = None
            try:
                with depyf.prepare_debug(os.path.join(root, name), faithful=faithful) as session:
                    with run_decompiled(session):
                        dumped = program(backend)
            except Exception as e:
                error, dumped = "%s: %s" % (type(e).__name__, e), []
            print(json.dumps({"name": name, "same": _same(plain, dumped), "error": error,
                              "swapped": session.swapped if error is None else 0}), flush=True)
        sys.exit(0)
    if sys.argv[2:3] == ["--spawn"]:
        torch.multiprocessing.spawn(spawn_worker, args=(root,), nprocs=2)
        sys.exit(0)
    for name in sys.argv[2:]:
        print(json.dumps(run(name, root)), flush=True)
