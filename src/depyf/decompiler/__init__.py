"""Bytecode to source: version-neutral from here on.

``decompile(obj)`` takes a function, method, lambda, code object, CodeRecord,
.pyc path, or a callable that runs one (``functools.partial``, ``lru_cache``
wrapper, callable instance) and returns Python source. See ``docs/design.md`` for the
pipeline: normalise (bytecode package) -> walk and structure -> ast -> render.

Also importable from here, where the published depyf has them:
``Decompiler``, ``DecompilationError`` and ``decompile``.
"""
from .api import DecompilationError, decompile
from .compat import Decompiler

__all__ = ["DecompilationError", "Decompiler", "decompile"]
