"""The one exception structuring raises: this construct has no structured form.

Every part of the decompiler that reads ops into source raises it (the stack
machine, the structuring modules, the objects only generated code uses);
the caller catches it and falls back to the dispatch loop of
:mod:`depyf.decompiler.fallback` for that code object.

Example::

    >>> try:
    ...     raise DecompileFailure("no expression rule for NOP")
    ... except DecompileFailure as failure:
    ...     str(failure)
    'no expression rule for NOP'
"""


class DecompileFailure(Exception):
    """This construct has no structured form here; the caller falls back."""
