"""A training step with three graph breaks (a print, a branch on ``.item()``,
a call torch.compiler.disable keeps out), compiled by Inductor and dumped
into ``sys.argv[1]``: tests/test_dynamo_stable_names.py runs it with
Inductor's cache cold and warm and compares the dumps."""
import sys

import torch

import depyf


@torch.compiler.disable
def log_value(v):
    return float(v.detach())


def step(model, opt, x, y):
    loss = torch.nn.functional.mse_loss(model(x), y)
    print("loss computed")
    if loss.item() > 0.5:
        loss = loss * 2
    log_value(loss)
    opt.zero_grad()
    loss.backward()     # a cold Inductor compiles the backward graphs here
    opt.step()
    return loss


if __name__ == "__main__":
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    compiled = torch.compile(step)
    with depyf.prepare_debug(sys.argv[1]):
        for _ in range(2):
            compiled(model, opt, torch.randn(8, 4), torch.randn(8, 1))
