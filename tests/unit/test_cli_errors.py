"""Bad input through ``prism``: exit code 2, one line on stderr that says what to do, no traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from prism_memory import FakeEmbedder, Memory
from prism_memory.cli import main

DIM = 64

# qdrant-client warns when it cannot read the version of the (unreachable) server
pytestmark = pytest.mark.filterwarnings("ignore:Failed to obtain server version")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv), embedder=FakeEmbedder(dim=DIM))
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(err: str, *needles: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("prism: error: ")
    assert "Traceback" not in err
    for needle in needles:
        assert needle in lines[0], lines[0]


def test_missing_scope(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run(capsys, "--path", str(tmp_path / "s"), "add", "hello")
    assert code == 2 and out == ""
    assert_one_line_error(err, "user_id")


@pytest.mark.parametrize("text", ["", "   \n\t "])
def test_empty_or_whitespace_text(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str
) -> None:
    store = str(tmp_path / "s")
    code, _, err = run(capsys, "--path", store, "add", text, "--user", "alice")
    assert code == 2
    assert_one_line_error(err, "empty")
    with Memory(path=store, embedder=FakeEmbedder(dim=DIM)) as m:
        assert m.count(user_id="alice") == 0


def test_bad_metadata_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(
        capsys, "--path", str(tmp_path / "s"), "add", "x", "--user", "a", "--metadata", "{oops"
    )
    assert code == 2
    assert_one_line_error(err, "--metadata")


def test_bad_event_time(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(
        capsys, "--path", str(tmp_path / "s"), "add", "x", "--user", "a", "--event-time", "soon"
    )
    assert code == 2
    assert_one_line_error(err, "ISO")


def test_bad_filter_key(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(
        capsys,
        "--path",
        str(tmp_path / "s"),
        "search",
        "x",
        "--user",
        "a",
        "--filter",
        "colour=red",
    )
    assert code == 2
    assert_one_line_error(err, "colour")


def _export(tmp_path: Path, n: int) -> Path:
    dump = tmp_path / "dump.jsonl"
    with Memory(path=tmp_path / "src", embedder=FakeEmbedder(dim=DIM)) as m:
        m.add_many([f"memory {i}" for i in range(n)], user_id="alice")
        m.export_jsonl(dump, user_id="alice")
    return dump


def _corrupt_line_2(dump: Path) -> None:
    lines = dump.read_text().splitlines()
    lines[1] = lines[1][: len(lines[1]) // 2]  # truncated JSON
    dump.write_text("\n".join(lines) + "\n")


def test_corrupt_jsonl_line_imports_nothing_and_names_the_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    dump = _export(tmp_path, 4)
    _corrupt_line_2(dump)
    target = str(tmp_path / "dst")
    code, _, err = run(capsys, "--path", target, "import", str(dump))
    assert code == 2
    assert_one_line_error(err, "line 2", "--skip-bad")
    with Memory(path=target, embedder=FakeEmbedder(dim=DIM)) as m:
        assert m.count(user_id="alice") == 0


def test_corrupt_jsonl_line_with_skip_bad_keeps_the_rest(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    dump = _export(tmp_path, 4)
    _corrupt_line_2(dump)
    target = str(tmp_path / "dst")
    code, out, err = run(capsys, "--path", target, "import", str(dump), "--skip-bad", "--json")
    assert code == 0
    report = json.loads(out)
    assert report["imported"] == 3 and report["skipped"] == 1
    assert report["errors"][0].startswith("line 2")
    assert "line 2" in err
    with Memory(path=target, embedder=FakeEmbedder(dim=DIM)) as m:
        assert m.count(user_id="alice") == 3


def test_import_of_a_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(
        capsys, "--path", str(tmp_path / "s"), "import", str(tmp_path / "nope.jsonl")
    )
    assert code == 2
    assert_one_line_error(err, "nope.jsonl")


def test_unreachable_url_names_the_url(capsys: pytest.CaptureFixture[str]) -> None:
    url = "http://127.0.0.1:9"  # discard port: nothing listens, connection refused at once
    code, _, err = run(capsys, "--url", url, "list", "--user", "alice")
    assert code == 2
    assert_one_line_error(err, url)


_HOLDER = (
    "import sys\n"
    "from prism_memory import FakeEmbedder, Memory\n"
    f"m = Memory(path=sys.argv[1], embedder=FakeEmbedder(dim={DIM}))\n"
    "print('ready', flush=True)\n"
    "sys.stdin.readline()\n"
    "m.close()\n"
)


def test_locked_path(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    store = tmp_path / "s"
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(store)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        code, _, err = run(capsys, "--path", str(store), "list", "--user", "alice")
    finally:
        holder.communicate("\n", timeout=300)
    assert code == 2
    assert_one_line_error(err, "already open in another process", "url")


def test_path_open_in_this_process(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    store = tmp_path / "s"
    with Memory(path=store, embedder=FakeEmbedder(dim=DIM)) as m:
        m.add("shared", user_id="alice")
        code, out, err = run(capsys, "--path", str(store), "list", "--user", "alice")
        assert code == 0 and "shared" in out, err  # same process: the open store is shared
        code, _, err = run(capsys, "--path", str(store), "add", "x", "--user", "alice")
        assert code == 0, err
        assert m.count(user_id="alice") == 2
    with Memory(path=store, embedder=FakeEmbedder(dim=DIM, name="another-model")):
        code, _, err = run(capsys, "--path", str(store), "list", "--user", "alice")
    assert code == 2
    assert_one_line_error(err, "already open in this process", "another-model")


def test_two_engines_at_once(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(
        capsys, "--path", str(tmp_path), "--location", ":memory:", "list", "--user", "a"
    )
    assert code == 2
    assert_one_line_error(err, "only one of")


def test_api_key_without_url(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(
        capsys, "--path", str(tmp_path / "s"), "--api-key", "k", "list", "--user", "a"
    )
    assert code == 2
    assert_one_line_error(err, "--api-key")


def test_delete_needs_ids_or_all(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "--path", str(tmp_path / "s"), "delete", "--user", "alice")
    assert code == 2
    assert_one_line_error(err, "--all")


def test_usage_error_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "frobnicate")
    assert code == 2 and "invalid choice" in err


def test_unexpected_error_is_one_line_exit_1(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(Memory, "stats", boom)
    code, _, err = run(capsys, "--path", str(tmp_path / "s"), "stats", "--user", "a")
    assert code == 1
    assert_one_line_error(err, "RuntimeError", "disk on fire", "--debug")
