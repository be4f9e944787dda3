"""Everything is in pyproject.toml; this file only adds depyf_autorun.pth to the
wheel root, so a regular install puts it into site-packages (see src/depyf/autorun.py).
Editable installs do not get it."""
import os

from setuptools import setup
from setuptools.command.build_py import build_py


class build_py_with_pth(build_py):
    def run(self):
        super().run()
        self.copy_file(os.path.join("src", "depyf_autorun.pth"),
                       os.path.join(self.build_lib, "depyf_autorun.pth"))

    def get_outputs(self, include_bytecode=True):
        return super().get_outputs(include_bytecode) + [os.path.join(self.build_lib, "depyf_autorun.pth")]


setup(cmdclass={"build_py": build_py_with_pth})
