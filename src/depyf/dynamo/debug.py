"""``depyf.debug()``: step through the code torch.compile made (not written yet)."""
from __future__ import annotations

import contextlib


@contextlib.contextmanager
def debug():
    """Run the code objects compiled from the dump of ``prepare_debug``, so that
    breakpoints in the dumped files are hit (not implemented yet).

    >>> with depyf.prepare_debug("./dump"):       # doctest: +SKIP
    ...     compiled(x)
    >>> with depyf.debug():
    ...     compiled(x)
    """
    raise NotImplementedError("depyf.debug() is not implemented yet")
    yield  # pragma: no cover
