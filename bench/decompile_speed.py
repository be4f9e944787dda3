"""Decompilation speed: code objects per second over the standard-library corpus.

For each installed interpreter 3.8-3.13 the corpus modules are compiled by that
interpreter (not timed), read with depyf's own unmarshaller, then decompiled in
one process on one core, ``--passes`` times (default 3); the table gives code
objects/s per version of the fastest pass, by the wall clock and by the CPU
time of the process (on a shared machine, a virtual one especially, the wall
clock also counts time other work took the core, and neighbours slow a whole
pass down by up to a third: the fastest pass is the least disturbed one).

Those passes decompile without validation (``validate=False``: the
decompiler alone). The columns after them time the same passes with
validation, as ``depyf.decompile`` does by default: each module's text is
compiled again and compared with the original, in this process for this
interpreter's own version, by the target interpreter for the others (its CPU
time is counted too: the target is stopped at the end of each pass to read
it), and what is found different is decompiled again through the fallback.

Run from the project root::

    PYTHONPATH=src python3 bench/decompile_speed.py [--versions 3.8,3.13] [--modules 65] [--passes 3]
        [--others VENV_DIR ...] [--others-budget 120] [--cfg]

``--cfg`` adds two rows per version for the control-flow graph
(:mod:`depyf.decompiler.cfg`) of every code object, from its normalised ops
(normalising is not timed: decompiling does it anyway): building the graph,
and building it with every analysis it offers worked out (reachability,
dominators, post-dominators, loops, handlers and their code); their "failed"
column gives the CPU time as a share of decompiling the same code objects.

``--others VENV_DIR`` (repeatable) adds rows for published decompilers
installed in a separate virtual environment (never a dependency of depyf),
e.g. ``python3.11 -m venv /tmp/others && /tmp/others/bin/pip install depyf``
(the published depyf needs only astor and dill; it decompiles code objects of
the interpreter it runs on, so the row joins that venv's version). They run in
a subprocess of that venv (``bench/others_runner.py``), on the same modules,
each code object on its own, for at most ``--others-budget`` seconds per tool;
their rows say how many objects they got through and how many they failed on.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src"))

from depyf.decompiler.api import decompile_report  # noqa: E402
from depyf.decompiler.constants import definitions_text  # noqa: E402
from depyf.decompiler.verdicts import VERDICTS, format_counts  # noqa: E402
from depyf.verify.corpus import corpus_modules  # noqa: E402
from depyf.verify.interpreters import installed_versions  # noqa: E402
from depyf.verify.roundtrip import TargetSession, close_sessions  # noqa: E402


def measure(version: str, count: int, passes: int = 1, validate: bool = False, verdicts=None):
    """(modules, code objects, wall s, CPU s) of decompiling the corpus: the
    fastest of ``passes`` passes over it (each decompiles everything afresh;
    nothing is cached between passes). With ``validate`` the CPU time
    includes the target interpreter's, and ``verdicts`` (a dict) gets the
    objects counted by verdict."""
    records = []
    with TargetSession(version) as target:
        for path in corpus_modules(version, count):
            with open(path, encoding="utf-8") as f:
                source = f.read()
            try:
                records.append(target.compile_module(source, path))
            except Exception:       # a module the target cannot compile is not ours to time
                continue
    objects = sum(1 for rec in records for _ in rec.walk())
    best = None
    for _ in range(max(1, passes)):
        close_sessions()
        start, cpu_start, children = time.perf_counter(), time.process_time(), _children_cpu()
        counts = dict.fromkeys(VERDICTS, 0)
        for rec in records:
            # (what depyf.decompile does, with the verdicts)
            report = decompile_report(rec, define_constants=True, validate=validate)
            definitions_text(report.definitions) + report.source
            for verdict, n in report.counts().items():
                counts[verdict] += n
        close_sessions()        # (a child's CPU time is known once it has ended)
        if verdicts is not None:
            verdicts.update(counts)
        took = (time.perf_counter() - start,
                time.process_time() - cpu_start + _children_cpu() - children)
        best = took if best is None or took[1] < best[1] else best
    return (len(records), objects) + best


def measure_cfg(version: str, count: int, passes: int = 1):
    """(code objects, CPU s to build the graphs, CPU s to build them and work
    out every analysis): the fastest of ``passes`` passes. Each module's code
    objects are normalised (not timed) just before their graphs are built, so
    that no more is alive at a time than decompiling the module keeps."""
    from depyf.bytecode.normalize import normalize
    from depyf.decompiler.cfg import build_cfg
    records = []
    with TargetSession(version) as target:
        for path in corpus_modules(version, count):
            with open(path, encoding="utf-8") as f:
                source = f.read()
            try:
                records.append(target.compile_module(source, path))
            except Exception:
                continue
    objects = sum(1 for rec in records for _ in rec.walk())
    best = None
    for _ in range(max(1, passes)):
        build = full = 0.0
        for rec in records:
            funcs = [normalize(code) for code in rec.walk()]
            start = time.process_time()
            for func in funcs:
                build_cfg(func)
            middle = time.process_time()
            for func in funcs:
                _analyse(build_cfg(func))
            end = time.process_time()
            build += middle - start
            full += end - middle
        best = (build, full) if best is None or build < best[0] else best
    return (objects,) + best


def _analyse(cfg) -> None:
    """Work out everything the graph offers (each is kept once worked out)."""
    cfg.reachable, cfg.reachable_normal, cfg.idom, cfg.ipdom, cfg.loops
    for region in cfg.handlers:
        region.code

def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def venv_python(venv: str) -> str:
    for name in ("bin/python", "Scripts/python.exe"):
        path = os.path.join(venv, name)
        if os.path.exists(path):
            return path
    raise SystemExit("no interpreter in virtual environment %s" % venv)


def venv_version(python: str) -> str:
    return subprocess.run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                          capture_output=True, text=True, check=True).stdout.strip()


def measure_others(python: str, version: str, count: int, budget: float):
    """Rows for the published tools in ``python``'s environment: [(label, result)]."""
    paths = list(corpus_modules(version, count))
    runner = os.path.join(os.path.dirname(os.path.abspath(__file__)), "others_runner.py")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    done = subprocess.run([python, runner, str(budget)], input=json.dumps(paths),
                          capture_output=True, text=True, env=env, cwd=os.path.dirname(runner))
    if done.returncode:
        print("  %s: runner failed: %s" % (python, done.stderr.strip().splitlines()[-1:]),
              file=sys.stderr)
        return []
    return sorted(json.loads(done.stdout)["tools"].items())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--versions", default=None, help="comma-separated, default: all installed")
    parser.add_argument("--modules", type=int, default=65, help="corpus size per version")
    parser.add_argument("--others", action="append", default=[], metavar="VENV_DIR",
                        help="a virtual environment holding published decompilers to time "
                             "alongside (repeatable; each joins its interpreter's version)")
    parser.add_argument("--others-budget", type=float, default=120.0, metavar="SECONDS",
                        help="time limit per published tool and version (default 120)")
    parser.add_argument("--passes", type=int, default=3,
                        help="passes over each corpus; the fastest (by CPU time) is shown: a shared "
                             "machine slows some passes down, never speeds one up (default 3)")
    parser.add_argument("--cfg", action="store_true",
                        help="also time building each code object's control-flow graph, alone "
                             "and with all its analyses (rows 'cfg: ...'; 'failed' shows the "
                             "share of the decompile CPU time)")
    parser.add_argument("--no-validation", action="store_true",
                        help="leave out the passes with validation")
    args = parser.parse_args(argv)
    versions = args.versions.split(",") if args.versions else [
        "%d.%d" % v if isinstance(v, tuple) else str(v) for v in installed_versions()]
    others = {}
    for venv in args.others:
        python = venv_python(venv)
        others.setdefault(venv_version(python), []).append(python)
    row = "%-8s %-24s %8s %13s %8.2f %12.0f %8.2f %12.0f %14s %18s  %s"
    print("%-8s %-24s %8s %13s %8s %12s %8s %12s %14s %18s  %s" % (
        "version", "tool", "modules", "code objects", "wall s", "objects/s", "CPU s",
        "objects/CPU s", "validated /s", "validated /CPU s", "failed"))
    found = []
    for version in versions:
        modules, objects, seconds, cpu = measure(version, args.modules, args.passes)
        checked = ("", "")
        if not args.no_validation:
            counts = {}
            _m, _o, v_seconds, v_cpu = measure(version, args.modules, args.passes, validate=True,
                                               verdicts=counts)
            checked = ("%.0f" % _rate(objects, v_seconds), "%.0f" % _rate(objects, v_cpu))
            found.append("%s validated: %s" % (version, format_counts(counts)))
        print(row % ((version, "depyf (this tree)", modules, objects, seconds, _rate(objects, seconds),
                      cpu, _rate(objects, cpu)) + checked + ("",)))
        if args.cfg:
            graphs, build, full = measure_cfg(version, args.modules, args.passes)
            for label, took in (("cfg: build", build), ("cfg: build + analyses", full)):
                print(row % (version, label, modules, graphs, took, _rate(graphs, took), took,
                             _rate(graphs, took), "", "", "%.1f%% of decompile" % (100 * took / cpu)))
        for python in others.get(version, []):
            for label, r in measure_others(python, version, args.modules, args.others_budget):
                done = "%d of %d" % (r["objects"], r["of"]) if r["objects"] < r["of"] \
                    else str(r["objects"])
                cpu = r.get("cpu_seconds", r["seconds"])
                print(row % (version, label[:24], "", done, r["seconds"], _rate(r["objects"], r["seconds"]),
                             cpu, _rate(r["objects"], cpu), "", "", r["failed"]))
    if found:
        print()
        print("\n".join(found))
    return 0


def _rate(objects, seconds):
    return objects / seconds if seconds else 0.0


if __name__ == "__main__":
    raise SystemExit(main())
