"""Guard managers as Python (STAND-IN: the real module lives on branch ``guards``).

This minimal version only exists so the dump can be built and tested; it lists
each leaf guard's ``verbose_code_parts`` as comments and gives no verdict of
its own. The interface is the one agreed between helpers::

    PRELUDE: str
    render_guards(guard_manager, name) -> GuardCode(source, count, lines)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import List

PRELUDE = "# guard helpers (stand-in: none needed)\n"


@dataclass
class GuardCode:
    source: str
    count: int
    lines: List[str] = field(default_factory=list)


def render_guards(guard_manager, name: str) -> GuardCode:
    """``def name(L, G)`` listing the guards of ``guard_manager`` (stand-in).

    >>> render_guards(entry.guard_manager, "__guard_0_for_f").source   # doctest: +SKIP
    """
    lines: List[str] = []
    root = getattr(guard_manager, "root", guard_manager)
    _collect(root, lines)
    body = ["    # %s" % line for line in lines] or ["    # (no guards)"]
    source = "def %s(L, G):\n%s\n    return True\n" % (name, "\n".join(body))
    return GuardCode(source=source, count=len(lines), lines=lines)


def _collect(manager, out: List[str]) -> None:
    for guard in list(manager.get_leaf_guards()):
        for part in guard.verbose_code_parts():
            out.append(" ".join(str(part).split()))
    for child in manager.get_child_managers():
        _collect(child, out)
    epilogue = getattr(manager, "get_epilogue_lambda_guards", None)
    if epilogue is not None:
        for guard in epilogue():
            for part in guard.verbose_code_parts():
                out.append(" ".join(str(part).split()))
