import os

import pytest

from harness import Kiosk, Strict, Weston

# This machine's clock is not synchronised (a container: no NTP, no RTC), and a kiosk does not
# trust opening hours on such a clock (ClockTrust): every kiosk here believes its clock unless a
# test says otherwise (test_touch_trust.py's unsynchronised clock). Booted machines are real.
os.environ.setdefault("KIOSK_CLOCK_SYNCHRONIZED", "1")


@pytest.fixture
def weston():
    w = Weston()
    yield w
    w.close()


@pytest.fixture
def kiosk(weston):
    started = []

    def start(*args, **kw):
        k = Kiosk(weston, "--verbose", *args, **kw)
        started.append(k)
        return k

    yield start
    for k in started:
        k.close()


@pytest.fixture(params=["weston", "strict"])
def compositor(request):
    """weston 10, then the strict compositor: a live check that must hold under both."""
    c = Weston() if request.param == "weston" else Strict()
    yield c
    c.close()


def pytest_collection_modifyitems(items):
    """A newcomer's make run is made in the background during make test (Tests/E2E/newcomer.py):
    its check goes last, so the rest run while it is made."""
    items.sort(key=lambda item: item.module.__name__ == "test_newcomer")
