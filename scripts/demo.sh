#!/usr/bin/env bash
# The main job, from a fresh clone: sets up .venv (Python 3.11, depyf, torch
# 2.13.0) and runs `depyf demo`: a toy example and a small model compiled under
# depyf.prepare_debug, the dump's HTML report, and a decompiled function.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/_venv.sh
main_py=$(find_python 3.11)
[ -n "$main_py" ] || main_py=$(command -v python3)
make_venv .venv "$main_py" test
install_torch .venv
.venv/bin/depyf demo "$@"
