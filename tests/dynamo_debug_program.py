"""A program to step through with pdb, for tests/test_dynamo_debug.py.

``python tests/dynamo_debug_program.py DUMP BACKEND [--pdb]`` compiles a
function under ``depyf.prepare_debug(DUMP)``; with ``--pdb`` it then calls it
again under ``depyf.debug()`` after ``pdb.set_trace()``, so that commands fed
on stdin can set breakpoints in the dumped files, and prints whether both
calls gave the same result.
"""
import sys

import torch

import depyf


def toy(a, b):
    # The README example: two graphs around a data-dependent branch (a resume function).
    x = a / (torch.abs(a) + 1)
    if b.sum() < 0:
        b = b * -1
    return x * b


def small(a):
    # One graph: a single Inductor compile keeps the test short.
    return (a.sin() * 2).sum()


def main(dump, backend, stop):
    a, b = torch.arange(4.0), -torch.ones(4)
    if backend == "inductor":
        f, args = torch.compile(small, backend=backend), (a,)
    else:
        f, args = torch.compile(toy, backend=backend), (a, b)
    with depyf.prepare_debug(dump):
        first = f(*args)
    if stop:
        with depyf.debug():
            import pdb
            pdb.set_trace()
            second = f(*args)
        print("SAME RESULT:", torch.equal(first, second))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], "--pdb" in sys.argv[3:])
