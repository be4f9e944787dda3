"""The ``prepare_debug`` sessions open in this process, oldest first.

:func:`depyf.dynamo.hooks.prepare_debug` adds its session while its block
runs; the breakpoints of every open dump and ``depyf.debug()``'s question
"is anything being dumped now" read the list, without importing the hooks.

Example::

    >>> from depyf.dynamo.sessions import active_sessions
    >>> active_sessions            # outside every prepare_debug block
    []
"""
from __future__ import annotations

from typing import List

#: the :class:`~depyf.dynamo.hooks.Session` of each open block
active_sessions: List = []
