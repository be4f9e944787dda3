#!/usr/bin/env bash
# scripts/test_torch.sh VERSION [PYTEST ARGS]: the torch tests (-m torch)
# against torch==VERSION, in their own .venv-torch-VERSION (Python 3.11,
# depyf and its test dependencies). A venv that has that torch already is
# reused as it is; only depyf is installed again. DEPYF_TORCH_PYTHON=3.12
# (say) runs them on another host Python, in .venv-torch-VERSION-py3.12:
# pip then downloads torch's PyPI build (a CUDA one, several GB; it runs on
# the CPU), so CI leaves it to a developer.
#
#   bash scripts/test_torch.sh 2.14.1
#   bash scripts/test_torch.sh 2.9.1 -x -k guards
#   DEPYF_TORCH_PYTHON=3.13 bash scripts/test_torch.sh 2.14.1
set -euo pipefail
version="${1:?usage: scripts/test_torch.sh VERSION [PYTEST ARGS]}"
shift
cd "$(dirname "$0")/.."
. scripts/_venv.sh

host="${DEPYF_TORCH_PYTHON:-3.11}"
py=$(find_python "$host")
dir=".venv-torch-$version"
if [ "$host" != 3.11 ]; then
    dir="$dir-py$host"
    [ -n "$py" ] || { echo "Python $host not found (pyenv, scripts/debian_python.sh)" >&2; exit 1; }
elif [ -z "$py" ]; then
    echo "Python 3.11 not found under $(pyenv_root)/versions; using python3" >&2
    py=$(command -v python3)
fi
start=$SECONDS
make_venv "$dir" "$py" test
install_torch "$dir" "$version" || exit 1
echo "== torch $("$dir/bin/python" -c 'import torch; print(torch.__version__)') on $("$dir/bin/python" -V)" \
     "(set up in $((SECONDS - start)) s)"
"$dir/bin/python" -m pytest -q -p no:cacheprovider -m torch "$@"
