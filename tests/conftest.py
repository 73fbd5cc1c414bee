"""Shared settings of the fast test suite.

Hypothesis profiles: ``ci`` (the default here) runs derandomized, so CI is
reproducible; set ``HYPOTHESIS_PROFILE=dev`` for fresh random examples.

``unavailable``: a test whose anchor (the shared fixtures beside the checkout, a JDK 19+) is
missing skips on a developer's fresh clone, and fails in CI (``CI=true``), which always has it.
"""
from __future__ import annotations

import os
from typing import Callable, NoReturn

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "dev",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def _signing_key_made_once() -> None:
    """The per-user signing key is made here, before any test: a run that makes it logs its public
    key once (python/ubunye/lineage/attestation/keys.py), which no test's output should depend on."""
    from ubunye.lineage.attestation.keys import default_signer

    try:
        default_signer()
    except ValueError:
        pass  # an unwritable home: runs say so themselves


_signing_key_made_once()


@pytest.fixture(autouse=True)
def _fresh_process_masker():  # type: ignore[no-untyped-def]
    """Each test masks as a fresh process would: the secrets an earlier test's runs taught the
    process's masker (ubunye.masking.process) are forgotten after each test."""
    yield
    from ubunye.masking import process

    process().clear()


@pytest.fixture
def unavailable() -> Callable[[str], NoReturn]:
    """``unavailable(reason)``: fail in CI (``CI=true``), which has every anchor; skip elsewhere."""

    def missing(reason: str) -> NoReturn:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason}; CI=true, and CI always has it")
        pytest.skip(reason)

    return missing


@pytest.fixture
def packaged_jar(monkeypatch: pytest.MonkeyPatch, tmp_path: "os.PathLike[str]") -> None:
    """A packaged jar for this line, whether or not this checkout's jars are built yet (CI builds
    them in the background while these tests run)."""
    from ubunye.spark import jar

    info = jar.JarInfo(path=tmp_path / "ubunye-spark.jar", version="0", spark="4.1.0", scala="2.13.16")
    monkeypatch.setattr(jar, "jar_info", lambda *a, **k: info)
