"""Module and class bodies that end in an if/else, a try/except/else or a loop
whose ways out the compiler sends to its closing return (issue 19: the lazy-import
``__init__.py`` of transformers came out with ``return None`` in the module body
on 3.11, and a module's last loop lost its ``break`` on 3.10+)."""
from typing import TYPE_CHECKING


class OptionalDependencyNotAvailable(Exception):
    pass


class _LazyModule:
    def __init__(self, name, structure):
        TRACE.append(("lazy", name, sorted(structure)))


def is_available(what):
    TRACE.append(("available?", what))
    return what == "torch"


_import_structure = {"configuration": ["Config"]}


class Checking:
    # a class body ends like a module: in the compiler's closing return
    found = []
    if TYPE_CHECKING or found == []:
        try:
            if not is_available("tf"):
                raise OptionalDependencyNotAvailable()
        except OptionalDependencyNotAvailable:
            pass
        else:
            found.append("tf")
    else:
        found.append("lazy")


class BothBranchesTry:
    found = []
    if not TYPE_CHECKING:
        try:
            if not is_available("torch"):
                raise OptionalDependencyNotAvailable()
        except OptionalDependencyNotAvailable:
            found.append("none")
        else:
            found.append("torch")
    else:
        found.append("checking")


class LoopBreak:
    n = 0
    seen = []
    while n < 5:
        n += 1
        if n == 3:
            break
        seen.append(n)


class ForBreak:
    seen = []
    for x in range(5):
        if x == 2:
            break
        seen.append(x)
    else:
        seen.append("else")


class WhileElse:
    n = 0
    while n < 3:
        n += 1
        if n == 5:
            break
    else:
        n = -n


class TryInLoop:
    seen = []
    for x in range(4):
        try:
            if x == 2:
                raise KeyError(x)
        except KeyError:
            seen.append("k")
            break
        seen.append(x)


def function_form(checking, available, log):
    if checking:
        try:
            if not available:
                raise OptionalDependencyNotAvailable()
        except OptionalDependencyNotAvailable:
            pass
        else:
            log.append("import")
    else:
        log.append("lazy")


CHECKS = [("function_form", (a, b, [])) for a in (0, 1) for b in (0, 1)]

if TYPE_CHECKING:
    try:
        if not is_available("torch"):
            raise OptionalDependencyNotAvailable()
    except OptionalDependencyNotAvailable:
        pass
    else:
        from .modeling import Model
else:
    import sys

    sys.modules[__name__] = _LazyModule(__name__, _import_structure)
