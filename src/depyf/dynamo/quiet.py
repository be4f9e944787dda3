"""Work put off until a quiet spell: one daemon thread for the process.

A compile's guards exist once Dynamo has finished it, right after torch has
flushed the CPU's caches to time them (``profile_guard_manager``). Rendered
then, one compile at a time, they cost about twice what they cost one after
another; and a model's compiles come in bursts (a graph break is followed by
the compile of its resume function at once). So a session does not write a
compile's full-code and meta files at the moment the guards come, but asks
for them here: they are written once no compile has asked for ``QUIET``
seconds, or when the block ends, or at the interpreter's exit, whichever
comes first. A process killed (``os._exit``, a signal) within ``QUIET`` of a
compile loses that compile's full-code and meta files; its transformed code
is on disk already. ``DEPYF_QUIET_SECONDS=0`` in the environment writes them
at once instead.

The thread lives while something is pending. An action runs on it, outside
the writer's lock, so a long one holds nobody but its owner up; one that raises
is dropped (the owner's own guard reports its failures). A forked child
starts with nothing pending and without the parent's thread: the parent
writes what it asked for.

Example::

    >>> later = Quiet(quiet=0.01)
    >>> done = []
    >>> later.request("me", lambda: done.append(1))
    >>> later.run_pending(); done
    [1]
"""
from __future__ import annotations

import atexit
import os
import threading
import time
from typing import Callable, Dict, Hashable, List, Optional

#: the environment variable that sets the quiet spell in seconds (0: write at
#: once, in the thread that asks, as a process that may die any moment wants)
QUIET_ENV = "DEPYF_QUIET_SECONDS"


def quiet_seconds(environ=os.environ, default: float = 0.5) -> float:
    """Seconds without a request before the pending actions run.

    >>> quiet_seconds({}), quiet_seconds({QUIET_ENV: "0"}), quiet_seconds({QUIET_ENV: "soon"})
    (0.5, 0.0, 0.5)
    """
    try:
        seconds = float(environ.get(QUIET_ENV, default))
    except ValueError:
        return default
    return seconds if seconds >= 0 else default


#: seconds without a request before the pending actions run
QUIET = quiet_seconds()


class Quiet:
    """Actions keyed by their owner, all run once ``quiet`` seconds pass
    without a new request from anyone (or on :meth:`run_pending`)."""

    def __init__(self, quiet: float = QUIET):
        self.quiet = quiet
        self._exit_hook = False
        self._reset()

    def _reset(self) -> None:
        self._pid = os.getpid()
        self._cond = threading.Condition(threading.Lock())
        self._due: Dict[Hashable, Callable[[], None]] = {}
        self._deadline = 0.0
        self._thread: Optional[threading.Thread] = None

    def _ours(self) -> bool:
        if self._pid != os.getpid():
            self._reset()       # a forked child: the parent's lock and thread are not its own
            return False
        return True

    def request(self, owner: Hashable, action: Callable[[], None]) -> None:
        """Run ``action`` (in place of ``owner``'s pending one) after a quiet spell."""
        self._ours()
        if self.quiet <= 0:
            self.cancel(owner)
            _run([action])
            return
        with self._cond:
            self._due[owner] = action
            # (one deadline for all: a burst of compiles ends for everyone at once)
            self._deadline = time.monotonic() + self.quiet
            # A waiting thread is not woken: the deadline only moves later, which
            # it finds when the earlier one passes. (Woken at each compile, it took a
            # turn of the interpreter's lock each time: a third of its CPU time.)
            if self._thread is None:
                self._start()

    def cancel(self, owner: Hashable) -> None:
        """Forget ``owner``'s pending action (it does the work itself now)."""
        if self._ours():
            with self._cond:
                self._due.pop(owner, None)
                if not self._due:
                    self._cond.notify()     # (the thread ends)

    def pending(self, owner: Hashable) -> bool:
        """Whether ``owner`` has an action waiting."""
        if not self._ours():
            return False
        with self._cond:
            return owner in self._due

    def run_pending(self) -> None:
        """Run every pending action now, in this thread (the interpreter's exit)."""
        if not self._ours():
            return
        with self._cond:
            actions = self._take()
            self._cond.notify()     # (the thread, waiting out the spell, ends)
        _run(actions)

    def _take(self) -> List[Callable[[], None]]:
        """The pending actions, forgotten (the caller holds the lock)."""
        actions = list(self._due.values())
        self._due.clear()
        return actions

    def _start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name="depyf-quiet-writer", daemon=True)
        self._thread.start()
        if not self._exit_hook:
            # (atexit runs in the main thread, before the interpreter stops daemon threads)
            atexit.register(self.run_pending)
            self._exit_hook = True

    def _loop(self) -> None:
        # (a forked child makes its lock anew, but never runs this thread: the
        # lock it waits on is always the writer's own)
        while True:
            with self._cond:
                if not self._due:
                    # Nothing pending: the thread ends (the next request starts
                    # another), so that a process forking between bursts forks
                    # with no thread of depyf's.
                    self._thread = None
                    return
                wait = self._deadline - time.monotonic()
                if wait > 0:
                    self._cond.wait(wait)
                    continue
                actions = self._take()
            _run(actions)


def _run(actions: List[Callable[[], None]]) -> None:
    for action in actions:
        try:
            action()
        except Exception:       # the owner reports its own failures; the thread goes on
            pass


#: the process's one writer
LATER = Quiet()
