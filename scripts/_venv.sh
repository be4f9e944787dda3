# Shared set-up for scripts/test.sh and scripts/demo.sh: find an interpreter of a
# given minor version through pyenv, else among the Debian builds that
# scripts/debian_python.sh unpacks (never a fixed path), and make a virtual
# environment with depyf installed in editable mode.

pyenv_root() {
    if [ -n "${PYENV_ROOT:-}" ]; then echo "$PYENV_ROOT"; return; fi
    if command -v pyenv >/dev/null 2>&1; then pyenv root; return; fi
    echo "$HOME/.pyenv"
}

# Where scripts/debian_python.sh keeps its interpreters (the same rule as
# depyf.verify.interpreters.debian_python_root)
debian_python_root() {
    if [ -n "${DEPYF_DEBIAN_PYTHONS:-}" ]; then echo "$DEPYF_DEBIAN_PYTHONS"; return; fi
    echo "${XDG_CACHE_HOME:-$HOME/.cache}/depyf/debian-python"
}

# find_python 3.11 -> path of a python3.11, or nothing
find_python() {
    local want="$1" root cand
    root=$(pyenv_root)
    for cand in $(ls -d "$root"/versions/"$want".* 2>/dev/null | sort -V -r); do
        if [ -x "$cand/bin/python$want" ]; then echo "$cand/bin/python$want"; return; fi
    done
    # .package-version is written last, once the unpacked tree is complete.
    cand="$(debian_python_root)/$want"
    if [ -f "$cand/.package-version" ] && [ -x "$cand/usr/bin/python$want" ]; then
        echo "$cand/usr/bin/python$want"; return
    fi
    if command -v "python$want" >/dev/null 2>&1; then command -v "python$want"; return; fi
    if command -v python3 >/dev/null 2>&1 &&
       [ "$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')" = "$want" ]; then
        command -v python3
    fi
}

# make_venv DIR PYTHON EXTRAS -> creates DIR (if needed) and installs depyf[EXTRAS]
make_venv() {
    local dir="$1" py="$2" extras="$3"
    if [ ! -x "$dir/bin/python" ]; then
        "$py" -m venv "$dir" || return 1
    fi
    # A regular (not editable) install: only it puts depyf_autorun.pth into site-packages.
    "$dir/bin/python" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps . &&
        "$dir/bin/python" -m pip install -q --disable-pip-version-check ".[$extras]" || return 1
}

# install_torch DIR [VERSION] -> torch==VERSION (default: the pinned
# TORCH_VERSION) in DIR, unless DIR has it already; never an unpinned torch,
# which would pull whatever build is newest
TORCH_VERSION=2.13.0
# The other releases scripts/test.sh runs the torch tests on (README's table
# lists what works on each tested one)
OTHER_TORCH_VERSIONS="2.14.1"
install_torch() {
    local dir="$1" version="${2:-$TORCH_VERSION}"
    if "$dir/bin/python" -c "import torch, sys; sys.exit(torch.__version__.split('+')[0] != '$version')" 2>/dev/null; then
        return 0
    fi
    "$dir/bin/python" -m pip install -q --disable-pip-version-check "torch==$version" || {
        echo "cannot install torch==$version into $dir" >&2
        return 1
    }
}
