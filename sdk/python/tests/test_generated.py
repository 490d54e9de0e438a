import filecmp
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]


def tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts}


def test_generated_client_matches_a_fresh_generation(tmp_path):
    """src/contrack_sdk/openapi is what generate.sh (the pinned
    openapi-python-client and ruff) makes of docs/openapi.json now."""
    out = tmp_path / "openapi"
    env = {**os.environ, "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")}
    subprocess.run([str(HERE / "generate.sh"), str(out)], check=True, env=env, capture_output=True)
    committed = HERE / "src" / "contrack_sdk" / "openapi"
    assert tree(out) == tree(committed), "files differ from a fresh generation: run make sdk"
    differing = [name for name in sorted(tree(out)) if not filecmp.cmp(out / name, committed / name, shallow=False)]
    assert not differing, f"{differing} differ from a fresh generation: run make sdk"
