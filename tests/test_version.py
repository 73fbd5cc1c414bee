from pathlib import Path

import ubunye

ROOT = Path(__file__).resolve().parents[1]


def test_version_constant_matches_version_file() -> None:
    assert ubunye.__version__ == (ROOT / "VERSION").read_text().strip()


def test_installed_distribution_has_the_same_version() -> None:
    from importlib.metadata import version

    assert version("ubunye") == ubunye.__version__
