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

The one exception is the demo (:data:`USER_CODE`): its examples are what a
user would compile, and skipped, ``depyf demo`` dumped nothing. Dynamo is
told each of depyf's modules and subpackages but that one, by name (a
folder of Dynamo's skips covers everything in it); the package's own
``__init__``, a lazy attribute hook, goes unnamed with it.

>>> keep_dynamo_out()          # doctest: +SKIP
True
"""
from __future__ import annotations

import os
import pkgutil
from typing import List

from .torch_compat import feature

#: depyf's modules whose code is a user's, compiled by Dynamo as a user's is
USER_CODE = frozenset({"demo"})

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
    for name in skipped_modules():
        add(name)
    _done.append(True)
    return True


def skipped_modules() -> List[str]:
    """The import names of depyf's modules and subpackages Dynamo is to skip:
    all but :data:`USER_CODE` (looked up without importing them).

    >>> "depyf.dynamo" in skipped_modules(), "depyf.demo" in skipped_modules()
    (True, False)
    """
    folder = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    package = os.path.basename(folder)
    return ["%s.%s" % (package, info.name) for info in pkgutil.iter_modules([folder])
            if info.name not in USER_CODE]
