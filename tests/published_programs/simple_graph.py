"""A compiled function that calls ``backward()`` (a graph break, and Inductor
compiling the backward graph as it runs), dumped with ``log_bytecode=True``
and ``clean_wild_fx_code=False`` (the published depyf's ``test_simple_graph.py``).

    python simple_graph.py DUMP_DIR
"""
import sys

import torch

import depyf


@torch.compile
def fn():
    x = torch.randn(1, 10, requires_grad=True)
    y = torch.randn(10, 1)
    loss = torch.mm(x, y).sum()
    loss.backward()
    return x.grad, y


if __name__ == "__main__":
    with depyf.prepare_debug(sys.argv[1], log_bytecode=True, clean_wild_fx_code=False):
        grad, y = fn()
    # d(sum(x @ y))/dx is y transposed
    assert torch.allclose(grad, y.t()), (grad, y)
    print("ok")
