from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def dataplane():
    """Skip (with the first failing check as the reason) unless the data plane can run here."""
    from nfvperf.dataplane import doctor

    failing = [c for c in doctor() if not c.ok and c.name != "CPUs"]
    if failing:
        c = failing[0]
        pytest.skip(f"data plane: {c.name}: {c.detail} ({c.fix})")
    return True
