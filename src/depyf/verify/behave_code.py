"""Run a module and its decompilation side by side, in the target interpreter itself.

This file is a STANDALONE module: CPython 3.8 to 3.13 loads it (``compare_code.py``
answers its ``behave`` op with :func:`op_behave`), so it uses only the standard
library, never imports depyf, and sticks to syntax that 3.8 accepts. The host
side is :mod:`depyf.verify.behaviour`, which also imports it to run the host's
own version in-process.

A case module lists what to run in ``CHECKS``: ``(function name, args)`` or
``(function name, args, kwargs)``. Each side (the original and the candidate)
runs in a namespace of its own, where ``TRACE`` is a list the code may append
to; each side takes its own ``CHECKS``, so arguments are that side's objects.
For each check, on each side, what is recorded (:func:`run_check`):

* the outcome: the value returned, or the exception raised (type, arguments,
  and the types of its ``__context__`` and ``__cause__``); a generator is
  driven to its end, each value it yields recorded;
* ``TRACE`` as the call left it (cleared before each call), and what it printed;
* the arguments after the call (what the call changed in them).

The module itself counts as a check too: whether executing it raised, and its
public names with their values. Texts go by ``repr`` with memory addresses
blanked. A call that runs longer than :data:`TIME_LIMIT` seconds is stopped (a
``TimeLimit`` outcome), so a decompiled endless loop is a difference, not a hang.

Example::

    >>> original = "def f(x):\\n    return not not x\\nCHECKS = [('f', (0,))]\\n"
    >>> candidate = "def f(x):\\n    return x\\nCHECKS = [('f', (0,))]\\n"
    >>> [c["same"] for c in behave(original, candidate)["checks"]]
    [True, False]
"""
import contextlib
import copy
import io
import re
import signal
import threading
import types

#: Seconds one call (or a module's execution) may run.
TIME_LIMIT = 5.0

#: Values a generator may yield before the rest is not looked at.
MAX_YIELDS = 200

#: Longest text of one value.
_TEXT_LIMIT = 2000

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


class TimeLimit(BaseException):
    """A call ran past :data:`TIME_LIMIT` (a BaseException: no ``except Exception`` stops it)."""


def text(value):
    """``repr(value)`` without memory addresses, cut to a bounded length."""
    try:
        shown = repr(value)
    except BaseException as exc:  # a repr that fails is a fact to compare too
        shown = "<repr failed: %s>" % type(exc).__name__
    shown = _ADDRESS.sub(" at 0x?", shown)
    return shown if len(shown) <= _TEXT_LIMIT else shown[:_TEXT_LIMIT] + "..."


def exception_text(exc):
    """Type, arguments and chained types of a raised exception."""
    context = exc.__context__
    cause = exc.__cause__
    return "%s%s context=%s cause=%s" % (
        type(exc).__name__, text(exc.args),
        type(context).__name__ if context is not None else None,
        type(cause).__name__ if cause is not None else None)


class _Timer:
    """Raise TimeLimit in the main thread after TIME_LIMIT seconds (where signals allow)."""

    def __enter__(self):
        self.armed = hasattr(signal, "setitimer") and \
            threading.current_thread() is threading.main_thread()
        if self.armed:
            self.previous = signal.signal(signal.SIGALRM, self._expire)
            signal.setitimer(signal.ITIMER_REAL, TIME_LIMIT)
        return self

    @staticmethod
    def _expire(signum, frame):
        raise TimeLimit("ran past %s s" % TIME_LIMIT)

    def __exit__(self, *exc):
        if self.armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.previous)
        return False


def _drive(gen):
    """The values a generator yields, then how it ended."""
    steps = []
    for _ in range(MAX_YIELDS):
        try:
            steps.append("yield " + text(next(gen)))
        except StopIteration as stop:
            steps.append("return " + text(stop.value))
            return steps
        except TimeLimit:
            raise
        except BaseException as exc:  # how the generator ends is the outcome
            steps.append("raise " + exception_text(exc))
            return steps
    steps.append("... (more)")
    gen.close()
    return steps


def _call(func, args, kwargs):
    try:
        with _Timer():
            value = func(*args, **kwargs)
            if isinstance(value, types.GeneratorType):
                return ["generator"] + _drive(value)
            return "return " + text(value)
    except TimeLimit:
        return "raise TimeLimit"
    except BaseException as exc:  # the point is to compare exceptions too
        return "raise " + exception_text(exc)


def _fresh(args):
    try:
        return copy.deepcopy(args)
    except Exception:  # not copyable: the check's own objects then
        return args


