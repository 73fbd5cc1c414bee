"""Evidence of a run: code_hash, config_hash, environment and its hash."""
from __future__ import annotations

import hashlib
import json
import platform
import sys
from importlib.metadata import version
from pathlib import Path

from ubunye.lineage.evidence import code_hash, config_hash, environment, environment_hash


def _write(root: Path, rel: str, data: bytes) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _digest(entries: list[tuple[str, bytes]]) -> str:
    h = hashlib.sha256()
    for rel, data in entries:
        h.update(rel.encode("utf-8") + b"\0" + data + b"\0")
    return "sha256:" + h.hexdigest()


def test_code_hash_orders_by_path_components_and_skips_caches_and_dot_paths(tmp_path: Path) -> None:
    _write(tmp_path, "transformations.py", b"def f():\n    return 1\n")
    _write(tmp_path, "a.py", b"A = 1\n")
    _write(tmp_path, "a/b.py", b"B = 2\n")
    _write(tmp_path, "a/__pycache__/b.cpython-312.py", b"junk")
    _write(tmp_path, ".hidden/x.py", b"junk")
    _write(tmp_path, "a/.secret.py", b"junk")
    _write(tmp_path, "config.yaml", b"MODEL: etl\n")
    _write(tmp_path, "notes.txt", b"not code")
    expected = _digest([("a/b.py", b"B = 2\n"), ("a.py", b"A = 1\n"),
                        ("transformations.py", b"def f():\n    return 1\n")])
    assert code_hash(tmp_path) == expected


def test_code_hash_turns_crlf_into_lf(tmp_path: Path) -> None:
    unix, windows = tmp_path / "unix", tmp_path / "windows"
    _write(unix, "t.py", b"x = 1\ny = 2\n")
    _write(windows, "t.py", b"x = 1\r\ny = 2\r\n")
    assert code_hash(unix) == code_hash(windows) == _digest([("t.py", b"x = 1\ny = 2\n")])


def test_code_hash_changes_with_a_byte_and_is_null_without_code(tmp_path: Path) -> None:
    _write(tmp_path, "t.py", b"x = 1\n")
    before = code_hash(tmp_path)
    _write(tmp_path, "t.py", b"x = 2\n")
    assert code_hash(tmp_path) != before
    empty = tmp_path / "empty"
    _write(empty, "config.yaml", b"MODEL: etl\n")
    assert code_hash(empty) is None
    assert code_hash(None) is None
    assert code_hash(tmp_path / "missing") is None


def test_config_hash_is_sha256_of_config_yaml_with_crlf_as_lf(tmp_path: Path) -> None:
    text = b"MODEL: etl\nVERSION: 0.1.0\nCONFIG:\n  inputs: {}\n"
    _write(tmp_path / "lf", "config.yaml", text)
    _write(tmp_path / "crlf", "config.yaml", text.replace(b"\n", b"\r\n"))
    expected = "sha256:" + hashlib.sha256(text).hexdigest()
    assert config_hash(tmp_path / "lf") == config_hash(tmp_path / "crlf") == expected
    assert config_hash(tmp_path / "lf" / "config.yaml") == expected
    assert config_hash(tmp_path / "none") is None


def test_environment_names_python_platform_and_result_packages() -> None:
    env = environment()
    assert env["python"] == platform.python_version()
    assert env["implementation"] == platform.python_implementation()
    assert env["platform"] == sys.platform
    assert env["machine"] == platform.machine()
    packages = env["packages"]
    assert packages["ubunye"] == version("ubunye")
    assert packages["pandas"] == version("pandas")
    assert packages["pyarrow"] == version("pyarrow")
    assert "pytest" not in packages  # only distributions that can change a result
    assert "spark" not in env


def test_environment_hash_is_sha256_of_sorted_compact_json() -> None:
    env = {"python": "3.12.0", "packages": {"pandas": "3.1.1", "numpy": "2.4.0"}, "machine": "x86_64"}
    text = '{"machine":"x86_64","packages":{"numpy":"2.4.0","pandas":"3.1.1"},"python":"3.12.0"}'
    assert json.dumps(env, sort_keys=True, separators=(",", ":")) == text
    assert environment_hash(env) == "sha256:" + hashlib.sha256(text.encode()).hexdigest()
    assert environment_hash(dict(reversed(list(env.items())))) == environment_hash(env)


class _FakeConf:
    def get(self, key: str) -> str:
        return {"spark.sql.session.timeZone": "UTC"}[key]


class _FakeSpark:
    """A session-shaped object without a JVM (Spark Connect-like)."""

    version = "4.1.1"
    conf = _FakeConf()


def test_spark_environment_records_versions_and_plugin_or_fallback() -> None:
    env = environment(_FakeSpark())
    assert env["spark"] == "4.1.1"
    assert env["java"] is None  # no JVM reachable from this session
    assert env["ubunye_spark_plugin"] == "fallback"
    assert environment_hash(env) != environment_hash(environment())
