"""Structuring: turning regions of a code object's control flow into statements.

One module per construct family:

- :mod:`.walker` walks a code object's normalised ops and dispatches each
  region to its family (straight-line statements and the jumps that leave a
  block live here);
- :mod:`.chains` reads a test's operands and jumps off the ops;
- :mod:`.conditionals` parses such a chain of conditional jumps as
  ``and``/``or``/``not``;
- :mod:`.ifs` rebuilds ``if``/``elif``/``else``, ``assert`` and conditional
  expressions from a test and the branches after it;
- :mod:`.loops` rebuilds ``for`` and ``while`` loops, their ``else``, ``break``
  and ``continue``;
- :mod:`.comprehensions` rebuilds comprehensions from their loops;
- :mod:`.exceptions` rebuilds ``try``/``except``/``finally``;
- :mod:`.withs` rebuilds ``with`` and ``async with``;
- :mod:`.except_star` the ``except*`` clauses of 3.11+;
- :mod:`.clauses` what both kinds of except clause read alike;
- :mod:`.match` the ``match`` statement;
- :mod:`.signatures` runs of ops compared by name, how copied code is recognised.

Nothing here asks which CPython made the code: version idioms are rewritten
into one IR by :mod:`depyf.bytecode.normalize` before structuring starts.
Each family has tests of its own on op lists written by hand in that IR
(``tests/test_structure_<family>.py``, through ``tests/structure_ops.py``).
"""
