"""torch.compile integration: dump, debug and log what Dynamo does.

Importing this package does not import torch; each entry point imports it
when called.

    >>> import depyf                                   # doctest: +SKIP
    >>> with depyf.prepare_debug("./dump"):
    ...     compiled(x)
"""
from .debug import debug
from .hooks import prepare_debug
from .logging import install, uninstall

__all__ = ["debug", "install", "prepare_debug", "uninstall"]
