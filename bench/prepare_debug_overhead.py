"""Overhead of depyf.prepare_debug on torch.compile's cold compile.

Each test program of tests/dynamo_programs.py is compiled from cold
(``torch._dynamo.reset()`` first) and run, once plainly, once with depyf's
trace handler alone and once under ``prepare_debug``, one after the other,
in ``--repeat`` rounds of all the programs in one process; the table gives
the best time of each and their ratio (goal: below 1.10). The three runs of
a program take turns at going first (round r starts with the (r mod 3)-th):
the run after another program's dump finds the heap and the CPU's caches in
another state than the run after a plain compile, and a fixed order gave
that place to the plain run every time. The
default of 6 rounds puts each run in each place twice. The first,
untimed round warms torch's own lazy imports so that they count for neither.
"depyf own" is the CPU time spent inside depyf's hooks and at the context's
exit (``Session.own_seconds``): on a busy machine the difference of two
timings is noisy, this share is not; "own ratio" is (plain + own) / plain.
"paired" is the median, over rounds, of each round's prepare_debug/plain
ratio (the two runs a second apart), the total weighting programs by their
plain time: a shared machine's slow spells last longer than a round and
leave it alone, where they can shift either best time. "trace" is the plain
compile with depyf's handler on torch's structured trace keeping nothing:
what torch itself spends producing the records depyf reads its graphs from
(depyf's filter spares it the records nobody reads).

The dumps go where users put them, a folder in the current directory
(``--dump-root`` for another place), removed at the end. What creating a
file costs there is printed with the table: on a virtual machine's disk it
ranged from 30 to 370 us a file between folders of one file system (an
ext4 under /tmp with much churn), and a round of dumps creates ~90 files.

Each program's block ends before the half-second quiet spell after which a
session writes its guards and full code (``depyf.dynamo.quiet``): they are
written at the block's end, one function after another, as after any burst
of compiles; "depyf own" counts that work too, on whichever thread it ran.

Every run starts after a full garbage collection (untimed). Of torch's own
time, about a third is ``profile_guard_manager``, which flushes the CPU
caches at every compile to time the guards: depyf's work in its hooks starts
cold each time (1.5-2x its time in a warm loop).

Run from the project root with a torch installed::

    PYTHONPATH=src python bench/prepare_debug_overhead.py [--repeat 6] [--programs toy_example,mlp_train] [--faithful]

Inductor programs are left out unless named: their time is gcc's, and the FX
graph cache would make every round after the first a warm one.
"""
from __future__ import annotations

import argparse
import gc
import os
import shutil
import statistics
import sys
import tempfile
import time
import warnings

# CPU time of this process: on a shared machine wall time mostly measures the
# neighbours. (Inductor's compile workers are other processes: wall time there.)
CLOCK = time.process_time
MODES = ["plain", "trace", "prepare_debug"]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "src"))
sys.path.insert(0, os.path.join(ROOT, "tests"))


