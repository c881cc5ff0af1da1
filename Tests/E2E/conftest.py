import pytest

from harness import Kiosk, Weston


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
