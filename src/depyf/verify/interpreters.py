"""Find the CPython interpreters of each minor version: pyenv's, else Debian's.

The conformance checks run each target version's own ``dis``, so they need
that interpreter. Two layouts are searched, and no machine path is written
down:

* pyenv's, first: ``<root>/versions/3.X.<patch>/bin/python3.X``, rooted at
  ``$PYENV_ROOT`` or else at what ``pyenv root`` prints;
* the Debian builds ``scripts/debian_python.sh`` unpacks (3.14 and 3.15, which
  pyenv here lacks): ``<cache>/3.X/usr/bin/python3.X``, the cache being
  ``$DEPYF_DEBIAN_PYTHONS`` or else ``${XDG_CACHE_HOME:-~/.cache}/depyf/debian-python``.

Example::

    >>> from depyf.verify.interpreters import find_interpreter, installed_versions
    >>> installed_versions()                      # doctest: +SKIP
    [(3, 8), (3, 9), (3, 10), (3, 11), (3, 12), (3, 13), (3, 14), (3, 15)]
    >>> find_interpreter("3.11")                  # doctest: +SKIP
    '/home/me/.pyenv/versions/3.11.7/bin/python3.11'
"""
from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from typing import List, Optional, Tuple, Union

from depyf.bytecode.normalize import decompiled_versions

Version = Tuple[int, int]

#: Minor versions the checks know about (the range depyf reads).
KNOWN_VERSIONS: Tuple[Version, ...] = ((3, 8), (3, 9), (3, 10), (3, 11), (3, 12), (3, 13),
                                       (3, 14), (3, 15))

#: The versions whose bytecode depyf decompiles (the round-trip checks' range):
#: those the normalising passes cover. The others are read and disassembled.
DECOMPILED_VERSIONS: Tuple[Version, ...] = tuple(v for v in decompiled_versions()
                                                 if v in KNOWN_VERSIONS)


def parse_version(version: Union[str, Tuple[int, ...]]) -> Version:
    """``"3.8"``, ``"38"``... or ``(3, 8)`` -> ``(3, 8)``.

    Example::

        >>> parse_version("3.10"), parse_version((3, 9, 1))
        ((3, 10), (3, 9))
    """
    if isinstance(version, str):
        text = version.strip()
        match = re.fullmatch(r"(\d+)\.(\d+)(?:\.\d+)?", text)
        if match is None:
            raise ValueError("not a Python version: %r" % version)
        return int(match.group(1)), int(match.group(2))
    major, minor = version[0], version[1]
    return int(major), int(minor)


def format_version(version: Union[str, Tuple[int, ...]]) -> str:
    """``(3, 8)`` -> ``"3.8"``."""
    major, minor = parse_version(version)
    return "%d.%d" % (major, minor)


@functools.lru_cache(maxsize=None)
def pyenv_root() -> Optional[str]:
    """pyenv's root folder: ``$PYENV_ROOT``, else ``pyenv root``; None if neither.

    Example::

        >>> pyenv_root()                          # doctest: +SKIP
        '/home/me/.pyenv'
    """
    env = os.environ.get("PYENV_ROOT")
    if env and os.path.isdir(env):
        return env
    exe = shutil.which("pyenv")
    if exe is None:
        return None
    try:
        out = subprocess.run([exe, "root"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    root = out.stdout.strip()
    if out.returncode != 0 or not root or not os.path.isdir(root):
        return None
    return root


def _patch_dirs(root: str, version: Version) -> List[Tuple[int, str]]:
    """``(patch, folder)`` for each ``versions/3.X.<patch>`` under ``root``."""
    versions = os.path.join(root, "versions")
    try:
        names = os.listdir(versions)
    except OSError:
        return []
    # Only plain releases: "3.13.0t" (free-threaded) or "3.11-dev" builds are
    # other interpreters with other binaries.
    pattern = re.compile(r"%d\.%d\.(\d+)" % version)
    found = []
    for name in names:
        match = pattern.fullmatch(name)
        if match:
            found.append((int(match.group(1)), os.path.join(versions, name)))
    return found


def debian_python_root() -> str:
    """Where ``scripts/debian_python.sh`` unpacks Debian's interpreters (the
    same rule as that script's): ``$DEPYF_DEBIAN_PYTHONS``, else
    ``depyf/debian-python`` under ``$XDG_CACHE_HOME`` or ``~/.cache``.

    Example::

        >>> debian_python_root()                  # doctest: +SKIP
        '/home/me/.cache/depyf/debian-python'
    """
    env = os.environ.get("DEPYF_DEBIAN_PYTHONS")
    if env:
        return env
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "depyf", "debian-python")


def _find_debian(version: Version) -> Optional[str]:
    folder = os.path.join(debian_python_root(), "%d.%d" % version)
    exe = os.path.join(folder, "usr", "bin", "python%d.%d" % version)
    # The script writes .package-version once the unpacked tree is complete.
    if os.path.isfile(os.path.join(folder, ".package-version")) and os.access(exe, os.X_OK):
        return exe
    return None


@functools.lru_cache(maxsize=None)
def _find(version: Version) -> Optional[str]:
    root = pyenv_root()
    if root is not None:
        # Newest patch release first.
        for _patch, folder in sorted(_patch_dirs(root, version), reverse=True):
            exe = os.path.join(folder, "bin", "python%d.%d" % version)
            if os.path.isfile(exe) and os.access(exe, os.X_OK):
                return exe
    return _find_debian(version)


def missing_reason(version: Union[str, Tuple[int, ...]]) -> str:
    """Why no interpreter of ``version`` was found: the places searched, for a
    skip message.

    Example::

        >>> missing_reason("3.14")                # doctest: +SKIP
        'no Python 3.14 under pyenv (/home/me/.pyenv) nor in /home/me/.cache/depyf/debian-python
        (scripts/debian_python.sh 3.14 puts it there)'
    """
    text = format_version(version)
    return ("no Python %s under pyenv (%s) nor in %s (scripts/debian_python.sh %s puts it there)"
            % (text, pyenv_root() or "no pyenv root", debian_python_root(), text))


def find_interpreter(version: Union[str, Tuple[int, ...]]) -> Optional[str]:
    """Path of pyenv's newest ``python3.X`` for that minor version, else of the
    Debian build ``scripts/debian_python.sh`` unpacked, or None.

    Example::

        >>> find_interpreter((3, 8))              # doctest: +SKIP
        '/home/me/.pyenv/versions/3.8.18/bin/python3.8'
    """
    return _find(parse_version(version))


def installed_versions(candidates=KNOWN_VERSIONS) -> List[Version]:
    """The versions among ``candidates`` with an interpreter, ascending.

    Example::

        >>> installed_versions()                  # doctest: +SKIP
        [(3, 8), (3, 9), (3, 10), (3, 11), (3, 12), (3, 13)]
    """
    return sorted(v for v in map(parse_version, candidates) if find_interpreter(v))


def clear_cache() -> None:
    """Forget cached look-ups (after changing ``$PYENV_ROOT``, in tests)."""
    pyenv_root.cache_clear()
    _find.cache_clear()
