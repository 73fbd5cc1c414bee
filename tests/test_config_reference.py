"""docs/config-reference.md is what scripts/config-reference writes from the config model, and
the script refuses a key the model accepts that the page would leave undocumented."""
from __future__ import annotations

import importlib.machinery
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from ubunye.engine import config as model

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "config-reference"


def load_script():
    loader = importlib.machinery.SourceFileLoader("config_reference", str(SCRIPT))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader("config_reference", loader))
    loader.exec_module(module)
    return module


def test_the_config_reference_page_is_up_to_date() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    page = (ROOT / "docs" / "config-reference.md").read_text(encoding="utf-8")
    for key in (*model._TOP_KEYS, *model._INPUT_KEYS, *model._OUTPUT_KEYS, *model._ENGINE_KEYS, "max_quarantine_rate"):
        assert f"| `{key}` |" in page, key


def test_a_key_the_model_accepts_without_an_entry_stops_the_script(monkeypatch: pytest.MonkeyPatch) -> None:
    script = load_script()
    assert script.render() == (ROOT / "docs" / "config-reference.md").read_text(encoding="utf-8")
    monkeypatch.setattr(model, "_INPUT_KEYS", (*model._INPUT_KEYS, "colour"))
    with pytest.raises(SystemExit, match=r"keys with no entry: CONFIG\.inputs\.<name>\.colour"):
        script.render()


def test_an_entry_for_a_key_the_model_does_not_accept_stops_the_script(monkeypatch: pytest.MonkeyPatch) -> None:
    script = load_script()
    monkeypatch.setitem(script.DOC, "ENGINE.colour", ("string", "none", "`colour: red`", "Nothing."))
    with pytest.raises(SystemExit, match=r"entries for no key: ENGINE\.colour"):
        script.render()


def test_every_example_is_yaml_setting_its_key() -> None:
    import re

    import yaml

    rows = 0
    for line in (ROOT / "docs" / "config-reference.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        if len(cells) < 5 or not cells[-5].startswith("`"):
            continue
        key, example = cells[-5].strip("`"), cells[-2]
        if example == "-":  # refused keys (optimize, vacuum)
            continue
        rows += 1
        doc = yaml.safe_load(example.strip("`").replace("\\|", "|"))
        doc = doc[0] if isinstance(doc, list) else doc  # "- not_null: id", a rule of a list
        assert isinstance(doc, dict) and key in doc, f"{key}: example {example} does not set it"
    assert rows >= 110, rows
