#!/usr/bin/env bash
# The main job, from a fresh clone: sets up .venv and runs the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/_venv.sh
main_py=$(find_python 3.11)
[ -n "$main_py" ] || main_py=$(command -v python3)
make_venv .venv "$main_py" test
.venv/bin/python examples/demo.py "$@"
