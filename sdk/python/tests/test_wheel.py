"""The package builds as a wheel that holds the generated client (the
README's quick start, installed from a clone into a new venv, runs as
written in sdk/harness/quickstart, a suite of make sdk-test)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parents[1]


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
