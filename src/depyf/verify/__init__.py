"""Conformance checks: depyf's bytecode reader against each interpreter's own ``dis``.

* :mod:`depyf.verify.interpreters` finds the pyenv interpreters (3.8 to 3.13).
* :mod:`depyf.verify.dis_reference` is a standalone script a target
  interpreter runs to disassemble .pyc files into a canonical JSON form.
* :mod:`depyf.verify.reader_check` reads the same files with depyf and
  compares, file by file.

Example::

    $ PYTHONPATH=src python tools/check_reader.py --versions 3.9,3.12 --limit 200
"""
