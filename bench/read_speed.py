"""Read speed: depyf's .pyc reader against ``marshal`` + ``dis``.

Reads every .pyc of the host's own standard library (``__pycache__`` folders,
all optimisation levels, site-packages left out: on the 3.11 CI host that is
the 3.11 stdlib) two ways in the same run, on the same files:

* ``depyf read_pyc+decode``: parse the file, then decode every code object
  (nested ones included) and walk every instruction;
* ``marshal.loads+dis.get_instructions``: read the file, unmarshal it, and
  for every code object (nested ones included) iterate ``dis.get_instructions``
  to the end.

Only host-version files allow the side-by-side, since ``marshal`` and ``dis``
only handle their own version. Instructions are counted without EXTENDED_ARG
on both sides (depyf folds them), so the counts agree; dis still builds them.

Example::

    $ PYTHONPATH=src python bench/read_speed.py --repeat 3
"""
from __future__ import annotations

import argparse
import dis
import marshal
import os
import sys
import sysconfig
import time
import types

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

from depyf.bytecode import decode, read_pyc  # noqa: E402
from depyf.verify.reader_check import pyc_files_under  # noqa: E402

PYC_HEADER_SIZE = 16


def host_stdlib_files():
    """Every host-version .pyc in the host's stdlib __pycache__ folders."""
    tag = ".%s." % sys.implementation.cache_tag  # e.g. ".cpython-311."
    root = sysconfig.get_paths()["stdlib"]
    return [p for p in pyc_files_under(root) if tag in os.path.basename(p)]


def read_depyf(paths):
    """(code objects, instructions, errors) reading ``paths`` with depyf."""
    codes = instructions = errors = 0
    for path in paths:
        try:
            pyc = read_pyc(path)
            for rec in pyc.code.walk():
                codes += 1
                for _ins in decode(rec):
                    instructions += 1
        except Exception:  # a bench must finish; errors are counted and shown
            errors += 1
    return codes, instructions, errors


def _walk_code(code):
    stack = [code]
    while stack:
        co = stack.pop()
        yield co
        stack.extend(c for c in co.co_consts if isinstance(c, types.CodeType))


def read_dis(paths):
    """(code objects, instructions, errors) reading ``paths`` with marshal + dis."""
    codes = instructions = errors = 0
    for path in paths:
        try:
            with open(path, "rb") as f:
                data = f.read()
            for co in _walk_code(marshal.loads(data[PYC_HEADER_SIZE:])):
                codes += 1
                for ins in dis.get_instructions(co):
                    if ins.opname != "EXTENDED_ARG":
                        instructions += 1
        except Exception:
            errors += 1
    return codes, instructions, errors


def measure(reader, paths, repeat):
    """Best time of ``repeat`` runs, with the counts of the last run."""
    best = float("inf")
    for _ in range(max(1, repeat)):
        start = time.perf_counter()
        counts = reader(paths)
        best = min(best, time.perf_counter() - start)
    return counts, best


def spread(items, limit):
    """``limit`` items evenly spaced over ``items`` (all if limit is None).

    Example::

        >>> spread(list(range(10)), 5)
        [0, 2, 4, 6, 8]
    """
    if limit is None or limit >= len(items):
        return list(items)
    step = len(items) / max(1, limit)
    return [items[int(i * step)] for i in range(limit)]


def format_table(rows):
    """Aligned text table; the first row is the header."""
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    out = []
    for n, row in enumerate(rows):
        out.append("  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w)
                             for i, (c, w) in enumerate(zip(row, widths))))
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def main(argv=None):
    parser = argparse.ArgumentParser(description="depyf .pyc read speed vs marshal+dis")
    parser.add_argument("--limit", type=int, default=None, help="use N files spread over the stdlib")
    parser.add_argument("--repeat", type=int, default=1, help="runs per reader; the best is shown")
    args = parser.parse_args(argv)

    paths = spread(host_stdlib_files(), args.limit)
    if not paths:
        print("no .pyc files found under %s" % sysconfig.get_paths()["stdlib"], file=sys.stderr)
        return 1
    # Warm the OS file cache so neither side pays for the first disk read.
    for path in paths:
        with open(path, "rb") as f:
            f.read()

    results = []
    for name, reader in (("depyf read_pyc+decode", read_depyf),
                         ("marshal.loads+dis.get_instructions", read_dis)):
        (codes, instructions, errors), seconds = measure(reader, paths, args.repeat)
        results.append((name, codes, instructions, errors, seconds))

    theirs_rate = results[1][2] / results[1][4]
    header = ("reader", "files", "code objects", "instructions", "errors", "seconds",
              "files/s", "instructions/s", "ours/theirs")
    rows = [header]
    for name, codes, instructions, errors, seconds in results:
        rate = instructions / seconds
        rows.append((name, len(paths), codes, instructions, errors, "%.2f" % seconds,
                     "%.0f" % (len(paths) / seconds), "%.0f" % rate,
                     "%.2fx" % (rate / theirs_rate)))
    print("Python %d.%d stdlib (%s), best of %d run(s)" % (
        sys.version_info[0], sys.version_info[1], sysconfig.get_paths()["stdlib"], max(1, args.repeat)))
    print(format_table(rows))
    ours_rate = results[0][2] / results[0][4]
    print("ours/theirs instructions/s: %.2f" % (ours_rate / theirs_rate))
    return 0


if __name__ == "__main__":
    sys.exit(main())
