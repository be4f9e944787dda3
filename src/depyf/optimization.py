"""``TorchCompileWrapperWithCustomDispatcher``: run torch.compile's code without its guards.

torch.compile checks guards on each call to pick the code it compiled. A
program that already knows which compiled version fits (a serving loop that
knows whether a cache tensor is present, say) can skip that: the wrapper
collects the code objects Dynamo makes for its ``forward`` and runs one of
them directly with ``dispatch_to_code(i)``.

This works because Dynamo keeps a transformed code's arguments, cell and
free variables those of the original, so the transformed code can take the
place of ``forward.__code__`` for a call.

Importing this module imports torch (``import depyf`` alone does not).

Example::

    class Wrapper(TorchCompileWrapperWithCustomDispatcher):
        def __init__(self, model):
            self.model = model
            super().__init__(torch.compile(self.forward, backend="eager"))

        def forward(self, x, cache=None):
            return self.model(x, cache)

        def __call__(self, x, cache=None):
            if len(self.compiled_codes) < 2:         # still compiling both versions
                return self.compiled_callable(x, cache)
            with self.dispatch_to_code(0 if cache is None else 1):
                return self.forward(x, cache)
"""
from __future__ import annotations

import contextlib
import weakref
from abc import abstractmethod
from types import CodeType
from typing import Callable, Iterator, List

import torch

from .dynamo import torch_compat

class TorchCompileWrapperWithCustomDispatcher:
    """A torch.compile'd ``forward`` whose compiled versions can be called directly.

    A subclass implements ``forward`` (the code to compile), passes the
    callable ``torch.compile`` made (of ``self.forward``) to ``__init__``,
    and may override ``__call__`` to pick a compiled version itself:
    ``self.compiled_codes`` holds the code objects Dynamo made for this
    instance's ``forward``, in compile order, and inside
    ``with self.dispatch_to_code(i):`` calling ``self.forward`` runs the
    ``i``-th of them, with no guard checked.

    class Doubler(TorchCompileWrapperWithCustomDispatcher):
        def __init__(self):
            super().__init__(torch.compile(self.forward, backend="eager"))

        def forward(self, x):
            return x * 2

    d = Doubler(); d(torch.ones(2))           # compiles: len(d.compiled_codes) == 1
    with d.dispatch_to_code(0):
        d.forward(torch.ones(2))              # Dynamo's code, guards unchecked
    """

    def __init__(self, compiled_callable: Callable, use_custom_dispatcher: bool = True):
        register = _bytecode_hook_registrar()
        self.compiled_callable = compiled_callable
        self.original_code_object: CodeType = self.__class__.forward.__code__
        self.compiled_codes: List[CodeType] = []
        self.use_custom_dispatcher: bool = use_custom_dispatcher
        # The hook holds the wrapper weakly and goes with it: torch keeps its
        # hooks for the whole process.
        handle = register(_WeakHook(self))
        weakref.finalize(self, handle.remove)

    def __call__(self, *args, **kwargs):
        """Call the compiled callable (torch.compile picks the code by its guards).

        Subclasses override this to dispatch themselves; it may take more
        arguments than ``forward`` to decide.

        wrapper(x)        # same as wrapper.compiled_callable(x)
        """
        return self.compiled_callable(*args, **kwargs)

    @abstractmethod
    def forward(self, *args, **kwargs):
        """The code torch.compile compiles; subclasses define it.

        def forward(self, x):
            return self.model(x)
        """
        raise NotImplementedError("%s must define forward()" % type(self).__name__)

    def bytecode_hook(self, old_code: CodeType, new_code: CodeType) -> None:
        """Dynamo's bytecode hook: keep ``new_code`` when it was made for this
        instance's ``forward`` (other functions, and other instances of the
        class, which share its code object, are left alone). Never replaces
        Dynamo's code.

        wrapper.bytecode_hook(old, new)     # called by Dynamo, not by you
        """
        if old_code is not self.original_code_object:
            return None
        compiled_locals = torch_compat.locals_being_compiled(old_code)
        if compiled_locals is None:
            raise RuntimeError(
                "TorchCompileWrapperWithCustomDispatcher: cannot find the frame Dynamo is compiling "
                "(no %s() of %s on the stack of its bytecode hook in torch %s), so cannot tell which "
                "instance %s belongs to"
                % (torch_compat.COMPILE_FUNCTION + (torch.__version__, old_code.co_name)))
        if compiled_locals.get(_self_name(old_code)) is self:
            self.compiled_codes.append(new_code)
        return None

    @contextlib.contextmanager
    def dispatch_to_code(self, index: int) -> Iterator[None]:
        """Within the block, ``forward`` runs ``self.compiled_codes[index]``.

        The code is swapped on the class's ``forward`` (so for all its
        instances, and not thread-safe) and put back when the block ends,
        also by an exception.

        with wrapper.dispatch_to_code(1):
            out = wrapper.forward(x, cache)
        """
        if not -len(self.compiled_codes) <= index < len(self.compiled_codes):
            raise IndexError("dispatch_to_code(%d): %d code object(s) compiled so far"
                             % (index, len(self.compiled_codes)))
        function = self.__class__.forward
        function.__code__ = self.compiled_codes[index]
        try:
            yield
        finally:
            function.__code__ = self.original_code_object


class _WeakHook:
    """Calls the wrapper's ``bytecode_hook`` while the wrapper lives."""

    def __init__(self, wrapper: TorchCompileWrapperWithCustomDispatcher):
        self.wrapper = weakref.ref(wrapper)

    def __call__(self, old_code: CodeType, new_code: CodeType) -> None:
        wrapper = self.wrapper()
        if wrapper is not None:
            wrapper.bytecode_hook(old_code, new_code)
        return None


def _bytecode_hook_registrar():
    register = torch_compat.feature("bytecode_hook")
    if register is None:
        raise RuntimeError("TorchCompileWrapperWithCustomDispatcher needs %s, which torch %s lacks"
                           % (torch_compat.FEATURES["bytecode_hook"].where, torch.__version__))
    return register


def _self_name(code: CodeType) -> str:
    # forward's first argument, whatever it is called
    return code.co_varnames[0] if code.co_argcount else "self"
