"""``depyf.install()``: decompiled source in ``TORCH_LOGS=+bytecode`` (not written yet)."""
from __future__ import annotations


def install() -> None:
    """Add decompiled source to Dynamo's bytecode log (not implemented yet).

    >>> depyf.install()        # doctest: +SKIP
    """
    raise NotImplementedError("depyf.install() is not implemented yet")


def uninstall() -> None:
    """Undo :func:`install` (not implemented yet)."""
    raise NotImplementedError("depyf.uninstall() is not implemented yet")
