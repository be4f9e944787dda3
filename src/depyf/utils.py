"""Small helpers depyf's users and test scripts import from ``depyf.utils``.

Example::

    >>> from depyf.utils import safe_create_directory
    >>> safe_create_directory("./depyf_output")        # doctest: +SKIP
"""
from __future__ import annotations

import os


def safe_create_directory(path: str) -> None:
    """Make ``path`` (and its parents) unless it is already a directory.

    Several processes may call it for the same path at once (torch's
    multiprocessing ranks dumping side by side): losing that race is not an
    error, only a path that still is no directory afterwards is.

    >>> safe_create_directory("./depyf_output/run1")    # doctest: +SKIP
    """
    try:
        os.makedirs(path, exist_ok=True)
    except OSError:
        # exist_ok still raises when a file holds the name, or on some
        # filesystems when another process made it a moment earlier
        if not os.path.isdir(path):
            raise
