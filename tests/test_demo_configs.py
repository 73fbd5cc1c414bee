"""The demo (README's first command, ``scripts/demo``) against the location rules: its pipeline's
configs, with the variables and folders the script passes, pass ``ubunye validate`` on both
backends (the rules refuse at config time, so a demo whose outputs the rules refuse fails here,
without Spark; the demo itself runs Spark and is the new user's first command)."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from ubunye.cli.app import cli

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "scripts" / "demo"


def demo_setting(name: str) -> str:
    found = re.search(rf"^{name}=(\S+)", DEMO.read_text(encoding="utf-8"), re.M)
    assert found, f"scripts/demo sets no {name}"
    return found.group(1)


@pytest.mark.parametrize("backend", ["spark", "pandas"])
def test_the_demos_configs_pass_validate_with_the_demos_folders(tmp_path: Path, backend: str) -> None:
    usecase_dir = tmp_path / "checkout" / demo_setting("USECASE_DIR")  # a copy: the checkout is never written
    shutil.copytree(ROOT / demo_setting("USECASE_DIR") / "shop", usecase_dir / "shop",
                    ignore=shutil.ignore_patterns("__pycache__"))
    work = tmp_path / "checkout" / demo_setting("WORK")
    result = CliRunner().invoke(cli, ["validate", "-d", str(usecase_dir), "-u", "shop", "-p", "orders", "--all",
                                      "--backend", backend, "--var", f"data={work}/data",
                                      "--var", f"out={work}/{backend}"])
    assert result.exit_code == 0, result.output
