"""Times published decompilers on the corpus, inside their own virtual environment.

Run by ``decompile_speed.py --others VENV_DIR`` with that environment's
interpreter, never imported by depyf: it uses only the standard library and
whichever published tools the environment holds (each one optional). It reads
a JSON list of module paths on standard input, compiles each module with its
own interpreter (the same bytecode the target interpreter gives depyf), times
each tool on every code object of them, each on its own (published tools
handle functions, not always modules or class bodies; one that decompiles
nested code inside its parent does that work again) and prints one JSON
object::

    {"version": "3.11", "tools": {"depyf 0.20.0 (PyPI)": {"objects": 5441,
                                  "failed": 800, "seconds": 3.2}}}

An object a tool fails on counts with the time until it gave up. A tool stops
once it has used the time budget (first argument, seconds); ``objects`` then
says how many it got through.

Example::

    $ echo '["/usr/lib/python3.11/abc.py"]' | VENV/bin/python bench/others_runner.py 60
"""
import contextlib
import io
import json
import sys
import time
import warnings


def _published_depyf():
    import importlib.util
    import depyf
    if importlib.util.find_spec("depyf.bytecode") is not None:
        return None             # this project's depyf (an editable install), not the published one
    return "depyf %s (PyPI)" % getattr(depyf, "__version__", ""), depyf.decompile


def _code_deparse(module):
    def tool():
        mod = __import__(module)
        deparse = mod.code_deparse

        def run(code):
            deparse(code, out=io.StringIO())
        return "%s %s" % (module, getattr(mod, "__version__", "")), run
    return tool


#: name -> loader returning (label, decompile(code)); a tool missing here is skipped
TOOLS = {
    "depyf": _published_depyf,
    "uncompyle6": _code_deparse("uncompyle6"),
    "decompyle3": _code_deparse("decompyle3"),
}


class _OutOfTime(BaseException):
    """The tool's time budget ran out (a BaseException: tools catch Exception)."""


@contextlib.contextmanager
def _deadline(seconds: float):
    """Interrupt the tool after ``seconds`` (one object can take minutes), where
    the platform has SIGALRM; elsewhere the budget is not enforced."""
    import signal
    if not hasattr(signal, "setitimer"):
        yield
        return

    def expire(signum, frame):
        raise _OutOfTime()
    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    except _OutOfTime:
        pass
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def walk(code):
    """``code`` and every code object nested in it."""
    yield code
    for const in code.co_consts:
        if hasattr(const, "co_code"):
            yield from walk(const)


def main() -> int:
    budget = float(sys.argv[1]) if len(sys.argv) > 1 else 120.0
    paths = json.load(sys.stdin)
    warnings.simplefilter("ignore")     # published tools warn per object
    objects = []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                objects.extend(walk(compile(f.read(), path, "exec")))
        except Exception:       # not this interpreter's syntax: not timed, as for depyf
            continue
    results = {}
    for name, load in TOOLS.items():
        try:
            loaded = load()
        except Exception:       # not installed in this environment
            continue
        if loaded is None:
            continue
        label, decompile = loaded
        failed = done = 0
        start, cpu_start = time.perf_counter(), time.process_time()
        with contextlib.redirect_stdout(io.StringIO()), _deadline(budget):  # some print
            for code in objects:
                try:
                    decompile(code)
                except _OutOfTime:
                    break           # the object it was on does not count
                except Exception:
                    failed += 1
                done += 1
        seconds = time.perf_counter() - start
        results[label.strip()] = {"objects": done, "of": len(objects), "failed": failed,
                                  "seconds": seconds, "cpu_seconds": time.process_time() - cpu_start}
    json.dump({"version": "%d.%d" % sys.version_info[:2], "tools": results}, sys.stdout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
