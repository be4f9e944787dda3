"""depyf: decompile Python bytecode and explain what torch.compile did.

Importing depyf never imports torch; the torch layer loads on first use.

Example::

    >>> import depyf
    >>> print(depyf.decompile(lambda x: x + 1))     # doctest: +SKIP
    _lambda = lambda x: x + 1
"""
from .decompiler.api import DecompilationError, decompile
from .decompiler.compat import Decompiler

__version__ = "0.1.0"

__all__ = ["DecompilationError", "Decompiler", "__version__", "debug", "decompile", "install",
           "prepare_debug", "uninstall"]

# The torch layer loads on first use, so that importing depyf never imports torch.
_DYNAMO = ("prepare_debug", "debug", "install", "uninstall")


def __getattr__(name):
    if name in _DYNAMO:
        from . import dynamo
        return getattr(dynamo, name)
    raise AttributeError("module 'depyf' has no attribute %r" % name)
