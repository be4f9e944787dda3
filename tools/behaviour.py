"""Run case modules and their decompilations side by side, per target version.

Each file lists what to call in ``CHECKS`` (see depyf.verify.behave_code); it is
compiled by each version's interpreter, decompiled here and run there beside
the original. Prints one line per file and version, and what differs. Exit 1
when anything differs.

Example::

    $ PYTHONPATH=src python tools/behaviour.py tests/behaviour/*.py --versions 3.8,3.13
"""
from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

from depyf.verify.behaviour import HOST, check_behaviour  # noqa: E402
from depyf.verify.corpus import min_version  # noqa: E402
from depyf.verify.interpreters import (KNOWN_VERSIONS, find_interpreter,  # noqa: E402
                                       format_version, parse_version)
from depyf.verify.roundtrip import read_source  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--versions", default=None,
                        help="comma-separated, e.g. 3.8,3.11 (default: all installed)")
    parser.add_argument("--source", action="store_true", help="show the candidate when it differs")
    args = parser.parse_args(argv)
    versions = [parse_version(v) for v in args.versions.split(",")] if args.versions \
        else list(KNOWN_VERSIONS)
    bad = 0
    for path in args.files:
        source = read_source(path)
        for version in versions:
            if version != HOST and find_interpreter(version) is None:
                print("%s %s: skipped (no interpreter)" % (path, format_version(version)))
                continue
            if min_version(path) > version:
                continue
            result = check_behaviour(source, version, filename=os.path.basename(path))
            bad += not result.ok
            print("%s %s" % (path, result.format(source=args.source)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