def _split(check):
    """``(name, args, kwargs)`` of one CHECKS entry."""
    name, args = check[0], tuple(check[1]) if len(check) > 1 else ()
    kwargs = dict(check[2]) if len(check) > 2 else {}
    return name, args, kwargs


def run_check(namespace, check):
    """What one check does on one side: a dict of texts (see the module docstring)."""
    trace = namespace.get("TRACE")
    if isinstance(trace, list):
        del trace[:]
    try:
        name, args, kwargs = _split(check)
    except Exception as exc:  # a malformed check is an outcome too
        return {"label": text(check), "outcome": "bad check " + exception_text(exc)}
    args, kwargs = _fresh((args, kwargs))
    label = "%s(%s)" % (name, ", ".join([text(a) for a in args]
                                        + ["%s=%s" % (k, text(v)) for k, v in kwargs.items()]))
    func = namespace.get(name)
    if func is None:
        return {"label": label, "outcome": "missing %s" % name}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        outcome = _call(func, args, kwargs)
    return {"label": label, "outcome": outcome,
            "trace": text(trace) if isinstance(trace, list) else None,
            "printed": printed.getvalue()[:_TEXT_LIMIT], "args": text((args, kwargs))}


def _module_summary(namespace, depth=0):
    """Public names of an executed module with their values: functions and
    modules by kind and name, classes by name and (one level down) their own
    names the same way."""
    shown = {}
    for name, value in namespace.items():
        if name.startswith("__") and name != "__all__":
            continue
        if isinstance(value, type) and depth == 0:
            shown[name] = "class %s %s" % (value.__qualname__,
                                            text(_module_summary(vars(value), depth + 1)))
        elif isinstance(value, (types.FunctionType, type, types.ModuleType)):
            shown[name] = "%s %s" % (type(value).__name__,
                                      getattr(value, "__qualname__", value.__name__))
        else:
            shown[name] = text(value)
    return sorted(shown.items())


def run_module(source, filename):
    """(namespace, module outcome dict) of executing ``source`` as a fresh module;
    a source that does not compile gives (None, error text)."""
    try:
        code = compile(source, filename, "exec")
    except (SyntaxError, ValueError, TypeError, OverflowError, RecursionError, MemoryError) as exc:
        return None, "%s: %s" % (type(exc).__name__, exc)
    namespace = {"__name__": "__behaviour_case__", "TRACE": []}
    printed = io.StringIO()
    try:
        # (the target's stdout carries the answers to the host)
        with contextlib.redirect_stdout(printed), _Timer():
            exec(code, namespace)
        outcome = "ok"
    except TimeLimit:
        outcome = "raise TimeLimit"
    except BaseException as exc:  # a module that raises is compared as it stands
        outcome = "raise " + exception_text(exc)
    trace = namespace.get("TRACE")
    summary = {"label": "<module>", "outcome": outcome,
               "trace": text(trace) if isinstance(trace, list) else None,
               "printed": printed.getvalue()[:_TEXT_LIMIT],
               "args": text(_module_summary(namespace))}
    return namespace, summary


def behave(original, candidate, filename="<case>"):
    """Run both sources; ``{"ok", "compiles", "error", "checks"}`` where each
    check is ``{"label", "original", "candidate", "same"}`` (the module first).
    ``ok`` is false only when the original itself does not compile."""
    orig_ns, orig_module = run_module(original, filename)
    if orig_ns is None:
        return {"ok": False, "error": "original does not compile: " + orig_module}
    checks = list(orig_ns.get("CHECKS") or ())
    orig_runs = [orig_module] + [run_check(orig_ns, c) for c in checks]
    cand_ns, cand_module = (None, "no candidate source") if candidate is None \
        else run_module(candidate, filename + " (candidate)")
    if cand_ns is None:
        return {"ok": True, "compiles": False, "error": cand_module,
                "checks": [{"label": r["label"], "original": r, "candidate": None, "same": False}
                           for r in orig_runs]}
    cand_checks = list(cand_ns.get("CHECKS") or ())
    cand_runs = [cand_module] + [run_check(cand_ns, c) for c in cand_checks]
    pairs = []
    for k in range(max(len(orig_runs), len(cand_runs))):
        a = orig_runs[k] if k < len(orig_runs) else None
        b = cand_runs[k] if k < len(cand_runs) else None
        pairs.append({"label": (a or b)["label"], "original": a, "candidate": b, "same": a == b})
    return {"ok": True, "compiles": True, "error": None, "checks": pairs}


def op_behave(req):
    """The ``behave`` op of compare_code.py: ``original``, ``candidate``, ``filename``."""
    return behave(req["original"], req.get("candidate"), req.get("filename") or "<case>")
