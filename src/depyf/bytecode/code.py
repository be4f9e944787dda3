"""A version-neutral record of a code object.

The .pyc reader builds :class:`CodeRecord` from marshalled data of any
supported version; :func:`from_live` builds one from a code object of the
running interpreter. Everything downstream reads only this record, so a 3.8
file and a 3.13 function look alike apart from ``version`` and their bytes.

Example::

    >>> def f(x): return x + 1
    >>> rec = from_live(f.__code__)
    >>> rec.name, rec.varnames
    ('f', ('x',))
"""
from __future__ import annotations

import sys
import types
from dataclasses import dataclass, field
from typing import Optional, Tuple

# Code flags of a signature (the inspect module's), the same on every version.
CO_VARARGS = 0x04
CO_VARKEYWORDS = 0x08
CO_ASYNC_GENERATOR = 0x200
# 3.11+ co_localspluskinds bits (Include/internal/pycore_code.h).
CO_FAST_HIDDEN = 0x10
CO_FAST_LOCAL = 0x20
CO_FAST_CELL = 0x40
CO_FAST_FREE = 0x80


class frozendict(dict):  # noqa: N801 (named as the builtin it stands for)
    """A marshalled 3.15 ``frozendict`` constant on a host without that builtin
    (named like it, so its repr and type name read the same): a dict that
    refuses changes and hashes by its items.

    >>> d = frozendict({"a": 1})
    >>> d, d["a"], hash(d) == hash(frozendict(a=1))
    (frozendict({'a': 1}), 1, True)
    """
    __slots__ = ()

    def __repr__(self) -> str:
        return "frozendict(%s)" % (dict.__repr__(self) if self else "")

    def __hash__(self) -> int:
        return hash(frozenset(self.items()))

    def _refuse(self, *args, **kwargs):
        raise TypeError("'frozendict' object is immutable")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _refuse
    __ior__ = _refuse


@dataclass(eq=False)
class CodeRecord:
    version: Tuple[int, int]
    argcount: int = 0
    posonlyargcount: int = 0
    kwonlyargcount: int = 0
    nlocals: int = 0
    stacksize: int = 0
    flags: int = 0
    code: bytes = b""
    consts: tuple = ()
    names: Tuple[str, ...] = ()
    varnames: Tuple[str, ...] = ()
    freevars: Tuple[str, ...] = ()
    cellvars: Tuple[str, ...] = ()
    filename: str = ""
    name: str = ""
    qualname: str = ""
    firstlineno: int = 0
    #: lnotab (3.8, 3.9), linetable (3.10) or location table (3.11+)
    linetable: bytes = b""
    exceptiontable: bytes = b""
    #: 3.11+: the names and kinds of the fast-locals array; older versions get
    #: the equivalent built from varnames, cellvars and freevars.
    localsplusnames: Tuple[str, ...] = ()
    localspluskinds: bytes = b""
    #: where the record came from, for error messages: the file path and the
    #: byte offset of the code object's marshalled data
    path: Optional[str] = None
    file_offset: Optional[int] = None
    #: byte offset of ``code`` inside the file (None for live code)
    code_offset: Optional[int] = None
    live: Optional[types.CodeType] = field(default=None, repr=False)
    #: the marshalled bytes the record was read from, on the record
    #: :func:`~depyf.bytecode.pyc.unmarshal` returns (its own interpreter can
    #: load them to check a decompilation against)
    marshalled: Optional[bytes] = field(default=None, repr=False)

    def __repr__(self) -> str:
        return "<CodeRecord %s %s line %s py%d.%d>" % (
            self.qualname or self.name, self.path or "?", self.firstlineno, *self.version)

    @property
    def cell_and_free(self) -> Tuple[str, ...]:
        """Names indexed by a <=3.10 cell/free argument."""
        return self.cellvars + self.freevars

    def iter_code_consts(self):
        """Nested code records in ``consts``, in order."""
        for c in self.consts:
            if isinstance(c, CodeRecord):
                yield c

    def walk(self):
        """This record and every nested one, depth first."""
        stack = [self]
        while stack:
            rec = stack.pop()
            yield rec
            stack.extend(reversed(list(rec.iter_code_consts())))


