"""The int8 embedding-table rewrite, on small hand-made ONNX graphs (wire format)."""

from __future__ import annotations

import pytest

from prism_memory.embeddings.onnx_graph import Node, gather_before_dequantise, read_fields


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        out.append((value & 0x7F) | (0x80 if value > 0x7F else 0))
        value >>= 7
        if not value:
            return bytes(out)


def _msg(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _tensor(name: str, dims: list[int]) -> bytes:
    return b"".join(_varint(1 << 3) + _varint(d) for d in dims) + _msg(8, name.encode())


def _model(scale_dims: list[int], extra: tuple[Node, ...] = ()) -> bytes:
    """Gather(Mul(Cast(W_q), W_scale), ids) -> emb, W_q an int8 [30, 4] initializer."""
    nodes = [
        Node("Cast", ["W_q"], ["W_f"], {"to": 1}),
        Node("Mul", ["W_f", "W_scale"], ["W"]),
        Node("Gather", ["W", "ids"], ["emb"], {"axis": 0}),
        *extra,
    ]
    graph = b"".join(_msg(1, n.encode()) for n in nodes)
    graph += _msg(5, _tensor("W_q", [30, 4])) + _msg(5, _tensor("W_scale", scale_dims))
    graph += _msg(12, _msg(1, b"emb"))
    return _msg(7, graph) + _varint(1 << 3) + _varint(10)  # graph, ir_version


def _nodes(model: bytes) -> list[tuple[str, list[str]]]:
    """(op, inputs) of each node, decoded with the module's reader."""
    (g,) = [f for f in read_fields(model) if f[0] == 7]
    raw = model[g[2] : g[3]]
    graph = raw[len(raw) - _length(raw) :]
    found = []
    for number, _w, s, e in read_fields(graph):
        if number == 1:
            node = graph[s:e]
            body = node[len(node) - _length(node) :]
            op, inputs = "", []
            for n, _w2, s2, e2 in read_fields(body):
                field = body[s2:e2]
                if n in (1, 4):
                    text = field[len(field) - _length(field) :].decode()
                    inputs, op = ([*inputs, text], op) if n == 1 else (inputs, text)
            found.append((op, inputs))
    return found


def _length(field: bytes) -> int:
    """The payload length of a length-delimited field (tag, length, payload)."""
    pos = 0
    while field[pos] & 0x80:
        pos += 1
    pos += 1
    value = shift = 0
    while True:
        byte = field[pos]
        value |= (byte & 0x7F) << shift
        pos += 1
        if byte < 0x80:
            return value
        shift += 7


def test_a_per_row_table_is_looked_up_in_int8_and_only_the_rows_are_dequantised() -> None:
    rewritten = gather_before_dequantise(_model([30, 1]))
    assert _nodes(rewritten) == [
        ("Gather", ["W_q", "ids"]),
        ("Gather", ["W_scale", "ids"]),
        ("Cast", ["emb_q"]),
        ("Mul", ["emb_f", "emb_scale"]),
    ]
    assert gather_before_dequantise(rewritten) is rewritten


@pytest.mark.parametrize(
    "model",
    [
        _model([1]),  # one scale for the table: nothing to gather row by row
        _model([30, 1], (Node("Identity", ["W"], ["W_copy"]),)),  # the float table is used twice
        b"",
    ],
)
def test_anything_but_that_exact_pattern_is_left_as_it_is(model: bytes) -> None:
    assert gather_before_dequantise(model) is model


def test_bytes_that_are_not_a_message_are_refused() -> None:
    with pytest.raises(ValueError):
        read_fields(b"\x0a\x05ab")  # says 5 bytes follow, has 2
