"""``depyf.install()``: decompiled source in Dynamo's bytecode log.

``TORCH_LOGS=+bytecode`` (or ``torch._logging.set_logs(bytecode=True)``)
makes Dynamo log the bytecode of each frame it compiles, before and after.
After ``install()``, a bytecode hook adds two records to the same log for
each compile: the original code and the code Dynamo made, both decompiled to
Python. Nothing is decompiled while that log is off, and the code Dynamo runs
is never changed.

Example::

    $ TORCH_LOGS=+bytecode python -c "import depyf; depyf.install(); ..."
    MODIFIED BYTECODE toy ...
    DECOMPILED ORIGINAL SOURCE toy /path/toy.py line 3
    def toy(a, b): ...
    DECOMPILED MODIFIED SOURCE toy /path/toy.py line 3
    def __transformed_code_for_toy(a, b): ...
"""
from __future__ import annotations

import keyword
import logging
import threading

from . import torch_compat
from .warning import DepyfWarning

_lock = threading.Lock()
_handle = None


def install() -> None:
    """Add the decompiled source of each compiled frame (original and
    transformed) to Dynamo's bytecode log; calling it again does nothing.

    import depyf, torch
    torch._logging.set_logs(bytecode=True)
    depyf.install()
    """
    global _handle
    try:
        import torch  # noqa: F401
    except ImportError as e:
        raise ImportError("depyf.install needs torch (pip install torch)") from e
    with _lock:
        if _handle is not None:
            return
        register = torch_compat.feature("bytecode_hook")
        if register is None:
            torch_compat.warn_missing("install()", ["bytecode_hook"], DepyfWarning, loses=(
                "the bytecode log stays without decompiled source; everything else works"))
            return
        _handle = register(_log_sources)


def uninstall() -> None:
    """Undo :func:`install`: the bytecode log is torch's own again.

    depyf.uninstall()
    """
    global _handle
    with _lock:
        if _handle is not None:
            _handle.remove()
            _handle = None


def _log_sources(code, new_code):
    """The bytecode hook: log, never replace (returns None)."""
    try:
        log = torch_compat.bytecode_log()
        if log.isEnabledFor(logging.DEBUG):
            log.debug(_record("DECOMPILED ORIGINAL SOURCE", code, code, _name(code)))
            log.debug(_record("DECOMPILED MODIFIED SOURCE", code, new_code, _transformed_name(code),
                              readable=True))
    except Exception:       # a log line is never worth a failed compile
        pass
    return None


def _name(code) -> str:
    from .dump import identifier
    name = identifier(code.co_name)
    return name + "_" if keyword.iskeyword(name) else name      # <lambda>: no ``def lambda(``


def _transformed_name(code) -> str:
    return "__transformed_code_for_%s" % _name(code)


def _record(prefix: str, code, shown, name: str, readable: bool = False) -> str:
    """Like torch's own records: ``PREFIX name file line N`` and the text
    (of code Dynamo made, ``readable``, its readable form)."""
    from .fullcode import readable_hints, safe_decompile
    text, _problem = safe_decompile(shown, name, readable=readable_hints(code, {}) if readable else None)
    return "%s %s %s line %d \n%s" % (prefix, code.co_name, code.co_filename, code.co_firstlineno, text)
