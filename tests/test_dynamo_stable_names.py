"""Dump file names do not depend on cache state: the same program run with
Inductor's cache cold and warm, into fresh directories or into the same one,
gives the same files (Dynamo's global graph counter and cache hits decide
nothing)."""
import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch", reason="the stable-name tests need torch (pip install torch==2.13.0)")
pytestmark = pytest.mark.torch

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.join(HERE, "stable_names_program.py")


def _run(dump, cache):
    env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(HERE), "src"),
               TORCHINDUCTOR_CACHE_DIR=str(cache))
    env.pop("DEPYF_DUMP_DIR", None)
    res = subprocess.run([sys.executable, PROGRAM, str(dump)], env=env, capture_output=True,
                         text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    return sorted(os.listdir(dump))


def test_cold_and_warm_inductor_cache_give_the_same_names(tmp_path):
    cache = tmp_path / "inductor_cache"
    cold = _run(tmp_path / "cold", cache)
    warm = _run(tmp_path / "warm", cache)
    assert cold == warm
    # depyf's own code is never compiled as if it were the user's
    assert not any("Breakpoints" in name or "depyf" in name for name in cold if name[0] != ".")
    # graphs are numbered by the order the dump met them, from 1
    graphs = sorted({name.split(".")[0] for name in cold if name.startswith("__compiled_fn_")})
    assert graphs == ["__compiled_fn_%d" % n for n in range(1, len(graphs) + 1)]
    # again, warm, into the cold run's directory: the same files, none added
    assert _run(tmp_path / "cold", cache) == cold


def test_dynamo_skips_depyf_frames_once_a_dump_started(tmp_path):
    import depyf
    from depyf.dynamo import breakpoints
    from torch._dynamo import trace_rules
    with depyf.prepare_debug(str(tmp_path / "d")):
        assert trace_rules.check(breakpoints.Breakpoints.install.__code__)
        assert trace_rules.check(depyf.decompile.__code__)
