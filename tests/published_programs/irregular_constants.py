"""A bytecode hook that returns code whose constants are objects no literal
writes (an instance with ``__len__``, a class, a dtype), as compilers built on
Dynamo may (the published depyf's ``test_irregular.py``). The replaced code
must be what runs: ``len`` of the instance is called once per call.

    python irregular_constants.py DUMP_DIR
"""
import sys

import torch

import depyf


def f():
    print((len("1"), "2", "3"))


class Sized:
    def __init__(self):
        self.called_count = 0

    def __len__(self):
        self.called_count += 1
        return 1


sized = Sized()
code = f.__code__
replace = {None: None, "1": sized, "2": torch.nn.Module, "3": torch.int64}
new_code = code.replace(co_consts=tuple(replace[c] for c in code.co_consts))


def convert_hook(old_code, compiled_code):
    if old_code is code:
        return new_code


if __name__ == "__main__":
    torch._dynamo.convert_frame.register_bytecode_hook(convert_hook)
    f = torch.compile(f)
    with depyf.prepare_debug(sys.argv[1]):
        f()
        f()
    assert sized.called_count == 2, sized.called_count
