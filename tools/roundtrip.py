"""Strict round trip of the decompiler over the corpus, per target version.

For each version (default: every installed one that depyf decompiles, 3.8-3.13) each module is
compiled by that interpreter, decompiled by depyf on this host, recompiled by
the interpreter and compared code object by code object (docs/design.md,
"Measuring"). Prints one table row per version, then the most
frequent failure kinds with an example each.

``--identity`` feeds the original source back as the "decompiled" text: a
self-test of the harness that must give 100% (exit 1 otherwise).
``--unparse`` uses the target's ``ast.unparse`` (3.9+): a calibration.
``--corpus thirdparty`` measures the modules of data/thirdparty-modules.txt
found in the interpreter running this script (one source, compiled by every
version; modules a version cannot compile are skipped and counted).

Example::

    $ PYTHONPATH=src python tools/roundtrip.py --versions 3.8,3.12 --modules 80 --jobs 2
    $ PYTHONPATH=src python tools/roundtrip.py --identity --jobs 2
    $ PYTHONPATH=src python tools/roundtrip.py --cases --show-failures 5
    $ PYTHONPATH=src python tools/roundtrip.py --corpus thirdparty --jobs 2
"""
from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

from depyf.verify.corpus import (case_files, corpus_modules, thirdparty_corpus,  # noqa: E402
                                 thirdparty_modules)
from depyf.verify.interpreters import (DECOMPILED_VERSIONS, find_interpreter,  # noqa: E402
                                       format_version, installed_versions, parse_version)
from depyf.verify.roundtrip import (IDENTITY, UNPARSE, format_table,  # noqa: E402
                                    run_corpus)


def parse_args(argv=None):
    """The command line as a Namespace."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--versions", default=None,
                        help="comma-separated, e.g. 3.8,3.11 (default: all installed)")
    parser.add_argument("--modules", type=int, default=None,
                        help="modules per version: the 65-module yardstick list, then more "
                             "stdlib (default: the yardstick list)")
    parser.add_argument("--corpus", choices=("stdlib", "thirdparty", "cases"), default="stdlib",
                        help="stdlib (default): each version's own standard library; "
                             "thirdparty: the third-party list, as installed here; "
                             "cases: tests/cases/*.py")
    parser.add_argument("--cases", action="store_true",
                        help="the same as --corpus cases")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--show-failures", type=int, default=10, metavar="N",
                        help="failure kinds listed per version (default 10)")
    parser.add_argument("--examples", type=int, default=1,
                        help="examples shown per failure kind (default 1)")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--identity", action="store_true",
                       help="use the original source as the output (harness self-test)")
    which.add_argument("--unparse", action="store_true",
                       help="use the target's ast.unparse of the source (3.9+, calibration)")
    return parser.parse_args(argv)


def chosen_versions(text, decompiling=True):
    """The versions to run, or exits (status 1) naming a missing interpreter or
    (when ``decompiling``, not a harness self-test) a version depyf does not decompile yet."""
    if text is None:
        return installed_versions(DECOMPILED_VERSIONS)
    versions = [parse_version(v) for v in text.split(",") if v.strip()]
    unsupported = [format_version(v) for v in versions if v not in DECOMPILED_VERSIONS]
    if decompiling and unsupported:
        sys.exit("decompiling Python %s is not supported yet (depyf decompiles %s-%s)"
                 % (", ".join(unsupported), format_version(DECOMPILED_VERSIONS[0]),
                    format_version(DECOMPILED_VERSIONS[-1])))
    missing = [format_version(v) for v in versions if find_interpreter(v) is None]
    if missing:
        sys.exit("no interpreter for: %s" % ", ".join(missing))
    return versions


def format_failures(corpus, limit, examples, names=None):
    """The top ``limit`` failure kinds of one version, with examples; ``names``
    maps a file path to the name shown for it (a third-party module's
    import name, not where this machine keeps it)."""
    kinds = corpus.failure_kinds()
    if not kinds or limit <= 0:
        return ""
    lines = ["%s: top failure kinds (%d kinds)" % (format_version(corpus.version), len(kinds))]
    for kind, count, texts in kinds[:limit]:
        lines.append("  %5d  %s" % (count, kind))
        for text in texts[:examples]:
            path = text.split(":", 1)[0]
            if names and path in names:
                text = names[path] + text[len(path):]
            lines.append("         e.g. %s" % _shorten(text, 240))
    return "\n".join(lines)


def _shorten(text, size):
    text = text.replace("\n", " ")
    return text if len(text) <= size else text[:size - 3] + "..."


#: Third-party file path -> import name, for the failure examples.
NAMES = {}


def corpus_paths(corpus, version, modules):
    """``(paths, skipped)`` of one corpus for one version; ``skipped`` holds
    the third-party entries left out there (corpus.Resolved, with a reason)."""
    if corpus == "cases":
        return case_files(version), []
    if corpus == "thirdparty":
        paths, skipped = thirdparty_corpus(version)
        NAMES.update((r.path, r.name) for r in thirdparty_modules())
        return paths[:modules] if modules is not None else paths, skipped
    return corpus_modules(version, modules), []


def format_skipped(skipped_by_version):
    """One line per version that skipped modules: counts, then the names."""
    lines = []
    for version, skipped in skipped_by_version:
        if skipped:
            lines.append("%s: skipped %d: %s" % (format_version(version), len(skipped), ", ".join(
                "%s (%s)" % (r.name, "syntax" if "rejects" in (r.reason or "") else r.reason)
                for r in skipped)))
    return "\n".join(lines)


def main(argv=None) -> int:
    args = parse_args(argv)
    decompile = IDENTITY if args.identity else UNPARSE if args.unparse else None
    which = "cases" if args.cases else args.corpus
    results = []
    skipped_by_version = []
    for version in chosen_versions(args.versions, not (args.identity or args.unparse)):
        if args.unparse and version < (3, 9):
            print("%s: skipped (ast.unparse needs 3.9+)" % format_version(version), file=sys.stderr)
            continue
        paths, skipped = corpus_paths(which, version, args.modules)
        skipped_by_version.append((version, skipped))
        start = time.perf_counter()
        corpus = run_corpus(version, paths, decompile, jobs=args.jobs)
        print("%s: %d modules in %.1fs%s" % (
            format_version(version), corpus.modules, time.perf_counter() - start,
            ", %d skipped" % len(skipped) if skipped else ""), file=sys.stderr, flush=True)
        results.append(corpus)
    print(format_table(results))
    text = format_skipped(skipped_by_version)
    if text:
        print()
        print(text)
    for corpus in results:
        text = format_failures(corpus, args.show_failures, args.examples, NAMES)
        if text:
            print()
            print(text)
    if args.identity and any(c.deep_equal != c.code_objects or c.recompiled != c.modules
                             for c in results):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
