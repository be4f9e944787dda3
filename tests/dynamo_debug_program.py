"""A program to step through with pdb, for tests/test_dynamo_debug.py.

``python tests/dynamo_debug_program.py DUMP BACKEND[,BACKEND] [--pdb] [--both-branches]``
compiles a function per backend under ``depyf.prepare_debug(DUMP)`` (``toy``
with "eager", ``toy_aot`` with "aot_eager", ``small`` with "inductor", and
``in_block`` with "eager" for "with_block"); with
``--pdb`` it then calls them again under ``depyf.debug()``, which pauses in
pdb on the first line of its block, so that commands fed on stdin can set
breakpoints in the dumped files, and prints whether both calls gave the same
results.
``--both-branches`` calls ``toy`` a second time with ``-b``: the other side of
its data-dependent branch.
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


def toy_aot(a, b):
    # toy again: a code object of its own for the second backend
    x = a / (torch.abs(a) + 1)
    if b.sum() < 0:
        b = b * -1
    return x * b


def small(a):
    # One graph: a single Inductor compile keeps the test short.
    return (a.sin() * 2).sum()


def in_block(a):
    # A graph break inside a with block: Dynamo leaves the block around the
    # call with a try/finally of its own.
    with torch.no_grad():
        y = a * 2
        print("depyf test: a graph break in a with block", file=sys.stderr)     # (stdout is pdb's)
        y = y + 1
    return y


FUNCTIONS = {"eager": toy, "aot_eager": toy_aot, "inductor": small, "with_block": in_block}
#: the backend of each function whose key is no backend's name
BACKENDS = {"with_block": "eager"}


def main(dump, backends, stop, both_branches=False):
    a, b = torch.arange(4.0), -torch.ones(4)
    calls = []
    for backend in backends:
        fn = FUNCTIONS[backend]
        compiled = torch.compile(fn, backend=BACKENDS.get(backend, backend))
        calls.append((compiled, (a,) if fn in (small, in_block) else (a, b)))
        if both_branches and fn is toy:
            calls.append((compiled, (a, -b)))
    with depyf.prepare_debug(dump):
        first = [f(*args) for f, args in calls]
    if stop:
        with depyf.debug():
            second = [f(*args) for f, args in calls]
        print("SAME RESULT:", all(torch.equal(x, y) for x, y in zip(first, second)))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2].split(","), "--pdb" in sys.argv[3:], "--both-branches" in sys.argv[3:])
