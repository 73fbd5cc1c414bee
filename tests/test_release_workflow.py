""".github/workflows/release.yml builds through scripts/release-build, the script that runs here
too (DRY_RUN=1 REUSE_JARS=1), so what the workflow builds is what is tested here; only the
publishing steps stay in the workflow, and the signed bundles are checked before the upload."""
from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = yaml.safe_load((ROOT / ".github" / "workflows" / "release.yml").read_text(encoding="utf-8"))
SCRIPT = (ROOT / "scripts" / "release-build").read_text(encoding="utf-8")


def runs(job: str) -> list[str]:
    return [step["run"] for step in WORKFLOW["jobs"][job]["steps"] if "run" in step]


def test_the_build_job_is_the_script_that_runs_here() -> None:
    build = runs("build")
    assert "bash scripts/release-build" in build
    for inline in ("build-jar", "pom-lint", "twine", "scripts/wheel", "maven-bundle", "sha256sum"):
        assert not any(inline in r for r in build), f"{inline} runs in the workflow, not in scripts/release-build"


def test_the_script_builds_and_checks_every_release_artifact() -> None:
    for command in ("UBUNYE_RELEASE=1 scripts/build-jar --all --force --publish", "scripts/pom-lint --release",
                    "SDIST=1 bash scripts/wheel", "twine check --strict", "bash scripts/maven-bundle",
                    "scripts/bundle-lint --lines", "SHA256SUMS", 'GITHUB_REF_NAME'):
        assert command in SCRIPT, command


def test_signed_bundles_are_checked_before_the_upload() -> None:
    central = runs("maven-central")
    signing = next(i for i, r in enumerate(central) if "SIGN=1 scripts/maven-bundle" in r)
    upload = next(i for i, r in enumerate(central) if "central.sonatype.com" in r)
    assert "bundle-lint --signed" in central[signing] and signing < upload
