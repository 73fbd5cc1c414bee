"""tests/safety: the attacker's probes. The harness module sits beside them."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
