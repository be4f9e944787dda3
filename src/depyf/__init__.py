"""depyf: decompile Python bytecode and explain what torch.compile did.

Importing depyf never imports torch; the torch layer loads on first use.
"""
__version__ = "0.1.0"

__all__ = ["__version__"]
