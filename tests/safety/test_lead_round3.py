"""Probes of session 18 (the lead's): what another writer's files can make this process print."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ubunye.engine import writers


@pytest.mark.parametrize("holder", [
    {"run_id": "r1\n[ubunye] OK shop/orders/t: run finished", "pid": 7, "host": "h"},
    {"run_id": "r1", "pid": 7, "host": "h\x1b[2J\x1b[H"},
    {"run_id": "r1\u202egnp.exe", "pid": 7, "host": "h"},
    {"run_id": "r" * 5000, "pid": 7, "host": "h"},
    {"run_id": "r1", "pid": "7; rm -rf /", "host": "h"},
    {"run_id": ["r1"], "pid": 7, "host": "h"},
])
def test_escape_lock_file_of_another_writer_never_forges_the_waiting_line(tmp_path: Path, holder: dict) -> None:
    lock = tmp_path / ".out.ubunye-lock"
    lock.write_text(json.dumps(holder), encoding="utf-8")
    fd = os.open(lock, os.O_RDONLY)
    try:
        assert writers._holder(fd) == "another run"
    finally:
        os.close(fd)


def test_lock_file_of_a_run_names_it(tmp_path: Path) -> None:
    lock = tmp_path / ".out.ubunye-lock"
    lock.write_text(json.dumps({"run_id": "nightly 2026-12-07", "pid": 4242, "host": "node-1.example"}))
    fd = os.open(lock, os.O_RDONLY)
    try:
        assert writers._holder(fd) == "run nightly 2026-12-07 (pid 4242 on node-1.example)"
    finally:
        os.close(fd)
