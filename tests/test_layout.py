"""The project's layout: data flows one way (device → vision → engine → store → web, the CLI on
top), no module imports itself back through others, and every folder explains itself."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "vision", "device", "chaodipi", "web_dashboard")
MAX_MODULES_SIDE_BY_SIDE = 16


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_modules() -> dict[str, Path]:
    return {module_name(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}


def imports_of(path: Path, modules: dict[str, Path]) -> Iterator[str]:
    """Every project module ``path`` imports, at module level, inside functions or for type
    checking alike: each of them can close a cycle."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in modules:
                    yield alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                yield full if full in modules else node.module


def import_graph() -> dict[str, set[str]]:
    modules = project_modules()
    return {
        name: {m for m in imports_of(path, modules) if m in modules and m != name}
        for name, path in modules.items()
    }


def imported_top_level_modules(folder: str) -> set[str]:
    names: set[str] = set()
    for path in (ROOT / folder).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module.split(".")[0])
    return names


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)):
            return found
    return None


def test_no_module_imports_itself_back_through_others() -> None:
    assert find_cycle(import_graph()) is None


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_the_engine_imports_only_the_standard_library_and_itself() -> None:
    outside = imported_top_level_modules("engine") - set(sys.stdlib_module_names) - {"engine"}
    assert outside == set()


def test_vision_never_imports_flask_the_dashboard_or_the_application() -> None:
    assert not imported_top_level_modules("vision") & {"flask", "web_dashboard", "chaodipi"}


def test_the_table_time_reader_never_imports_the_data_factory_or_training() -> None:
    graph = import_graph()
    reader = [m for m in graph if m.startswith("vision.") and m.count(".") == 1]
    assert reader, "the reader's modules sit at the top of vision/"
    for module in reader:
        offline = {m for m in graph[module] if m.startswith(("vision.synth", "vision.training"))}
        assert not offline, f"{module} imports {offline}"


def test_the_hub_logic_never_imports_its_pages() -> None:
    graph = import_graph()
    for module in graph:
        if module.startswith("chaodipi.hub") and module != "chaodipi.hub.command":
            assert not {m for m in graph[module] if m.startswith("web_dashboard")}, module


def test_replay_leaves_folding_a_hand_to_the_table() -> None:
    assert not (ROOT / "chaodipi" / "replay" / "hand_fold.py").exists()
    assert "chaodipi.table.hand_fold" in import_graph()["chaodipi.replay.scoring"]


def test_no_folder_holds_more_than_sixteen_modules_side_by_side() -> None:
    folders = {p.parent for pkg in (*PACKAGES, "tests") for p in (ROOT / pkg).rglob("*.py")}
    for folder in folders:
        modules = [p for p in folder.glob("*.py") if p.name not in ("__init__.py", "conftest.py")]
        assert len(modules) <= MAX_MODULES_SIDE_BY_SIDE, f"{folder}: {len(modules)} modules"


def test_every_package_explains_itself() -> None:
    for init in (ROOT / pkg / "__init__.py" for pkg in PACKAGES):
        assert ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))), init
    for init in (p for pkg in PACKAGES for p in (ROOT / pkg).rglob("__init__.py")):
        assert ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))), init
    for folder in ("models", "deploy", "bench", "engine"):
        assert (ROOT / folder / "README.md").is_file(), folder


def test_the_pi_runtime_needs_neither_torch_nor_ultralytics() -> None:
    # The Pi installs onnxruntime + OpenCV + numpy + Flask only.
    code = (
        "import sys, chaodipi.cli.main, vision.detector, vision.grouping\n"
        "import vision.training.evaluate, device\n"
        "heavy = {'torch', 'ultralytics', 'matplotlib', 'PIL'} & set(sys.modules)\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
