"""The design card's layout: data flows one way and the engine stands alone."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def imported_top_level_modules(folder: str) -> set[str]:
    names: set[str] = set()
    for path in (ROOT / folder).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module.split(".")[0])
    return names


def test_the_engine_imports_only_the_standard_library_and_itself() -> None:
    outside = imported_top_level_modules("engine") - set(sys.stdlib_module_names) - {"engine"}
    assert outside == set()


def test_vision_never_imports_flask_or_the_dashboard() -> None:
    assert not imported_top_level_modules("vision") & {"flask", "web_dashboard"}


def test_every_top_level_folder_explains_itself() -> None:
    for folder in ("engine", "vision", "device", "web_dashboard", "chaodipi"):
        init = ROOT / folder / "__init__.py"
        assert ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))), folder
    for folder in ("models", "deploy", "bench", "engine"):
        assert (ROOT / folder / "README.md").is_file(), folder


def test_the_pi_runtime_needs_neither_torch_nor_ultralytics() -> None:
    # The Pi installs onnxruntime + OpenCV + numpy + Flask only (DEVELOPERS.md, design card).
    import subprocess

    code = (
        "import sys, chaodipi.cli, vision.detector, vision.grouping, vision.evaluate, device\n"
        "heavy = {'torch', 'ultralytics', 'matplotlib', 'PIL'} & set(sys.modules)\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
