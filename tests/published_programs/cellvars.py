"""A compiled ``forward`` that defines a closure over ``self`` and calls it
(cell variables in the code Dynamo transforms; the published depyf's
``test_cellvars.py``).

    python cellvars.py DUMP_DIR
"""
import sys

import torch

import depyf


class LinearModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(1, 1)

    def forward(self, x):
        def forward_function(x):
            return self.linear(x)
        return forward_function(x)


if __name__ == "__main__":
    model = LinearModel()
    compiled = torch.compile(model, backend="eager")
    x = torch.tensor([[1.0]])
    with depyf.prepare_debug(sys.argv[1]):
        out = compiled(x)
    assert torch.equal(out, model(x)), (out, model(x))
    print("ok")
