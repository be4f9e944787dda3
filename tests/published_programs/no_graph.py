"""Compiled functions that make no graph at all: string work and a print, an
assert, a list comprehension (the published depyf's ``test_no_graph.py``).

    python no_graph.py DUMP_DIR
"""
import sys

import torch

import depyf


@torch.compile
def f(x):
    s = "Hello" + x
    print(s)


@torch.compile
def g(a, b):
    assert a
    print(b)
    [a for _ in [None]]


if __name__ == "__main__":
    with depyf.prepare_debug(sys.argv[1]):
        f(", world!")
        g(1, 2)
