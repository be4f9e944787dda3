"""Loading a page in a real headless Chromium: its DOM after scripts ran and
the console messages it logged. Tests skip (with the reason printed) where no
Chromium is installed; `scripts/test.sh` installs Debian's where it can."""
import os
import re
import shutil
import subprocess
import tempfile

import pytest

_CONSOLE = re.compile(r":CONSOLE[^\]]*\] \"(?P<text>.*)\", source: (?P<source>\S*)")
# Flags that keep Chromium off the network (the machine's closed network
# refuses its background connections) and let it run as root in a container.
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def need_chromium():
    path = chromium()
    if path is None:
        pytest.skip("no Chromium installed (Debian: apt-get install chromium)")
    return path


def load(url, screenshot=None, size="1300,1400"):
    """(DOM text, console messages) of ``url``; with ``screenshot``, also a PNG."""
    exe = need_chromium()
    with tempfile.TemporaryDirectory() as profile:
        args = [exe] + FLAGS + ["--user-data-dir=" + profile, "--enable-logging=stderr", "--v=0"]
        if screenshot:
            shot = subprocess.run(args + ["--screenshot=" + screenshot, "--window-size=" + size, url],
                                  capture_output=True, text=True, timeout=120)
            assert os.path.exists(screenshot), shot.stderr[-2000:]
        res = subprocess.run(args + ["--dump-dom", url], capture_output=True, text=True, timeout=120)
    console = [m.group("text") for m in _CONSOLE.finditer(res.stderr)]
    return res.stdout, console
