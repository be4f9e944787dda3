"""``depyf demo``, the main job README starts with: it must show what Dynamo
made of the toy example, not an empty dump.

The demo's examples live in depyf's own package (``depyf.demo``), whose
frames Dynamo is told to skip (``depyf.dynamo.untraced``): the demo's module
is the one exception, since its code is a user's.
"""
import io
import os

import pytest

torch = pytest.importorskip("torch")

from depyf import demo  # noqa: E402
from depyf.dynamo import hooks, untraced  # noqa: E402

pytestmark = pytest.mark.torch


def test_the_demo_dumps_and_prints_the_transformed_code(tmp_path):
    torch._dynamo.reset()
    dump = str(tmp_path / "dump")
    out = io.StringIO()
    assert demo.run(dump, backend="eager", out=out) == 0
    text = out.getvalue()
    names = os.listdir(dump)
    assert any(n.startswith("__transformed_code_0_for_toy_example") for n in names), names
    assert any(n.startswith("full_code_for_") and "forward" in n for n in names), names
    assert "What Dynamo made of it" in text, text
    assert "__compiled_fn_" in text.split("What Dynamo made of it", 1)[1], text


def test_dynamo_skips_depyf_but_the_demo():
    assert untraced.keep_dynamo_out()
    check_file = torch._dynamo.trace_rules.check_file
    for module in (hooks, untraced, torch_compat_module()):
        assert check_file(module.__file__).skipped, module.__name__
    assert not check_file(demo.__file__).skipped


def torch_compat_module():
    from depyf.dynamo import torch_compat
    return torch_compat
