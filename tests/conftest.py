import os
import sys

# Tests run against the source tree even without an editable install.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src"))

import pytest  # noqa: E402


def pytest_runtest_setup(item):
    # Tests marked host_decompiles decompile the host's own code: on a host whose
    # version the decompiler does not cover yet they skip, saying so.
    if item.get_closest_marker("host_decompiles") is None:
        return
    from depyf.bytecode.normalize import decompiled_versions
    host = sys.version_info[:2]
    if host not in decompiled_versions():
        reason = "decompiling Python %d.%d (this host) is not supported yet" % host
        print(reason)
        pytest.skip(reason)
