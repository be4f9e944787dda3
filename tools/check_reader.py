"""Check depyf's .pyc reader against every installed interpreter's own ``dis``.

For each version (default: every installed 3.8-3.15, pyenv's or the Debian
builds of scripts/debian_python.sh) this reads the whole standard-library
``__pycache__`` of that interpreter with depyf and with the interpreter
itself, and prints one table row per version plus the first few mismatches. Exits 1 if any file is not identical, 2 if a requested
version has no interpreter.

Example::

    $ PYTHONPATH=src python tools/check_reader.py --versions 3.8,3.13 --limit 200 --jobs 2
"""
from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

from depyf.verify.interpreters import (KNOWN_VERSIONS, find_interpreter,  # noqa: E402
                                       format_version, installed_versions, missing_reason,
                                       parse_version)
from depyf.verify.reader_check import (IDENTICAL, MISMATCH, OUR_ERROR,  # noqa: E402
                                       THEIR_ERROR, check_files, stdlib_pyc_files)

COLUMNS = ("version", "files", "identical", "mismatches", "our errors", "their errors",
           "% identical", "seconds")


def parse_args(argv=None):
    """The command line as a Namespace."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--versions", default=None,
                        help="comma-separated, e.g. 3.8,3.11 (default: all installed)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="worker processes (default: CPU count)")
    parser.add_argument("--limit", type=int, default=None,
                        help="check only N files per version, spread over the stdlib")
    parser.add_argument("--show", type=int, default=5,
                        help="failures listed per version and kind (default 5)")
    return parser.parse_args(argv)


def spread(items, limit):
    """``limit`` items evenly spaced over ``items`` (all of them if limit is None).

    Example::

        >>> spread(list(range(10)), 3)
        [0, 3, 6]
    """
    if limit is None or limit >= len(items):
        return list(items)
    if limit <= 0:
        return []
    step = len(items) / limit
    return [items[int(i * step)] for i in range(limit)]


def wanted_versions(text):
    """Versions from ``--versions`` text, or every installed one."""
    if not text:
        return installed_versions(KNOWN_VERSIONS)
    return [parse_version(v) for v in text.split(",") if v.strip()]


def format_table(rows):
    """Rows of strings as an aligned text table with a header."""
    widths = [max(len(str(r[i])) for r in [COLUMNS] + rows) for i in range(len(COLUMNS))]
    lines = []
    for row in [COLUMNS] + rows:
        lines.append("  ".join(str(c).rjust(w) if i else str(c).ljust(w)
                               for i, (c, w) in enumerate(zip(row, widths))))
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def table_row(report, seconds):
    """A table row for one version's Report."""
    return [format_version(report.version), report.files, report.count(IDENTICAL),
            report.count(MISMATCH), report.count(OUR_ERROR), report.count(THEIR_ERROR),
            "%.2f" % report.percent_identical, "%.1f" % seconds]


def main(argv=None):
    """Run the checks; the exit status says whether all was identical."""
    args = parse_args(argv)
    rows, details, status = [], [], 0
    for version in wanted_versions(args.versions):
        if find_interpreter(version) is None:
            print("Python %s skipped: %s" % (format_version(version), missing_reason(version)),
                  file=sys.stderr)
            status = max(status, 2)
            continue
        files = spread(stdlib_pyc_files(version), args.limit)
        start = time.perf_counter()
        report = check_files(version, files, jobs=args.jobs)
        seconds = time.perf_counter() - start
        rows.append(table_row(report, seconds))
        print(report.format(limit=0), "(%.1fs)" % seconds, file=sys.stderr, flush=True)
        if not report.ok:
            details.append(report.format(limit=args.show))
            status = max(status, 1)
    print(format_table(rows))
    for text in details:
        print()
        print(text)
    return status if rows or status else 2


if __name__ == "__main__":
    sys.exit(main())
