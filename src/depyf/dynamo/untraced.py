"""Keep Dynamo out of depyf's own code.

depyf puts functions of its own where torch calls them at run time (the
graph-module wrappers of breakpoints.py, the trace filter and handler of
artifacts.py). A frame Dynamo has not been told to skip is one it compiles
when it meets it while a compiled function runs: a cold Inductor compile of a
backward graph, started by ``loss.backward()`` inside a compiled step, calls
``GraphModule.recompile``, and without this Dynamo compiled depyf's wrapper of
it, dumped it as a compiled function of the user's, and spent graph numbers
a warm run does not (every later graph name shifted). Naming depyf's folder
among the ones Dynamo skips, as torch's own folder is, makes every depyf frame
run as plain Python, and a call into depyf from traced code a graph break.

>>> keep_dynamo_out()          # doctest: +SKIP
True
"""
from __future__ import annotations

import os

from .torch_compat import feature

_done = []


def keep_dynamo_out() -> bool:
    """Have Dynamo skip every frame of depyf's package (once per process);
    False where this torch has no way to be told (``trace_rules.add``)."""
    if _done:
        return _done[0]
    add = feature("skip_dirs")
    if add is None:
        _done.append(False)
        return False
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    add(os.path.basename(package))
    _done.append(True)
    return True
