"""Lying record or exit code, data loss: how runs write and end, round 2 (issue 35).

- One writer per output: concurrent runs writing one output are serialised by a lock beside it,
  so the newest record always describes the rows the folder holds.
- SIGHUP (a closed terminal, a dropped SSH session), SIGUSR1 and SIGUSR2 end the record as
  SIGTERM does, with one FAIL line.
- Outputs handed in through the notebook's ``write(outputs=...)`` are marked so on the record.
- ``between`` on a column whose values are not numbers: a failed check naming the rule and column.
- A duplicate key in any YAML file the package reads: one line naming file, key and line, exit 2.
Each probe runs the real CLI (or the notebook API) in a real process where it matters.
"""
from __future__ import annotations

import signal
from pathlib import Path

import pytest

from harness import Usecase
from test_ending import test_lying_record_signal_sent_to_a_blocked_run_ends_its_record as signal_probe


@pytest.fixture
def uc(tmp_path: Path) -> Usecase:
    usecase = Usecase(tmp_path / "uc")
    usecase.parquet("people.parquet")
    return usecase


# --------------------------------------------------------------- signals

@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2],
                         ids=["sighup", "sigusr1", "sigusr2"])
def test_lying_record_hangup_or_user_signal_ends_the_record(uc: Usecase, signum: int) -> None:
    """The SIGTERM probe of test_ending.py, for the other signals that end a process."""
    signal_probe(uc, signum)
