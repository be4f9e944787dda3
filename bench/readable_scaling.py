"""How the readable form's cost grows with the size of Dynamo's code.

A real model's transformed code reads each of its parameters and passes them
all to one graph call: a model of a few hundred parameters makes a function
of thousands of instructions, and the readable passes move each read into
the call. Their cost must grow with the code, not with its square (it did:
a 16-layer GPT-2's main function took 0.4 s, a 32-layer one over a second).

A stack of ``N`` blocks (``Linear`` and ``LayerNorm``, four parameters each)
is compiled with ``backend="eager"`` for each ``N`` (``--blocks``); the
transformed code Dynamo made of its ``forward`` is decompiled as the dump
does (its readable form, with the line map), ``--repeat`` times, and the
table gives the fastest time in CPU milliseconds, the code's size, and the
time per code unit: a flat last column is linear growth.

Run from the project root with a torch installed::

    PYTHONPATH=src python bench/readable_scaling.py [--blocks 8,32,128,256] [--repeat 3]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src"))


def transformed_code(blocks: int):
    """(original code, the code Dynamo made of it) for a stack of ``blocks`` blocks."""
    import torch
    from depyf.dynamo import torch_compat
    layers = []
    for _ in range(blocks):
        layers += [torch.nn.Linear(8, 8), torch.nn.LayerNorm(8)]
    model = torch.nn.Sequential(*layers)
    made = []
    # (where this torch keeps its bytecode hook: depyf's one table of torch's names)
    handle = torch_compat.feature("bytecode_hook")(lambda code, new_code: made.append((code, new_code)))
    try:
        torch._dynamo.reset()
        torch.compile(model, backend="eager")(torch.randn(2, 8))
    finally:
        handle.remove()
    return max(made, key=lambda pair: len(pair[1].co_code))


def main(argv=None) -> int:
    from depyf.dynamo import fullcode
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", default="8,32,128,256")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    print("%8s %12s %10s %12s" % ("blocks", "code units", "CPU ms", "us per unit"))
    for blocks in [int(b) for b in args.blocks.split(",")]:
        code, new_code = transformed_code(blocks)
        hints = fullcode.readable_hints(code, {})
        best = None
        for _ in range(args.repeat):
            start = time.process_time()
            text, problem = fullcode.safe_decompile(new_code, "f", check=False, readable=hints, lines={})
            seconds = time.process_time() - start
            best = seconds if best is None else min(best, seconds)
        if problem:
            print("%8d: %s" % (blocks, problem))
            continue
        units = len(new_code.co_code) // 2
        print("%8d %12d %10.1f %12.1f" % (blocks, units, best * 1e3, best * 1e6 / units))
    return 0


if __name__ == "__main__":
    sys.exit(main())
