"""A module held under a 1000-character attribute name, compiled whole
(``fullgraph=True``) and exported with ``torch.export`` inside one
``prepare_debug`` (the published depyf's ``test_export.py``).

    python export_long_name.py DUMP_DIR
"""
import sys

import torch

import depyf

very_long_variable = "a" * 1000


class MyModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        layer = torch.nn.TransformerEncoderLayer(d_model=8, nhead=2, batch_first=True)
        setattr(self, very_long_variable, torch.nn.TransformerEncoder(layer, num_layers=6))

    def forward(self, x):
        return getattr(self, very_long_variable)(x)


if __name__ == "__main__":
    model = MyModel()
    x = torch.randn(1, 10, 8)
    with depyf.prepare_debug(sys.argv[1]):
        compiled = torch.compile(model, fullgraph=True)
        out = compiled(x)
        exported = torch.export.export(model, (x,)).module()
    # the model is in training mode (dropout): compare shapes, not values
    assert out.shape == x.shape and bool(torch.isfinite(out).all()), out
    assert exported(x).shape == x.shape
    print("ok", tuple(out.shape))