def main(argv=None) -> int:
    import torch
    import depyf
    import dynamo_programs as programs

    default = programs.plain_programs()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=6)
    parser.add_argument("--programs", default=",".join(default))
    parser.add_argument("--wall", action="store_true", help="wall-clock time instead of CPU time")
    parser.add_argument("--faithful", action="store_true",
                        help="dump the faithful form of Dynamo's code (prepare_debug(faithful=True))")
    parser.add_argument("--dump-root", default=os.curdir,
                        help="where the dumps go (a fresh folder inside it, removed at the end)")
    args = parser.parse_args(argv)
    global CLOCK
    if args.wall or any(programs.PROGRAMS[n][1] == "inductor" for n in args.programs.split(",")):
        CLOCK = time.perf_counter
    names = args.programs.split(",")
    warnings.simplefilter("ignore")

    def once(name, dump):
        program, backend = programs.PROGRAMS[name]
        torch._dynamo.reset()
        torch.manual_seed(0)
        # A full collection walks torch's ~400k objects (0.2-0.3 s): left to
        # chance, one lands in about every other round of either kind. Each
        # run starts from a collected heap instead, so they land less often.
        gc.collect()
        start = CLOCK()
        if dump is None:
            program(backend)
            own = 0.0
        elif dump == "trace":
            from depyf.dynamo.artifacts import TraceCapture
            capture = TraceCapture(lambda event: None)
            capture.install()
            try:
                program(backend)
            finally:
                capture.uninstall()
            own = 0.0
        else:
            # Each round starts as cold for depyf's own caches as a fresh process would.
            from depyf.dynamo import guard_text
            guard_text.clear_caches()
            with depyf.prepare_debug(dump, faithful=args.faithful) as session:
                program(backend)
            own = session.own_seconds
        return CLOCK() - start, own

    scratch = tempfile.mkdtemp(prefix=".depyf-bench-", dir=args.dump_root)
    try:
        create_us = _create_cost(scratch)
        for name in names:          # warm-up round: torch's lazy imports
            once(name, None)
            once(name, os.path.join(scratch, "warm", name))
        runs = {name: ([], [], [], []) for name in names}    # plain, traced, dumped, own
        # A round runs every program once: each program's runs spread over the
        # whole measurement, so that no slow spell of the machine holds all of them.
        for r in range(args.repeat):
            for name in names:
                plain, traced, dumped, own = runs[name]
                # The three runs take turns at going first: a run right after
                # another program's dump (or its own) may find the heap and the
                # caches in another state, and no mode is to have that place always.
                for mode in MODES[r % 3:] + MODES[:r % 3]:
                    if mode == "plain":
                        plain.append(once(name, None)[0])
                    elif mode == "trace":
                        traced.append(once(name, "trace")[0])
                    else:
                        seconds, inside = once(name, os.path.join(scratch, str(r), name))
                        dumped.append(seconds)
                        own.append(inside)
        rows = []
        for name in names:
            plain, traced, dumped, own = runs[name]
            # Each round's three runs follow each other within a second or two: their
            # ratio is spared the minutes-long slow spells of a shared machine.
            paired = statistics.median(d / p for d, p in zip(dumped, plain))
            rows.append((name, min(plain), min(traced), min(dumped), min(own), paired))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    print("torch %s, Python %d.%d, best of %d cold compiles, %s seconds, %s form of Dynamo's code"
          % (torch.__version__, sys.version_info[0], sys.version_info[1], args.repeat,
             "CPU" if CLOCK is time.process_time else "wall", "faithful" if args.faithful else "readable"))
    print("dumps in %s: creating a file there costs %.0f us of CPU"
          % (os.path.abspath(args.dump_root), create_us))
    print("%-16s %8s %8s %14s %7s %11s %10s %7s" % ("program", "plain", "trace", "prepare_debug",
                                                       "ratio", "depyf own", "own ratio", "paired"))
    total = ("total",) + tuple(sum(row[k] for row in rows) for k in range(1, 5)) + (
        sum(row[1] * row[5] for row in rows) / sum(row[1] for row in rows),)
    for name, plain, traced, dumped, own, paired in rows + [total]:
        print("%-16s %8.3f %8.3f %14.3f %7.3f %11.3f %10.3f %7.3f"
              % (name, plain, traced, dumped, dumped / plain, own, (plain + own) / plain, paired))
    return 0


def _create_cost(folder: str, n: int = 100) -> float:
    """CPU microseconds to create (and fill) a file in ``folder``: the same
    file system charges ten times more in some folders than in others."""
    probe = os.path.join(folder, "probe")
    os.mkdir(probe)
    start = CLOCK()
    for i in range(n):
        with open(os.path.join(probe, "f%d.py" % i), "wb") as f:
            f.write(b"#" * 2000)
    cost = (CLOCK() - start) / n * 1e6
    shutil.rmtree(probe)
    return cost


if __name__ == "__main__":
    sys.exit(main())
