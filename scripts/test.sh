#!/usr/bin/env bash
# The whole test suite, from a fresh clone: creates .venv (Python 3.11) with
# depyf, its test dependencies and torch 2.13.0, runs every test (the torch
# ones included), runs the torch tests again on torch 2.14.1 (in
# .venv-torch-2.14.1), then runs the non-torch suite again under each other
# supported host interpreter (3.10, 3.12, 3.13) that pyenv has, and under 3.14
# and 3.15, which pyenv lacks: they come from Debian's packages
# (scripts/debian_python.sh, cached outside the checkout).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/_venv.sh

# The report's tests load pages in a real headless Chromium (Debian's package).
if ! command -v chromium >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "== installing Debian's chromium for the browser tests"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } ||
        echo "chromium could not be installed; the browser tests will skip"
fi

# The interpreters the version checks compare against, where pyenv has none.
# Without them (no apt, no network) their tests skip, saying why.
bash scripts/debian_python.sh 3.14 3.15 >/dev/null ||
    echo "== Python 3.14/3.15 could not all be had from Debian; their tests will skip"

main_py=$(find_python 3.11)
if [ -z "$main_py" ]; then
    echo "Python 3.11 not found under $(pyenv_root)/versions; using python3" >&2
    main_py=$(command -v python3)
fi
make_venv .venv "$main_py" test
# The torch tests (-m torch) run on this host only, against the pinned torch.
install_torch .venv || exit 1
echo "== host $(.venv/bin/python -V), torch $(.venv/bin/python -c 'import torch; print(torch.__version__)' 2>/dev/null)"
.venv/bin/python -m pytest -q "$@"

# The torch tests again on each other torch release CI covers (scripts/test_torch.sh).
for t in $OTHER_TORCH_VERSIONS; do
    bash scripts/test_torch.sh "$t" "$@"
done

for v in 3.10 3.12 3.13; do
    py=$(find_python "$v")
    if [ -z "$py" ]; then
        echo "== host $v: skipped, no interpreter under $(pyenv_root)/versions"
        continue
    fi
    make_venv ".venv-$v" "$py" test
    echo "== host $(".venv-$v/bin/python" -V)"
    ".venv-$v/bin/python" -m pytest -q -p no:cacheprovider -m "not torch" "$@"
done

# Python 3.14 and 3.15 hosts (Debian's builds, where pyenv has none): the
# non-torch suite too.
for v in 3.14 3.15; do
    py=$(find_python "$v")
    if [ -z "$py" ]; then
        echo "== host $v: skipped, neither pyenv nor scripts/debian_python.sh has it"
        continue
    fi
    make_venv ".venv-$v" "$py" test
    echo "== host $(".venv-$v/bin/python" -V)"
    ".venv-$v/bin/python" -m pytest -q -p no:cacheprovider -m "not torch" "$@"
done
