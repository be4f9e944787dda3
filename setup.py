"""Everything is in pyproject.toml; this file only adds depyf_autorun.pth to the
wheel root, so that an install puts it into site-packages (see src/depyf/autorun.py):
a regular wheel gets it from build_py, an editable one (``pip install -e .``),
which setuptools builds from a .pth of its own and nothing of build_py's
outputs, gets it added once built."""
import base64
import hashlib
import os
import zipfile

from setuptools import setup
from setuptools.command.build_py import build_py

PTH = "depyf_autorun.pth"


class build_py_with_pth(build_py):
    def run(self):
        super().run()
        self.copy_file(os.path.join("src", PTH), os.path.join(self.build_lib, PTH))

    def get_outputs(self, include_bytecode=True):
        return super().get_outputs(include_bytecode) + [os.path.join(self.build_lib, PTH)]


def add_to_wheel(wheel_path: str, name: str, data: bytes) -> None:
    """Put ``name`` (holding ``data``) at the root of the wheel, with its line in RECORD."""
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    rebuilt = wheel_path + ".tmp"
    with zipfile.ZipFile(wheel_path) as old, \
            zipfile.ZipFile(rebuilt, "w", zipfile.ZIP_DEFLATED) as new:
        for item in old.infolist():
            if item.filename == name:
                continue
            content = old.read(item)
            if item.filename.endswith(".dist-info/RECORD"):
                content += ("%s,sha256=%s,%d\n" % (name, digest, len(data))).encode()
                new.writestr(name, data)
            new.writestr(item, content)
    os.replace(rebuilt, wheel_path)


cmdclass = {"build_py": build_py_with_pth}

try:
    from setuptools.command.editable_wheel import editable_wheel
except ImportError:         # a setuptools before PEP 660 editable installs: nothing to add to
    editable_wheel = None

if editable_wheel is not None:
    class editable_wheel_with_pth(editable_wheel):
        def run(self):
            super().run()
            with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "src", PTH), "rb") as f:
                data = f.read()
            for name in os.listdir(self.dist_dir):
                path = os.path.join(self.dist_dir, name)
                if ".editable-" in name and name.endswith(".whl"):
                    with zipfile.ZipFile(path) as wheel:
                        done = PTH in wheel.namelist()
                    if not done:
                        add_to_wheel(path, PTH, data)

    cmdclass["editable_wheel"] = editable_wheel_with_pth

setup(cmdclass=cmdclass)
