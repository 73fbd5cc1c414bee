"""tests/safety: the attacker's probes. The harness module sits beside them."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Iterator

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from harness import reap_spawned  # noqa: E402


@pytest.fixture(autouse=True)
def _no_process_outlives_its_probe() -> Iterator[None]:
    """A probe that fails while a run it started is blocked (or signalled) must not leave it running."""
    yield
    reap_spawned()