@dataclass(frozen=True)
class Parameters:
    """A code object's parameters by kind, in ``def`` order."""
    posonly: Tuple[str, ...]
    regular: Tuple[str, ...]
    vararg: Optional[str]
    kwonly: Tuple[str, ...]
    kwarg: Optional[str]

    def text(self) -> str:
        """The parameter list of a ``def`` (no defaults, no annotations).

        >>> parameters(("a", "b", "d", "c", "e"), 2, 1, 1, CO_VARARGS | CO_VARKEYWORDS).text()
        'a, /, b, *c, d, **e'
        """
        out = list(self.posonly) + (["/"] if self.posonly else []) + list(self.regular)
        if self.vararg is not None:
            out.append("*" + self.vararg)
        elif self.kwonly:
            out.append("*")
        out += self.kwonly
        if self.kwarg is not None:
            out.append("**" + self.kwarg)
        return ", ".join(out)


def parameters(varnames, argcount: int, posonlyargcount: int, kwonlyargcount: int,
               flags: int) -> Parameters:
    """The parameters among ``varnames`` (the first local names): the named
    positional ones, the keyword-only ones, then ``*args`` and ``**kw``.

    >>> parameters(("x", "rest", "tmp"), 1, 0, 0, CO_VARARGS)
    Parameters(posonly=(), regular=('x',), vararg='rest', kwonly=(), kwarg=None)
    """
    names = tuple(varnames)
    at = argcount + kwonlyargcount
    vararg = kwarg = None
    if flags & CO_VARARGS:
        vararg = names[at]
        at += 1
    if flags & CO_VARKEYWORDS:
        kwarg = names[at]
    return Parameters(posonly=names[:posonlyargcount], regular=names[posonlyargcount:argcount],
                      vararg=vararg, kwonly=names[argcount:argcount + kwonlyargcount], kwarg=kwarg)


def split_localsplus(names, kinds):
    """Derive (varnames, cellvars, freevars) from 3.11+ localsplus data.

    A cell that is also an argument appears once in localsplus with both
    LOCAL and CELL bits, and in both ``co_varnames`` and ``co_cellvars``.
    """
    varnames, cellvars, freevars = [], [], []
    for name, kind in zip(names, kinds):
        if kind & CO_FAST_LOCAL:
            varnames.append(name)
        if kind & CO_FAST_CELL:
            cellvars.append(name)
        if kind & CO_FAST_FREE:
            freevars.append(name)
    return tuple(varnames), tuple(cellvars), tuple(freevars)


def build_localsplus(varnames, cellvars, freevars):
    """The 3.11+ localsplus (names, kinds) of a code object given its name tuples."""
    names = list(varnames)
    kinds = [CO_FAST_LOCAL] * len(names)
    for c in cellvars:
        if c in varnames:
            kinds[names.index(c)] |= CO_FAST_CELL
        else:
            names.append(c)
            kinds.append(CO_FAST_CELL)
    for f in freevars:
        names.append(f)
        kinds.append(CO_FAST_FREE)
    return tuple(names), bytes(kinds)


def from_live(code: types.CodeType, _host=None) -> CodeRecord:
    """Build a record from a code object of the running interpreter."""
    if not isinstance(code, types.CodeType):
        raise TypeError("expected a code object, got %r" % type(code).__name__)
    host = _host or sys.version_info[:2]
    consts = tuple(from_live(c, host) if isinstance(c, types.CodeType) else c
                   for c in code.co_consts)
    linetable = getattr(code, "co_linetable", None)
    if linetable is None or host < (3, 10):
        linetable = code.co_lnotab
    names, kinds = build_localsplus(code.co_varnames, code.co_cellvars, code.co_freevars)
    return CodeRecord(
        version=host,
        argcount=code.co_argcount,
        posonlyargcount=code.co_posonlyargcount,
        kwonlyargcount=code.co_kwonlyargcount,
        nlocals=code.co_nlocals,
        stacksize=code.co_stacksize,
        flags=code.co_flags,
        code=code.co_code,
        consts=consts,
        names=code.co_names,
        varnames=code.co_varnames,
        freevars=code.co_freevars,
        cellvars=code.co_cellvars,
        filename=code.co_filename,
        name=code.co_name,
        qualname=getattr(code, "co_qualname", code.co_name),
        firstlineno=code.co_firstlineno,
        linetable=linetable,
        exceptiontable=getattr(code, "co_exceptiontable", b""),
        localsplusnames=names,
        localspluskinds=kinds,
        live=code,
    )
