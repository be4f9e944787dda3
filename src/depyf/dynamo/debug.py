"""``depyf.debug()``: step through what torch.compile made, in the dumped files.

``prepare_debug`` already points the code that runs at the files it dumps
(see :mod:`.breakpoints`): the transformed code of each compiled frame, the
graph modules' ``forward`` and Inductor's ``call()``. So a breakpoint set in
one of those files, with pdb or an IDE, is hit whenever that code runs again.
``debug()`` marks the part of the program to step through: it says which
files can take breakpoints, can wait while you set them, and warns when
Dynamo compiles something new there that no dump shows.

Example::

    with depyf.prepare_debug("./dump"):
        compiled(x)
    with depyf.debug():
        breakpoint()       # (Pdb) b ./dump/__transformed_code_0_for_f.py:12
        compiled(x)
"""
from __future__ import annotations

import contextlib
import os
import sys
import warnings
from typing import List

_SHOWN = 12      # files listed by name before "and N more"


@contextlib.contextmanager
def debug(pause: bool = False):
    """Run the block so that breakpoints in the files ``prepare_debug`` dumped are hit.

    With ``pause=True`` it waits for Enter first, to let you set breakpoints in
    an IDE. Code Dynamo compiles anew inside the block (a recompile) is only
    dumped, and so only stoppable, inside a ``prepare_debug`` block.

    with depyf.prepare_debug("./dump"):
        compiled(x)
    with depyf.debug():
        compiled(x)
    """
    try:
        import torch  # noqa: F401
    except ImportError as e:
        raise ImportError("depyf.debug needs torch (pip install torch)") from e
    from .breakpoints import _debugging, apply_all, dumps
    from .hooks import DepyfWarning

    apply_all()
    known = dumps()
    if not known:
        warnings.warn("depyf.debug(): nothing was dumped in this process; run the compiled code "
                      "inside depyf.prepare_debug(dir) first to get files to set breakpoints in",
                      DepyfWarning, stacklevel=3)
    else:
        sys.stderr.write(_listing(known))
        sys.stderr.flush()
    if pause:
        input("depyf.debug(): set your breakpoints, then press Enter to go on ")
    watch = _NewCompiles() if not _dumping() else None
    _debugging[0] += 1
    try:
        yield
    finally:
        _debugging[0] -= 1
        if watch is not None:
            watch.close()


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
    from .hooks import active_sessions
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
                from .hooks import DepyfWarning
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
