"""``depyf demo``: the main job. Compiles the README's toy example and a small
model under :func:`depyf.prepare_debug`, writes the HTML report, and prints
where the dump and the report are, with one decompiled function.

Run from a fresh clone with ``bash scripts/demo.sh``, or ``depyf demo [--dump-dir DIR]``.
"""
from __future__ import annotations

import os
import sys
from typing import Optional


def toy_example(a, b):
    x = a / (a.abs() + 1)
    if b.sum() < 0:
        b = b * -1
    return x * b


def _model():
    import torch

    class SmallModel(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = torch.nn.Linear(8, 8)

        def forward(self, x):
            y = torch.relu(self.linear(x))
            return y.softmax(dim=-1) + x.mean()
    return SmallModel()


def compile_and_dump(dump_dir: str, backend: Optional[str] = None, **options) -> None:
    """The demo's work: the toy example and the small model compiled and run
    under ``prepare_debug(dump_dir, **options)``."""
    import torch
    import depyf
    torch.manual_seed(0)
    compile_options = {"backend": backend} if backend else {}
    toy = torch.compile(toy_example, **compile_options)
    model = torch.compile(_model(), **compile_options)
    with depyf.prepare_debug(dump_dir, **options):
        for _ in range(10):
            toy(torch.randn(10), torch.randn(10))
        model(torch.randn(4, 8))


def run(dump_dir: str, backend: Optional[str] = None, out=sys.stdout) -> int:
    try:
        import torch  # noqa: F401
    except ImportError:
        print("depyf demo needs torch: pip install torch==2.13.0 (CPU build)", file=sys.stderr)
        return 1
    import depyf
    compile_and_dump(dump_dir, backend)
    report = None
    try:
        from .dynamo.report import write_report
        report = write_report(dump_dir)
    except ImportError:
        pass
    files = sorted(os.listdir(dump_dir)) if os.path.isdir(dump_dir) else []
    print("dump: %s (%d files)" % (os.path.abspath(dump_dir), len(files)), file=out)
    for name in files:
        print("  " + name, file=out)
    if report:
        print("report: %s" % os.path.abspath(report), file=out)
    print("\nThe toy example, decompiled from its bytecode (depyf.decompile):\n", file=out)
    print(depyf.decompile(toy_example, layout="compact"), file=out)
    transformed = os.path.join(dump_dir, "__transformed_code_0_for_toy_example.py")
    if os.path.exists(transformed):
        print("What Dynamo made of it, in its readable form (%s; "
              "prepare_debug(..., faithful=True) shows every instruction):\n" % transformed, file=out)
        with open(transformed, encoding="utf-8") as f:
            print(f.read(), file=out)
    return 0
