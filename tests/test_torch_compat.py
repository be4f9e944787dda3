"""The torch-release table and adapters (depyf.dynamo.torch_compat), and what
depyf does on a torch without a feature.

The tests here need no torch but the last few; each torch release's own
differences are met by the torch tests (scripts/test_torch.sh VERSION).
"""
import warnings

import pytest

from depyf.dynamo import torch_compat
from depyf.dynamo.artifacts import kept_kind


def test_post_grad_graph_under_each_artifact_name():
    # torch 2.9 names the artifact after_post_grad_graph, 2.13+ inductor_post_grad_graph
    for name in ("after_post_grad_graph", "inductor_post_grad_graph"):
        assert kept_kind("artifact", lambda: {"name": name}) == "inductor_post_grad_graph"
    assert kept_kind("artifact", lambda: {"name": "before_post_grad_graph"}) is None


def test_release_of_version_strings():
    assert torch_compat.release("2.15.0+cu130") == (2, 15)
    assert torch_compat.release("2.9.1") == (2, 9)
    assert torch_compat.release("2.16.0.dev20260101+cpu") == (2, 16)


def test_global_state_from_the_text_or_the_closure():
    assert torch_compat.recorded_global_state(
        '___check_global_state() against {"grad_mode":true}', None) == '{"grad_mode":true}'

    class State:
        def check(self, *args):
            return True

        def __getstate__(self):
            return '{"grad_mode":false}'

    class Wrapper:          # torch 2.9: the guard's text names a check of its closure
        closure_vars = {"___check_global_state": State().check}
    assert torch_compat.recorded_global_state("___check_global_state()", Wrapper()) == '{"grad_mode":false}'
    assert torch_compat.recorded_global_state("___check_global_state()", None) is None
    assert torch_compat.recorded_global_state("something else", Wrapper()) is None


def test_unknown_feature_is_a_key_error():
    with pytest.raises(KeyError):
        torch_compat.feature("no_such_feature")
