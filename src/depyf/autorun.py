"""Watching a program that never imports depyf: ``DEPYF_DUMP_DIR=DIR python train.py``
(or ``torchrun ...``) dumps what torch.compile did into ``DIR``, as
``depyf run`` does.

An install of depyf, regular or editable (``pip install -e .``: setup.py adds
the file to setuptools' editable wheel), puts ``depyf_autorun.pth`` into site-packages; the
interpreter runs its single line at start-up, which costs one environment
lookup when ``DEPYF_DUMP_DIR`` is unset and imports this module only when it
is set. Nothing imports torch early: :func:`activate` waits for the program's
own ``import torch``, then enters :func:`depyf.prepare_debug` for the rest of
the process and writes the report at exit.

Under ``torchrun`` (``RANK`` and ``WORLD_SIZE`` in the environment) each rank
dumps into ``DIR/rank_<RANK>``.

Example::

    $ DEPYF_DUMP_DIR=depyf_dump torchrun --nproc_per_node 2 train.py
    $ ls depyf_dump
    rank_0  rank_1
"""
from __future__ import annotations

import atexit
import importlib.abc
import logging
import os
import sys
from typing import Optional

log = logging.getLogger("depyf")

ENV = "DEPYF_DUMP_DIR"
#: set by depyf itself once a process is being watched, so nothing activates twice
_ACTIVE_ENV = "DEPYF_AUTORUN_ACTIVE_PID"

_state = {"context": None, "base": None, "dump_dir": None, "report": True}


def dump_dir_for_process(base: str, environ=os.environ) -> str:
    """``base`` for a single process, ``base/rank_<RANK>`` under torchrun (or
    any launcher that sets ``RANK``); prepare_debug itself applies this.

    >>> dump_dir_for_process("d", {"RANK": "1", "WORLD_SIZE": "2"})
    'd/rank_1'
    >>> dump_dir_for_process("d", {})
    'd'
    """
    rank = environ.get("RANK")
    if rank is not None and rank.isdigit():
        return os.path.join(base, "rank_%s" % rank)
    return base


def activate(base: Optional[str] = None, report: bool = True) -> Optional[str]:
    """Watch this process: dump into ``base`` (default ``$DEPYF_DUMP_DIR``) from
    the moment torch is imported; returns the dump folder, or None when
    nothing is to be done."""
    base = base or os.environ.get(ENV)
    if not base or _state["dump_dir"] is not None:
        return _state["dump_dir"]
    if os.environ.get(_ACTIVE_ENV) == str(os.getpid()):
        return None
    os.environ[_ACTIVE_ENV] = str(os.getpid())
    _state["base"] = os.path.abspath(base)
    dump_dir = _state["dump_dir"] = os.path.abspath(dump_dir_for_process(base))
    _state["report"] = report
    if "torch" in sys.modules:
        _start()
    else:
        sys.meta_path.insert(0, _TorchWatcher())
    atexit.register(finish)
    return dump_dir


def _start() -> None:
    if _state["context"] is not None:
        return
    try:
        import depyf
        context = depyf.prepare_debug(_state["base"])     # it adds rank_<r> itself
        context.__enter__()
    except Exception as e:      # never stop the user's program
        log.warning("depyf: could not start dumping into %s: %s: %s",
                    _state["dump_dir"], type(e).__name__, e)
        return
    _state["context"] = context


def finish() -> Optional[str]:
    """Leave prepare_debug and write the report (idempotent); the report's path."""
    context, _state["context"] = _state["context"], None
    dump_dir = _state["dump_dir"]
    if context is not None:
        try:
            context.__exit__(None, None, None)
        except Exception as e:
            log.warning("depyf: finishing the dump in %s failed: %s: %s",
                        dump_dir, type(e).__name__, e)
    if dump_dir is None or not _state["report"] or not os.path.isdir(dump_dir):
        return None
    try:
        from .dynamo.report import write_report
    except ImportError:
        return None
    try:
        return write_report(dump_dir)
    except Exception as e:
        log.warning("depyf: writing the report for %s failed: %s: %s",
                    dump_dir, type(e).__name__, e)
        return None


class _TorchWatcher(importlib.abc.MetaPathFinder):
    """Starts dumping right after ``torch`` finishes importing."""

    def find_spec(self, name, path=None, target=None):
        if name != "torch":
            return None
        sys.meta_path.remove(self)
        import importlib.util
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        original = loader.exec_module

        def exec_module(module):
            original(module)
            _start()
        loader.exec_module = exec_module
        return spec
