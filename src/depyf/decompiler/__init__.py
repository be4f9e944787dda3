"""Bytecode to source: version-neutral from here on.

``decompile(obj)`` takes a function, method, lambda, code object, CodeRecord
or .pyc path and returns Python source. See ``docs/design.md`` for the
pipeline: normalise (bytecode package) -> walk and structure -> ast -> render.
"""
