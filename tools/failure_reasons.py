"""Why the decompiler falls back: DecompileFailure messages counted per version.

Each code object whose structuring fails is counted once under the message
of the failure (innermost object that failed; a parent that fails only
because a child did is not counted again unless its own message differs).

Example::

    $ PYTHONPATH=src python tools/failure_reasons.py --versions 3.12 --top 30
    $ PYTHONPATH=src python tools/failure_reasons.py --cases
"""
from __future__ import annotations

import argparse
import collections
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

from depyf.decompiler.api import unstructured  # noqa: E402
from depyf.decompiler.functions import CodeDecompiler  # noqa: E402
from depyf.verify.corpus import case_files, corpus_modules  # noqa: E402
from depyf.verify.interpreters import DECOMPILED_VERSIONS, installed_versions, parse_version  # noqa: E402
from depyf.verify.roundtrip import CompileError, TargetSession, read_source  # noqa: E402


def reasons_for(session, path, counts, examples):
    try:
        record = session.compile_module(read_source(path), path)
    except CompileError:
        return

    def on_failure(code, failure):
        key = re.sub(r"offset \d+", "offset N", str(failure))
        counts[key] += 1
        examples.setdefault(key, []).append("%s:%s" % (os.path.basename(path), code.qualname))
        return unstructured(code, failure)

    try:
        CodeDecompiler(record, "module", on_failure=on_failure).statements()
    except Exception as e:  # a crash, not a fallback
        key = "CRASH %s: %s" % (type(e).__name__, e)
        counts[key] += 1
        examples.setdefault(key, []).append(os.path.basename(path))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--versions", default=None)
    p.add_argument("--cases", action="store_true")
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--examples", type=int, default=2)
    args = p.parse_args(argv)
    versions = ([parse_version(v) for v in args.versions.split(",")] if args.versions
                else installed_versions(DECOMPILED_VERSIONS))
    for version in versions:
        paths = case_files(version) if args.cases else corpus_modules(version)
        counts = collections.Counter()
        examples = {}
        with TargetSession(version) as session:
            for path in paths:
                reasons_for(session, path, counts, examples)
        print("%d.%d: %d fallbacks" % (version[0], version[1], sum(counts.values())))
        for key, n in counts.most_common(args.top):
            print("  %5d  %s" % (n, key))
            for ex in examples[key][:args.examples]:
                print("           e.g. %s" % ex)
    return 0


if __name__ == "__main__":
    sys.exit(main())
