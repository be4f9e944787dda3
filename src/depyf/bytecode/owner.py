"""The object that owns the code behind a callable.

A callable is often not the function whose code runs: a bound method runs its
``__func__``, ``functools.lru_cache`` and ``functools.wraps`` wrappers run
their ``__wrapped__``, a ``functools.partial`` its ``func``, an instance its
class's ``__call__``. :func:`code_owner` follows those links (in that order,
as the published depyf does) to the function or code object at the end.

Example::

    >>> import functools
    >>> def add(a, b):
    ...     return a + b
    >>> code_owner(functools.partial(functools.lru_cache(None)(add), 1)) is add
    True
"""
from __future__ import annotations

import functools
import types

from .code import CodeRecord

#: What :func:`code_owner` accepts, for error messages.
ACCEPTED = ("a function, method, lambda, code object (or CodeRecord), functools.partial, "
            "a wrapper with __wrapped__ (functools.lru_cache, functools.wraps), or an instance "
            "whose class defines __call__ in Python")

# Links are followed at most this many times: an object whose __getattr__
# invents attributes (a mock) would otherwise be followed for ever.
_MAX_LINKS = 100


def code_owner(obj):
    """The code object, :class:`~depyf.bytecode.CodeRecord` or function whose
    code ``obj`` runs; ``TypeError`` naming ``obj`` and what is accepted when
    there is none (a class, a builtin, an instance of a C type).

    >>> class Adder:
    ...     def __call__(self, a, b):
    ...         return a + b
    >>> code_owner(Adder()) is Adder.__call__
    True
    """
    current = obj
    for _ in range(_MAX_LINKS):
        if isinstance(current, (CodeRecord, types.CodeType)):
            return current
        if isinstance(current, type):
            raise TypeError("the class %r has no code to read (its body's code is gone once "
                            "the class exists: decompile its methods one by one); accepted: %s"
                            % (current.__qualname__, ACCEPTED))
        step = _next_link(current)
        if step is None:
            if isinstance(getattr(current, "__code__", None), types.CodeType):
                return current
            runs = "" if current is obj else ", which runs %s," % _describe(current)
            raise TypeError("%s%s has no Python bytecode; accepted: %s"
                            % (_describe(obj), runs, ACCEPTED))
        current = step
    raise TypeError("following the __func__/__wrapped__/func/__call__ links of %s did not "
                    "end after %d steps (a cycle?); accepted: %s"
                    % (_describe(obj), _MAX_LINKS, ACCEPTED))


def _next_link(obj):
    """What ``obj`` delegates its call to, or None where it runs its own code."""
    inner = getattr(obj, "__func__", None)        # bound method, classmethod, staticmethod
    if inner is not None:
        return inner
    inner = getattr(obj, "__wrapped__", None)     # lru_cache, functools.wraps
    if inner is not None:
        return inner
    if isinstance(obj, (functools.partial, functools.partialmethod)):
        return obj.func
    if isinstance(getattr(obj, "__code__", None), types.CodeType):
        return None
    # What calling an instance runs is its class's __call__, not an instance attribute.
    call = getattr(type(obj), "__call__", None)
    if isinstance(call, (types.FunctionType, types.MethodType)):
        return call
    return None


def _describe(obj) -> str:
    """``obj`` as an error message names it: its type, and its name if it has one."""
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    kind = type(obj).__name__
    return "%s %r" % (kind, name) if isinstance(name, str) else "an object of type %r" % kind
