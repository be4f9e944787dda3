"""``depyf.debug()``: step through what torch.compile made, in the dumped files.

``prepare_debug`` already points the code that runs at the files it dumps
(see :mod:`.breakpoints`): the transformed code of each compiled frame, the
graph modules' ``forward`` and Inductor's ``call()``. So a breakpoint set in
one of those files, with pdb or an IDE, is hit whenever that code runs again.
``debug()`` marks the part of the program to step through: it says which
files can take breakpoints, pauses in the debugger (on the first line of the
``with`` body, see :mod:`.pause`) while you set them, and warns when Dynamo
compiles something new there that no dump shows.

Example::

    with depyf.prepare_debug("./dump"):
        compiled(x)
    with depyf.debug():
        compiled(x)        # (Pdb) stops here: b ./dump/__transformed_code_0_for_f.py:9, then c
"""
from __future__ import annotations

import ast
import contextlib
import inspect
import os
import sys
import warnings
from typing import List, Optional

from .pause import caller_frame, stop_in
from .sessions import active_sessions
from .warning import DepyfWarning

_SHOWN = 12      # files listed by name before "and N more"
# Frames between the user's ``with`` and the pause: this generator and contextlib's __enter__.
_OWN_MODULES = (__name__, "contextlib")


@contextlib.contextmanager
def debug(*, pause: bool = True):
    """Pause in the debugger, then run the block so that breakpoints in what ``prepare_debug`` dumped are hit.

    On entry it lists the files that take breakpoints and starts the debugger
    through Python's breakpoint hook: pdb stops on the first line of the
    block, where ``b <file>:<line>`` sets a breakpoint in a dumped file and
    ``c`` runs on to it; ``PYTHONBREAKPOINT`` is honoured (an IDE's debugger
    or ipdb takes over; ``PYTHONBREAKPOINT=0`` does not pause). There is no
    pause when nothing was dumped, nor with ``pause=False`` (for scripts,
    and for breakpoints set beforehand). Code Dynamo compiles anew inside
    the block (a recompile) is only dumped, and so only stoppable, inside a
    ``prepare_debug`` block.

    with depyf.prepare_debug("./dump"):
        compiled(x)
    with depyf.debug():             # pauses; depyf.debug(pause=False) does not
        compiled(x)
    """
    if not isinstance(pause, bool):
        raise TypeError("depyf.debug(pause=...) takes True or False, not %r" % (pause,))
    try:
        import torch  # noqa: F401
    except ImportError as e:
        raise ImportError("depyf.debug needs torch (pip install torch)") from e
    from .breakpoints import debugging, apply_all, dumps

    apply_all()
    known = dumps()
    if not known:
        warnings.warn("depyf.debug(): nothing was dumped in this process; run the compiled code "
                      "inside depyf.prepare_debug(dir) first to get files to set breakpoints in",
                      DepyfWarning, stacklevel=3)
    else:
        sys.stderr.write(_listing(known))
        sys.stderr.flush()
    watch = _NewCompiles() if not _dumping() else None
    debugging[0] += 1
    try:
        if pause and known:
            # Last before the yield: pdb is stepping once this returns (see pause.stop_in).
            stop_in(caller_frame(inspect.currentframe(), _OWN_MODULES), _instructions(known))
        yield
    finally:
        debugging[0] -= 1
        if watch is not None:
            watch.close()


def _instructions(known) -> str:
    """What to do at the pause, with a breakpoint command that works as shown."""
    example = _example(known)
    where = "b %s:%d" % example if example else "b <file>:<line>"
    return ("depyf.debug(): paused in the debugger before the block runs. Set breakpoints in the files "
            "above, e.g.\n    %s\nthen continue with c (in an IDE: set them in the editor, then resume). "
            "depyf.debug(pause=False) does not pause.\n" % where)


def _example(known) -> Optional[tuple]:
    """(file, line of its first statement): a frame's transformed code first, then a
    resume function's, then any other dumped file."""
    files = sorted(f for _, fs in known for f in fs)
    files.sort(key=lambda f: (not os.path.basename(f).startswith("__transformed_code_"), "_resume_in_" in f))
    for path in files:
        try:
            with open(path, encoding="utf-8") as f:
                tree = ast.parse(f.read())
        except (OSError, SyntaxError, ValueError):
            continue
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return path, node.body[0].lineno
    return None


def _listing(known) -> str:
    lines = []
    for path, files in known:
        names = sorted(set(os.path.basename(f) for f in files))
        if not names:
            lines.append("depyf.debug(): no code points into %s (see depyf's warnings)\n" % path)
            continue
        shown = ", ".join(names[:_SHOWN]) + (" and %d more" % (len(names) - _SHOWN) if len(names) > _SHOWN else "")
        lines.append("depyf.debug(): breakpoints in %s are hit (%d files: %s)\n" % (path, len(names), shown))
    return "".join(lines)


def _dumping() -> bool:
    return bool(active_sessions)


class _NewCompiles:
    """Warns once when Dynamo compiles inside ``debug()`` with no dump open."""

    def __init__(self):
        self.handle = None
        self.seen: List[str] = []
        from .torch_compat import feature
        register = feature("bytecode_hook")
        # (without the hook, as on an older torch: no warning, nothing else changes)
        self.handle = register(self._hook) if register is not None else None

    def _hook(self, code, new_code):
        try:
            if not self.seen and not _dumping():
                warnings.warn("depyf.debug(): Dynamo compiled %s anew outside prepare_debug; that code is "
                              "not dumped, so breakpoints cannot stop in it"
                              % getattr(code, "co_qualname", code.co_name), DepyfWarning, stacklevel=2)
            self.seen.append(code.co_name)
        except Exception:
            pass
        return None

    def close(self) -> None:
        if self.handle is not None:
            self.handle.remove()
            self.handle = None
