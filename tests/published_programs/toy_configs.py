"""The published depyf's ``test_pytorch.py`` toy, for many configurations in one process.

Each configuration (backend, requires_grad, dynamic shape, function or module)
compiles the toy, warms it up inside ``prepare_debug`` into its own directory
under the root (named as the published script names it), then calls it once
inside ``debug()``. Every result is checked against the eager toy, and one
line ``ok <directory name>`` is printed per configuration.

    python toy_configs.py ROOT eager:1:0:module inductor:0:1:function ...
    python toy_configs.py ROOT all
"""
import itertools
import os
import sys

import torch

import depyf
from depyf.utils import safe_create_directory

BACKENDS = ("eager", "aot_eager", "inductor")


def toy_function(a, b):
    x = a / (torch.abs(a) + 1)
    b = b * -1 + b.sum()
    return x * b


class ToyModule(torch.nn.Module):
    def forward(self, a, b):
        x = a / (torch.abs(a) + 1)
        b = b * -1 + b.sum()
        return x * b


def all_configs():
    """The published spawn_tests.py's 24: backend x grad x dynamic x compile type."""
    return [(b, g, d, c) for b, g, d, c in itertools.product(BACKENDS, (False, True), (False, True),
                                                             ("function", "module"))]


def parse(text):
    backend, grad, dynamic, kind = text.split(":")
    if backend not in BACKENDS or kind not in ("function", "module"):
        raise SystemExit("bad configuration %r (want backend:grad:dynamic:function|module)" % text)
    return backend, grad == "1", dynamic == "1", kind


def description(backend, grad, dynamic, kind):
    return "debug_%s_%s_%s_dynamic_shape_%s_grad" % (
        kind, backend, "with" if dynamic else "without", "with" if grad else "without")


def run(root, backend, grad, dynamic, kind):
    torch._dynamo.reset()
    input1 = torch.ones(10, requires_grad=grad), torch.ones(10, requires_grad=grad)
    input2 = torch.ones(8, requires_grad=grad), -torch.ones(8, requires_grad=grad)
    target = torch.compile(toy_function if kind == "function" else ToyModule(), backend=backend)
    if not os.path.exists(root):
        safe_create_directory(root)
    name = description(backend, grad, dynamic, kind)
    with depyf.prepare_debug(os.path.join(root, name)):
        for _ in range(100):
            check(target, input1)
            if dynamic:
                check(target, input2)
    with depyf.debug():
        check(target, input1)
    print("ok", name, flush=True)


def check(target, inputs):
    got, want = target(*inputs), toy_function(*inputs)
    assert torch.equal(got, want), (got, want)
    assert got.requires_grad == want.requires_grad


if __name__ == "__main__":
    root, wanted = sys.argv[1], sys.argv[2:]
    for config in (all_configs() if wanted == ["all"] else [parse(w) for w in wanted]):
        run(root, *config)
