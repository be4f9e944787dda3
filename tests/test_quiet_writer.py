"""The quiet writer (depyf.dynamo.quiet): work put off until requests stop."""
import os
import threading
import time

import pytest

from depyf.dynamo.quiet import Quiet


# (these tests fork a process that has threads, on purpose)
FORKS_WITH_THREADS = pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")


def writers():
    return [t for t in threading.enumerate() if t.name == "depyf-quiet-writer"]


def wait_for(predicate, seconds=10.0):
    end = time.monotonic() + seconds
    while not predicate() and time.monotonic() < end:
        time.sleep(0.005)
    return predicate()


def test_an_action_runs_once_after_the_quiet_spell():
    later, done = Quiet(quiet=0.2), []
    later.request("a", lambda: done.append("a"))
    time.sleep(0.05)
    assert done == []
    assert wait_for(lambda: done)
    time.sleep(0.3)
    assert done == ["a"]


def test_requests_in_a_burst_put_every_action_off_until_the_burst_ends():
    later, done = Quiet(quiet=0.15), []
    start = time.monotonic()
    later.request("a", lambda: done.append(("a", time.monotonic())))
    for _ in range(4):
        time.sleep(0.05)
        later.request("b", lambda: done.append(("b", time.monotonic())))
    last_request = time.monotonic()
    assert wait_for(lambda: len(done) == 2)
    assert sorted(name for name, _ in done) == ["a", "b"]
    # "a", asked for first, waited for the burst's end too
    assert all(when >= last_request + 0.1 for _, when in done), (start, last_request, done)


def test_a_newer_request_replaces_the_owners_pending_action():
    later, done = Quiet(quiet=0.1), []
    later.request("a", lambda: done.append(1))
    later.request("a", lambda: done.append(2))
    assert wait_for(lambda: done)
    time.sleep(0.2)
    assert done == [2]


def test_a_cancelled_action_never_runs():
    later, done = Quiet(quiet=0.1), []
    later.request("a", lambda: done.append(1))
    later.cancel("a")
    assert not later.pending("a")
    time.sleep(0.3)
    assert done == []


def test_run_pending_runs_them_now_in_the_callers_thread():
    later, threads = Quiet(quiet=60), []
    later.request("a", lambda: threads.append(threading.current_thread()))
    assert later.pending("a")
    later.run_pending()
    assert threads == [threading.current_thread()] and not later.pending("a")


def test_run_pending_lets_the_waiting_thread_end():
    later, done = Quiet(quiet=60), []
    later.request("a", lambda: done.append(1))
    time.sleep(0.2)         # the writer's thread waits out the spell by now
    later.run_pending()
    assert done == [1] and wait_for(lambda: not writers(), 2.0)


def test_an_action_that_raises_does_not_stop_the_writer():
    later, done = Quiet(quiet=0.05), []

    def fails():
        raise RuntimeError("boom")

    later.request("a", fails)
    time.sleep(0.2)
    later.request("b", lambda: done.append(1))
    assert wait_for(lambda: done)


@FORKS_WITH_THREADS
@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork on this platform")
def test_a_forked_child_starts_with_nothing_pending_and_a_writer_of_its_own():
    later, done = Quiet(quiet=0.05), []
    later.request("parent", lambda: done.append("parent"))
    # the parent's lock held at the fork, as the writer's thread may hold it
    with later._cond:
        pid = os.fork()
    if pid == 0:        # the child: exit status 0 only if all went as it should
        ok = not later.pending("parent")
        child = []
        later.request("child", lambda: child.append(1))
        ok = ok and wait_for(lambda: child, 5.0) and "parent" not in done
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 0
    assert wait_for(lambda: done == ["parent"])


@FORKS_WITH_THREADS
@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork on this platform")
def test_a_child_forked_while_another_thread_collects_rarely_gets_its_threshold_back():
    import gc
    from depyf.decompiler.api import rare_gc
    before = gc.get_threshold()
    inside, leave = threading.Event(), threading.Event()

    def writer():       # the quiet writer, inside rare_gc at the fork
        with rare_gc():
            inside.set()
            leave.wait(10)

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        assert inside.wait(10) and gc.get_threshold() != before
        pid = os.fork()
        if pid == 0:
            ok = gc.get_threshold() == before
            with rare_gc():         # and rare_gc works on in the child
                ok = ok and gc.get_threshold() != before
            os._exit(0 if ok and gc.get_threshold() == before else 1)
        _, status = os.waitpid(pid, 0)
        assert os.WEXITSTATUS(status) == 0
    finally:
        leave.set()
        thread.join()
    assert gc.get_threshold() == before


@FORKS_WITH_THREADS
@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork on this platform")
def test_a_session_forked_while_the_writer_holds_it_is_usable_in_the_child(tmp_path):
    pytest.importorskip("torch")
    import depyf
    with depyf.prepare_debug(str(tmp_path)) as session:
        held, leave = threading.Event(), threading.Event()

        def writer():       # the quiet writer, writing this session's files at the fork
            with session._lock:
                held.set()
                leave.wait(10)

        thread = threading.Thread(target=writer)
        thread.start()
        try:
            assert held.wait(10)
            pid = os.fork()
            if pid == 0:
                got = session._lock.acquire(timeout=5)
                os._exit(0 if got else 1)
            _, status = os.waitpid(pid, 0)
            assert os.WEXITSTATUS(status) == 0
        finally:
            leave.set()
            thread.join()


def test_no_quiet_spell_runs_the_action_at_once_in_the_callers_thread():
    later, threads = Quiet(quiet=0), []
    later.request("a", lambda: threads.append(threading.current_thread()))
    assert threads == [threading.current_thread()] and not later.pending("a")


def test_the_quiet_spell_comes_from_the_environment():
    from depyf.dynamo.quiet import QUIET_ENV, quiet_seconds
    assert quiet_seconds({QUIET_ENV: "2.5"}) == 2.5
    assert quiet_seconds({QUIET_ENV: "-1"}) == quiet_seconds({}) == 0.5


def test_the_thread_ends_when_nothing_is_pending():
    later, done = Quiet(quiet=0.05), []
    later.request("a", lambda: done.append(1))
    assert writers()
    assert wait_for(lambda: done) and wait_for(lambda: not writers())
    later.request("b", lambda: done.append(2))      # a new burst, a new thread
    assert wait_for(lambda: done == [1, 2]) and wait_for(lambda: not writers())
    later.request("c", lambda: done.append(3))
    later.cancel("c")
    assert wait_for(lambda: not writers()) and done == [1, 2]


def test_requests_in_a_burst_do_not_wake_the_waiting_writer():
    # Each wake-up costs the writer's thread a turn of the interpreter lock, in
    # the middle of the compiles: a burst moves the deadline later, which the
    # thread finds out when the earlier one passes.
    later, done = Quiet(quiet=0.3), []
    later.request("a", lambda: done.append("a"))
    wakeups = []
    notify = later._cond.notify
    later._cond.notify = lambda *args: (wakeups.append(1), notify(*args))[-1]
    for owner in "bcdefgh":
        later.request(owner, lambda owner=owner: done.append(owner))
    assert wakeups == []
    assert wait_for(lambda: len(done) == 8)
    assert wait_for(lambda: not writers())
