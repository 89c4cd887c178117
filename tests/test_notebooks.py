"""Every cookbook notebook runs top to bottom, offline, on the project's virtualenv.

The kernel is this interpreter: a kernelspec pointing at ``sys.executable`` is installed into
the venv (``ipykernel install --sys-prefix``) by the fixture, so a fresh clone needs nothing
beyond ``make test``. Notebooks run in a temporary directory so they leave no files behind, and no cell may
print a warning.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

COOKBOOK = Path(__file__).resolve().parent.parent / "cookbook"
NOTEBOOKS = sorted(COOKBOOK.glob("*.ipynb"))
KERNEL = "prism-memory-venv"


@pytest.fixture(scope="session")
def kernel_name() -> str:
    """Install (idempotently) a kernelspec for this interpreter inside the venv."""
    subprocess.run(
        [sys.executable, "-m", "ipykernel", "install", "--sys-prefix", "--name", KERNEL,
         "--display-name", "Python (prism-memory)"],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return KERNEL


def test_cookbook_has_the_langchain_notebooks() -> None:
    names = {p.name for p in NOTEBOOKS}
    assert {
        "01_quickstart.ipynb",
        "02_langchain_agent_memory.ipynb",
        "03_langgraph_store.ipynb",
        "04_lcel_retriever_and_history.ipynb",
    } <= names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path: Path, kernel_name: str, tmp_path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    assert all(not cell.get("outputs") for cell in nb.cells if cell.cell_type == "code"), (
        f"{path.name} is committed with outputs; rebuild it or clear them"
    )
    env_before = os.environ.get("HF_HUB_OFFLINE")
    os.environ["HF_HUB_OFFLINE"] = "1"  # the kernel inherits it: nothing may download
    try:
        NotebookClient(
            nb,
            kernel_name=kernel_name,
            timeout=300,
            resources={"metadata": {"path": str(tmp_path)}},
        ).execute()
    finally:
        if env_before is None:
            os.environ.pop("HF_HUB_OFFLINE", None)
    errors = [
        out for cell in nb.cells for out in cell.get("outputs", []) if out.output_type == "error"
    ]
    assert not errors
    # a reader must not see warnings (deprecations, tokenizer chatter) under any cell
    warned = [
        out.get("text", "")
        for cell in nb.cells
        for out in cell.get("outputs", [])
        if out.output_type == "stream"
        and out.get("name") == "stderr"
        and "warn" in out.get("text", "").lower()
    ]
    assert not warned, f"{path.name} printed warnings: {warned}"


def test_notebooks_and_langchain_docs_teach_the_langchain_1x_way() -> None:
    """Agent + checkpointer + middleware + store come first; nothing deprecated is taught."""
    for path in NOTEBOOKS:
        code = "\n".join(
            c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"
        )
        assert "RunnableWithMessageHistory" not in code, path.name
        assert "filterwarnings" not in code or "deprecat" not in code.lower(), path.name
    docs = (COOKBOOK.parent / "docs" / "langchain.md").read_text(encoding="utf-8")
    first_block = docs.split("```python", 1)[1].split("```", 1)[0]
    for part in ("create_agent(", "checkpointer=", "PrismMemoryMiddleware(", "store=PrismStore("):
        assert part in first_block, part
    assert "RunnableWithMessageHistory(" not in docs
