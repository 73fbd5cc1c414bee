"""scripts/servers.py installs Azurite once, even when the test processes of one run start it together.

Two ``npm install`` into one folder at once fail (npm's ENOTEMPTY; seen in an integration run,
where both xdist workers started the store servers); an interrupted install must not leave a
folder that looks installed. A stand-in ``npm`` on PATH records each call and writes the
command after a pause, so two processes overlap.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

FAKE_NPM = textwrap.dedent("""\
    #!/usr/bin/env python3
    import os, sys, time
    prefix = sys.argv[sys.argv.index("--prefix") + 1]
    with open(os.environ["NPM_CALLS"], "a") as calls:
        calls.write(prefix + "\\n")
    time.sleep(1.0)
    binary = os.path.join(prefix, "node_modules", ".bin")
    os.makedirs(binary, exist_ok=True)
    with open(os.path.join(binary, "azurite-blob"), "w") as f:
        f.write("installed by the stand-in npm\\n")
""")

CALL = textwrap.dedent("""\
    import importlib.util, sys
    from pathlib import Path
    spec = importlib.util.spec_from_file_location("servers", sys.argv[1])
    servers = importlib.util.module_from_spec(spec)
    sys.modules["servers"] = servers
    spec.loader.exec_module(servers)
    servers.AZURITE_DIR = Path(sys.argv[2])
    print(servers._azurite_bin())
""")


def _setup(tmp_path: Path) -> dict[str, str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    npm = bin_dir / "npm"
    npm.write_text(FAKE_NPM)
    npm.chmod(0o755)
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
            "NPM_CALLS": str(tmp_path / "calls.txt")}


def _start(env: dict[str, str], target: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", CALL, str(ROOT / "scripts" / "servers.py"), str(target)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_two_processes_starting_azurite_together_install_it_once(tmp_path: Path) -> None:
    env = _setup(tmp_path)
    target = tmp_path / "tools" / "azurite"
    procs = [_start(env, target) for _ in range(2)]
    outs = [p.communicate(timeout=60) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    expected = str(target / "node_modules" / ".bin" / "azurite-blob")
    assert [o[0].strip() for o in outs] == [expected, expected]
    calls = (tmp_path / "calls.txt").read_text().splitlines()
    assert len(calls) == 1, calls  # one install; the other process waited for it
    assert Path(expected).read_text() == "installed by the stand-in npm\n"
    assert [p.name for p in target.parent.iterdir() if p.name.startswith("azurite.partial")] == []


def test_a_half_install_is_replaced_not_taken_for_installed(tmp_path: Path) -> None:
    env = _setup(tmp_path)
    target = tmp_path / "tools" / "azurite"
    (target / "node_modules" / "azurite").mkdir(parents=True)  # interrupted: no .bin yet
    proc = _start(env, target)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert (target / "node_modules" / ".bin" / "azurite-blob").exists()
    assert not (target / "node_modules" / "azurite").exists()  # the half folder went
    assert len((tmp_path / "calls.txt").read_text().splitlines()) == 1


def test_an_installed_azurite_is_not_installed_again(tmp_path: Path) -> None:
    env = _setup(tmp_path)
    target = tmp_path / "tools" / "azurite"
    (target / "node_modules" / ".bin").mkdir(parents=True)
    (target / "node_modules" / ".bin" / "azurite-blob").write_text("old\n")
    proc = _start(env, target)
    assert proc.communicate(timeout=60)[0].strip().endswith("azurite-blob")
    assert not (tmp_path / "calls.txt").exists()
