"""Fixtures for the booted-machine tests: the package `make deb` built and the image it is tested
on (see panel.py for the machines)."""
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import image  # noqa: E402
from panel import ARCH, DEB, NATIVE, RECORDED, SUITE  # noqa: E402

# The machine's own architecture runs test_booted.py; the arm64 package (KIOSK_VM_ARCH=arm64),
# on an emulated board, test_arm64.py.
collect_ignore = ["test_booted.py"] if ARCH != NATIVE else ["test_arm64.py"]

if os.geteuid() != 0:
    pytest.skip("the booted-machine tests build their image as root (mmdebstrap, mke2fs -d)", allow_module_level=True)


@pytest.fixture(scope="session")
def deb():
    assert DEB.exists(), f"{DEB} missing: make deb builds it"
    return DEB


@pytest.fixture(scope="session")
def vm_image(deb):
    return image.build(deb, SUITE)


def pytest_terminal_summary(terminalreporter):
    if RECORDED:
        terminalreporter.section(f"measured on the booted {SUITE} {ARCH} machines")
        for line in RECORDED:
            terminalreporter.write_line(line)
