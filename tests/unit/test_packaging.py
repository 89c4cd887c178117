"""Packaging: the engine runs without the adapters' frameworks, each adapter says which extra
it needs, and pyproject.toml keeps the frameworks out of the core dependencies.

A missing framework is simulated in a subprocess with ``sys.modules[name] = None`` (which makes
``import name`` raise ``ImportError``), never by uninstalling anything.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FRAMEWORKS = ["langchain_core", "langchain", "langgraph", "langchain_classic", "llama_index"]


def _run_without(blocked: list[str], code: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter in which every module of ``blocked`` is missing."""
    prelude = f"import sys\nfor name in {blocked!r}:\n    sys.modules[name] = None\n"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
    )


@pytest.mark.parametrize(
    ("blocked", "statement", "extra"),
    [
        (["langchain_core"], "import langchain_prism", "langchain"),
        (["langchain_core"], "from langchain_prism.retriever import PrismRetriever", "langchain"),
        (["llama_index"], "import llamaindex_prism", "llamaindex"),
        (["llama_index.core"], "from llamaindex_prism import PrismMemory", "llamaindex"),
        (["langchain"], "from langchain_prism import PrismMemoryMiddleware", "langchain"),
        (["langgraph"], "from langchain_prism import PrismStore", "langgraph"),
        (["langchain_classic"], "from langchain_prism import PrismMemory", "classic"),
    ],
)
def test_adapter_without_its_framework_names_the_extra(
    blocked: list[str], statement: str, extra: str
) -> None:
    code = f"""
    try:
        {statement}
    except ImportError as exc:
        print(exc)
    else:
        raise SystemExit("no ImportError")
    """
    out = _run_without(blocked, code)
    assert out.returncode == 0, out.stderr + out.stdout
    assert f"pip install 'prism-memory[{extra}]'" in out.stdout


def test_engine_runs_without_any_framework() -> None:
    """Every ``prism_memory`` module imports, and a memory writes and recalls, with no LangChain,
    LangGraph or LlamaIndex installed: the core dependencies are all the engine needs."""
    code = """
    import importlib, pkgutil
    import prism_memory
    for info in pkgutil.walk_packages(prism_memory.__path__, "prism_memory."):
        importlib.import_module(info.name)
    from prism_memory import FakeEmbedder, Memory
    with Memory(location=":memory:", embedder=FakeEmbedder()) as m:
        m.remember("I prefer window seats on long flights", user_id="alice")
        m.add("Alice is allergic to peanuts", user_id="alice", kind="fact")
        assert m.search("peanuts", user_id="alice")
        print(m.recall("which seat does alice like?", user_id="alice").text)
    leaked = sorted({n.split(".")[0] for n in sys.modules if sys.modules[n] is not None}
                    & {"langchain_core", "langchain", "langgraph", "llama_index"})
    assert not leaked, leaked
    """
    out = _run_without(FRAMEWORKS, code)
    assert out.returncode == 0, out.stderr + out.stdout


def test_core_dependencies_leave_frameworks_to_extras() -> None:
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    core = " ".join(project["dependencies"])
    for framework in ("langchain", "langgraph", "llama-index"):
        assert framework not in core, f"{framework} belongs in an extra, not the core"
    extras = project["optional-dependencies"]
    assert {"langchain", "langgraph", "llamaindex", "classic", "pii", "plot", "screen"} <= set(
        extras
    )
    assert extras["all"] == [
        "prism-memory[" + ",".join(e for e in extras if e not in {"all", "dev"}) + "]"
    ]
    # make install installs every extra except pii (spaCy, and a model it would download)
    every_but_pii = ",".join(e for e in extras if e not in {"all", "dev", "pii"})
    assert f"prism-memory[{every_but_pii}]" in extras["dev"]
