"""``depyf.install()`` around a compiled function with a backward, with
Dynamo's bytecode log on (run it with ``TORCH_LOGS=+bytecode``; the published
depyf's ``test_logging.py``).

    TORCH_LOGS=+bytecode python logging_install.py
"""
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
    depyf.install()
    grad, y = fn()
    depyf.uninstall()
    assert torch.allclose(grad, y.t()), (grad, y)
    print("ok")
