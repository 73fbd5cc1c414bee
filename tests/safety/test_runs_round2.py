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

from harness import PASS_CODE, Usecase, assert_one_line_error, assert_unchanged, cli, tree_digest
from test_ending import CONFIG
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


# --------------------------------------------------------------- duplicate YAML keys

# test_ending.py's task, its output named twice (lines 5 and 6)
DUPLICATE_OUTPUT = CONFIG.replace("NAME", "a") + CONFIG.splitlines()[-1].replace("NAME", "b") + "\n"


def test_lying_exit_code_duplicate_yaml_key_refused_naming_file_key_and_line(uc: Usecase) -> None:
    uc.task("t", DUPLICATE_OUTPUT, PASS_CODE)
    before = tree_digest(uc.root)
    naming = ["config.yaml", "CONFIG.outputs.out", "line 5", "line 6"]
    assert_one_line_error(uc.run("-t", "t"), code=2, naming=naming)
    checked = cli("validate", *uc.base_args(), "-t", "t")  # validate's report: one FAIL line per task, exit 1
    assert checked.code == 1 and checked.err.startswith("FAIL shop/orders/t: "), str(checked)
    assert all(word in checked.err for word in naming) and "Traceback" not in checked.text, str(checked)
    assert_unchanged(before, tree_digest(uc.root))


@pytest.mark.parametrize("text, key", [
    ("CONFIG:\n  params: {a: 1, a: 2}\n", "CONFIG.params.a"),
    ("ENGINE: {backend: pandas}\nENGINE: {backend: spark}\nCONFIG: {}\n", "ENGINE"),
    ("CONFIG:\n  params:\n    flag: yes\n  params:\n    flag: no\n", "CONFIG.params"),
    ("CONFIG:\n  params: {true: 1, yes: 2}\n", "CONFIG.params.yes"),
], ids=["flow-mapping", "top-level", "block-mapping", "same-bool-spelled-twice"])
def test_lying_exit_code_duplicate_yaml_key_variants(uc: Usecase, text: str, key: str) -> None:
    uc.task("t", text, PASS_CODE)
    assert_one_line_error(uc.run("-t", "t"), code=2, naming=["config.yaml", key, "appears twice"])


def test_lying_exit_code_duplicate_key_in_pipeline_yaml(uc: Usecase) -> None:
    uc.task("t", "CONFIG: {}\n", PASS_CODE)
    (uc.package_dir / "pipeline.yaml").write_text("tasks: [t]\ntasks: []\n", encoding="utf-8")
    assert_one_line_error(uc.run("--all"), code=2, naming=["pipeline.yaml", "tasks", "line 1", "line 2"])


def test_lying_exit_code_yaml_merge_keys_and_aliases_still_load(uc: Usecase) -> None:
    config = """
    CONFIG:
      inputs:
        people: &parquet {format: parquet, path: "{{ task_dir }}/../../../data/people.parquet"}
      outputs:
        out:
          <<: *parquet
          mode: overwrite
          path: "{{ task_dir }}/../../../data/out"
    """
    uc.task("t", config, PASS_CODE)
    result = uc.run("-t", "t")
    assert result.code == 0, str(result)
