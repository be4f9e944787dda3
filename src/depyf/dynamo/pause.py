"""Stop in the debugger at the caller's code, as ``breakpoint()`` there would.

``depyf.debug()`` pauses so that breakpoints can be set in the dumped files
before its block runs. A ``breakpoint()`` inside depyf would stop in depyf's
own frame (a generator under contextlib): the person would see ``-> yield``
in a file they never wrote and have to step out twice. So when the breakpoint
hook is Python's default one and it names pdb (``PYTHONBREAKPOINT`` unset,
empty or ``pdb.set_trace``), pdb is started on the caller's frame
(``pdb.Pdb().set_trace(frame)``) and stops at the next line there: the first
line of the ``with`` body (from 3.14, whose pdb stops at the next
instruction, on the ``with`` line itself, after ``__enter__``: the block has
not run either way). Any other hook (``PYTHONBREAKPOINT=ipdb.set_trace``,
the ``sys.breakpointhook`` an IDE installs) is called through ``breakpoint()``
as usual, and ``PYTHONBREAKPOINT=0`` does not stop at all.

Standard library only.

Example::

    @contextlib.contextmanager
    def block():
        stop_in(caller_frame(inspect.currentframe(), (__name__, "contextlib")),
              "set breakpoints, then c\\n")
        yield                   # nothing may run between the pause and here

    with block():
        work()                  # (Pdb) stops on this line
"""
from __future__ import annotations

import os
import sys
import types
from typing import Iterable, Optional

PDB = "pdb"      # Python's default hook would start pdb
HOOK = "hook"    # another debugger: breakpoint() calls it

_DEFAULT_TARGETS = ("", "pdb.set_trace")     # PYTHONBREAKPOINT values that mean pdb
_DISABLED = "0"


def debugger() -> Optional[str]:
    """What ``breakpoint()`` would start now: ``PDB``, ``HOOK`` or None (``PYTHONBREAKPOINT=0``).

    Python's default hook reads ``PYTHONBREAKPOINT`` at each call (not with
    ``-E``); a hook installed in ``sys.breakpointhook`` replaces it whole.

    >>> debugger() in (PDB, HOOK, None)
    True
    """
    if sys.breakpointhook is not sys.__breakpointhook__:
        return HOOK
    target = "" if sys.flags.ignore_environment else os.environ.get("PYTHONBREAKPOINT", "")
    if target == _DISABLED:
        return None
    return PDB if target in _DEFAULT_TARGETS else HOOK


def caller_frame(frame: types.FrameType, modules: Iterable[str]) -> Optional[types.FrameType]:
    """The first frame from ``frame`` outwards whose module is not one of ``modules``.

    >>> import inspect
    >>> caller_frame(inspect.currentframe(), ()) is inspect.currentframe()
    True
    """
    skipped = set(modules)
    while frame is not None and frame.f_globals.get("__name__") in skipped:
        frame = frame.f_back
    return frame


def stop_in(frame: Optional[types.FrameType], message: str) -> bool:
    """Enter the debugger so that it stops next in ``frame``; False when it is disabled.

    ``message`` goes to stderr first, only when a debugger starts. With pdb,
    the caller must run no Python function between this return and giving
    control back to ``frame`` (pdb is already stepping: a call would stop
    there, in the caller's code). Another hook stops in this function.

    >>> stop_in(inspect.currentframe(), "set breakpoints, then c\\n")   # doctest: +SKIP
    set breakpoints, then c
    > <stdin>(1)<module>()
    (Pdb)
    """
    which = debugger()
    if which is None:
        return False
    sys.stderr.write(message)
    sys.stderr.flush()
    sys.stdout.flush()
    if which == PDB and frame is not None:
        import pdb
        pdb.Pdb().set_trace(frame)
    else:
        breakpoint()    # the hook in charge: an IDE's debugger, ipdb, ...
    return True
