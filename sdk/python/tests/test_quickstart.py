"""The package builds as a wheel that holds the generated client, and the
README's quick start runs as written with that wheel installed (not src/),
against a real `contrack all` (make sdk-test; without one it skips)."""

import os
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parents[1]
URL = os.environ.get("CONTRACK_SDK_TEST_URL")
BIN = os.environ.get("CONTRACK_SDK_TEST_BIN")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """A directory with the package installed from a wheel built here."""
    tmp = tmp_path_factory.mktemp("wheel")
    # Built from a copy: a build leaves build/ and *.egg-info where it runs.
    src = tmp / "contrack-sdk"
    shutil.copytree(HERE, src, ignore=shutil.ignore_patterns("tests", "build", "*.egg-info", "__pycache__", ".pytest_cache"))
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet"]
    subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(tmp / "dist"), str(src)], check=True, capture_output=True)
    wheels = list((tmp / "dist").glob("contrack_sdk-*.whl"))
    assert len(wheels) == 1, wheels
    subprocess.run([*pip, "install", "--no-deps", "--target", str(tmp / "site"), str(wheels[0])], check=True, capture_output=True)
    return tmp / "site"


def test_wheel_holds_the_generated_client(site, tmp_path):
    assert (site / "contrack_sdk" / "openapi" / "api" / "subscriptions" / "read_feed.py").is_file()
    out = subprocess.run(
        [sys.executable, "-c", "import contrack_sdk, contrack_sdk.openapi.api.account.get_account; print(contrack_sdk.__file__)"],
        check=True, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(site)}, cwd=tmp_path,
    ).stdout
    assert out.startswith(str(site)), out


@pytest.mark.skipif(not URL or not BIN, reason="CONTRACK_SDK_TEST_URL and CONTRACK_SDK_TEST_BIN are not set: make sdk-test runs this against a real contrack all")
def test_quick_start_runs_as_written(site, tmp_path):
    readme = (HERE / "README.md").read_text()
    code = readme.split("## Quick start", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    (tmp_path / "quickstart.py").write_text(code)
    key = subprocess.run(
        [BIN, "admin", "create-key", "--client", "sdk-py-qs-" + secrets.token_hex(4), "--env", "sandbox"], check=True, capture_output=True, text=True
    ).stdout.strip().splitlines()[-1]
    env = {**os.environ, "PYTHONPATH": str(site), "CONTRACK_URL": URL, "CONTRACK_API_KEY": key}
    run = subprocess.run([sys.executable, "quickstart.py"], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "quickstart-" in run.stdout, run.stdout
    assert "EQUIPMENT" in run.stdout or "TRANSPORT" in run.stdout, run.stdout
