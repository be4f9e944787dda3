"""Conformance checks: depyf's bytecode reader against each interpreter's own ``dis``.

* :mod:`depyf.verify.interpreters` finds the interpreters, pyenv's or the Debian builds of
  scripts/debian_python.sh (3.8 to 3.15).
* :mod:`depyf.verify.dis_reference` is a standalone script a target
  interpreter runs to disassemble .pyc files into a canonical JSON form.
* :mod:`depyf.verify.reader_check` reads the same files with depyf and
  compares, file by file.

Example::

    $ PYTHONPATH=src python tools/check_reader.py --versions 3.9,3.12 --limit 200

The strict round trip (docs/design.md, "Measuring"):
:mod:`depyf.verify.compare_code` is a standalone script the target
interpreter runs to compile sources and compare their code objects by the
strict rule; :mod:`depyf.verify.roundtrip` drives it (one long-running
process per version: compile there, decompile here, compare there) and sums
the results; :mod:`depyf.verify.corpus` lists the stdlib yardstick modules,
further stdlib modules and the construct cases in ``tests/cases``::

    $ PYTHONPATH=src python tools/roundtrip.py --versions 3.8,3.13 --jobs 2
    $ PYTHONPATH=src python tools/roundtrip.py --identity     # harness self-test: 100%
    $ PYTHONPATH=src python tools/roundtrip.py --corpus thirdparty

The behaviour check: :mod:`depyf.verify.behaviour` sends a case module's
decompilation back to the target, where :mod:`depyf.verify.behave_code` (a
standalone module ``compare_code.py`` loads) runs it beside the original on the
checks the case lists and compares results, exceptions and side effects.

The generated corpus runs on the host alone: :mod:`depyf.verify.host_trip`
is the same trip in process (the host compiles, depyf decompiles, the host
recompiles, compare_code's functions compare), and
:mod:`depyf.verify.minimize` shrinks a failing program::

    $ PYTHONPATH=src python tools/fuzz_roundtrip.py --examples 2000
"""
