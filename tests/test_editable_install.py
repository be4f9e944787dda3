"""``DEPYF_DUMP_DIR`` in an editable install (``pip install -e .``), the way
contributors work: setuptools builds such a wheel from a .pth of its own, and
setup.py adds depyf's start-up hook to it."""
import os
import subprocess
import sys
import venv

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_editable_install_runs_the_start_up_hook(tmp_path):
    env_dir = tmp_path / "venv"
    venv.create(str(env_dir), with_pip=True)
    python = str(env_dir / "bin" / "python")
    environ = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "DEPYF_DUMP_DIR")}
    install = subprocess.run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                              "-e", ROOT], capture_output=True, text=True, env=environ, timeout=600)
    if install.returncode != 0 and "setuptools" in install.stderr and "find" in install.stderr.lower():
        pytest.skip("no setuptools for the editable build: %s" % install.stderr[-300:])
    assert install.returncode == 0, install.stderr[-3000:]

    probe = "import sys; print('depyf.autorun' in sys.modules, sys.modules['depyf'].__file__)"
    watched = subprocess.run([python, "-c", probe], capture_output=True, text=True, cwd=str(tmp_path),
                             env=dict(environ, DEPYF_DUMP_DIR=str(tmp_path / "dump")))
    assert watched.returncode == 0, watched.stderr
    loaded, where = watched.stdout.split()
    assert loaded == "True"
    assert where.startswith(os.path.join(ROOT, "src"))          # the checkout's code, not a copy

    plain = subprocess.run([python, "-c", "import sys; print('depyf' in sys.modules)"],
                           capture_output=True, text=True, cwd=str(tmp_path), env=environ)
    assert plain.stdout.strip() == "False"      # unset, the hook imports nothing
