"""The version-neutral instruction IR that the decompiler reads.

:func:`depyf.bytecode.normalize.normalize` turns a decoded code object of any
version into a list of :class:`Op`. An Op has a normalised name (see
``normalize`` for the vocabulary), a resolved argument, a jump ``target``
(another Op, never an offset), the source ``line``, and the exception
``handler`` that covers it, if any.

Example::

    >>> from depyf.bytecode.normalize import normalize
    >>> [op.name for op in normalize(lambda x: x + 1).ops]
    ['LOAD_FAST', 'LOAD_CONST', 'BINARY_OP', 'RETURN_VALUE']
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional


#: normalised ops control never falls through (the next op in the code is no flow)
NO_FALLTHROUGH = frozenset({"JUMP", "RETURN_VALUE", "RAISE_VARARGS", "RERAISE"})
#: the normalised conditional jumps that pop their test
POP_JUMPS = ("POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE")
#: a lazy ``IMPORT_NAME``'s ``extra`` (3.15+, PEP 810: see normalize.lazy_imports)
LAZY_IMPORT = "lazy"


@dataclass(eq=False)
class Handler:
    """Where an exception raised by an Op goes (3.11-style, for every version).

    ``depth`` is the stack depth the handler starts from (before the exception
    is pushed), ``lasti`` whether the raising offset is pushed too.
    """
    target: "Op"
    depth: int
    lasti: bool

    def same_as(self, other: Optional["Handler"]) -> bool:
        return (other is not None and other.target is self.target
                and other.depth == self.depth and other.lasti == self.lasti)

    def same_place(self, other: Optional["Handler"]) -> bool:
        """``other`` is this handler, or one at the same code and stack depth
        (whether the raising offset is pushed aside): the statements a region
        belongs to are told apart by where their handlers go."""
        return other is self or (other is not None and other.target is self.target
                                 and other.depth == self.depth)


class Op:
    __slots__ = ("name", "arg", "target", "line", "offset", "handler", "index", "extra")

    def __init__(self, name, arg=None, target=None, line=None, offset=-1, handler=None,
                 extra=None):
        self.name: str = name
        self.arg = arg
        self.target: Optional[Op] = target
        self.line: Optional[int] = line
        self.offset: int = offset
        self.handler: Optional[Handler] = handler
        self.index: int = -1
        #: facts a pass wants to keep (e.g. the original opname) without new fields
        self.extra = extra

    def __repr__(self) -> str:
        text = "%s@%d" % (self.name, self.offset)
        if self.target is not None:
            text += " ->%d" % self.target.offset
        elif self.arg is not None:
            text += " %r" % (self.arg,)
        return "<%s>" % text


def same_handler(a: "Op", b: "Op") -> bool:
    """Exceptions ``a`` and ``b`` raise go to the same handler (or neither is covered)."""
    return a.handler is b.handler or (a.handler is not None and a.handler.same_as(b.handler))


@dataclass
class Function:
    """A normalised code object: its ops plus what the decompiler needs of the record."""
    code: object            # the CodeRecord
    ops: List[Op]
    #: ids of the ops a dropped 3.12+ generator wrapper did not cover (None: no
    #: wrapper); an explicit statement is covered where the compiler's own jumps
    #: are not, which tells `if c: continue` from `if not c: ...` in generators
    unguarded: Optional[set] = None
    #: the op names decoded (before the passes; None: not known). A name no
    #: pass makes is in the ops only if it is here.
    decoded_names: Optional[set] = None
    #: ids of the jumps that are a ``continue`` statement's own where the layout
    #: does not say so: the conditional jumps back made of a jump over a JUMP
    #: that had a line of its own (3.12+; see
    #: ``normalize.backward_conditional_jumps``), and the jumps to the top test
    #: of a rotated while loop (3.10-3.13; see ``rotated_loops``)
    jump_statements: set = field(default_factory=set)
    #: id of a jump -> the line of the NOP it went to, which only jumps reach
    #: (a ``break`` whose jump to the next op the compiler dropped, 3.10+;
    #: see ``normalize.jumps_to_line_nops``)
    line_nop_jumps: dict = field(default_factory=dict)
    #: id of a jump back to a loop top's NOP -> the NOP's line: the loop is
    #: ``while True:`` (3.10-3.13; see ``normalize.while_true_lines``)
    while_true_lines: dict = field(default_factory=dict)
    #: id of a try body's first op -> the line of the ``try:`` before it, where
    #: that is a line of its own (3.14+: see normalize.try_line_nops)
    try_lines: dict = field(default_factory=dict)
    #: ids of the jumps back a pass put in: ``normalize.closing_jumps_back``'s
    #: (3.14+ threads them only where an if ends a loop's body outside a try's
    #: else) and ``rotated_loops``' (3.10-3.13: in place of a bottom test, where
    #: an if ending the body went whether or not a try's else holds it)
    rebuilt_jumps_back: set = field(default_factory=set)
    #: ids of the conditional jumps back 3.12+'s ``normalize.backward_conditional_jumps``
    #: made of a jump over the compiler's own jump back, on the test's line: an
    #: if's way to the end of a loop body (no ``continue`` of the source)
    branch_ends_back: set = field(default_factory=set)
    #: ids of the first op of each rotated while loop's body (3.10-3.13; see
    #: ``rotated_loops``): the bottom copy showed where the test ends, which
    #: a top test alone does not (``while a: if b: break`` reads as
    #: ``while a and not b`` when the break's jump leaves as the test's does)
    loop_bodies: set = field(default_factory=set)
    #: id of a YIELD_FROM -> the op laid out just before its out-of-line
    #: CLEANUP_THROW block (3.12+: where its statement's handlers were compiled;
    #: see ``normalize.send_loops``)
    yield_from_cleanups: dict = field(default_factory=dict)
    #: the compiler moved the code only exception handlers reach after all other
    #: code (3.12+), so what follows a try body in layout says nothing of
    #: whether it was the statement's else (see ``normalize.cold_handlers``)
    cold_handlers: bool = False
    #: the compiler keeps the unreached way out of a block after a jump that
    #: leaves it (3.8/3.9; see ``normalize.dead_ways_out``)
    dead_ways_out: bool = False
    #: a try statement's else is laid out after its handlers, so the normal
    #: code between the body's covered ops and the handler is the end of the
    #: body's last statement (3.8/3.9; see ``normalize.else_after_handlers``)
    else_after_handlers: bool = False

    def reindex(self) -> None:
        for i, op in enumerate(self.ops):
            op.index = i
