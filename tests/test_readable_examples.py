"""The worked examples in the readable passes' docstrings (and the constants
module's) are true: each module's doctests run."""
import doctest
import importlib

import pytest

MODULES = ["depyf.decompiler.readable", "depyf.decompiler.readable.blocks", "depyf.decompiler.readable.effects",
           "depyf.decompiler.readable.facts", "depyf.decompiler.readable.naming",
           "depyf.decompiler.readable.scope", "depyf.decompiler.constants"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted and not result.failed, result
