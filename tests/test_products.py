"""Products: written, checked, deterministic, and equal from a work tree and from a commit
(D-25, ruling 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from network.record.products import products as p
from network.record.read.loader import load_graph
from tests.graphs import GraphBuilder, git_commit

T = "demo"


@pytest.fixture()
def b(tmp_path: Path) -> GraphBuilder:
    gb = GraphBuilder(tmp_path / "g")
    gb.base()
    gb.target(T, title="Démo — unicode")
    gb.node(T, "root")
    part = gb.partial(T, "root", "20260102T000000Z", "alice", "-- approach: two halves\n")
    gb.hole(T, "root", 1, part, witness=True)
    gb.hole(T, "root", 2, part)
    gb.merge([part], date="2026-01-02")
    gb.merge([gb.proof(T, "root--h1")], date="2026-01-03")
    gb.postmortem(T, "root--h2", "20260104T000000Z", "bob")
    gb.ledger_line(1, 1, "proof", "alice", T, part, node="root")
    return gb


PRODUCTS = ["errors.json", "frontier.json", "info.json", "targets/demo/graph.json",
            "targets/index.json"]


def test_write_then_check(b: GraphBuilder) -> None:
    g = load_graph(b.root)
    written = p.write_products(g, b.root)
    assert set(PRODUCTS) <= set(written)
    assert p.check_products(load_graph(b.root), b.root) == []
    front = json.loads(b.read("frontier.json"))
    assert front["schema"] == "frontier/v2" and front["as_of"] == "2026-01-03T00:00:00Z"
    assert [e["node"] for e in front["nodes"]] == ["root", "root--h2"]
    graph = json.loads(b.read("targets/demo/graph.json"))
    assert [n["status"] for n in graph["nodes"]] == ["open", "proved", "blocked"]
    assert graph["routes"][0]["approach"] == "two halves"
    index = json.loads(b.read("targets/index.json"))
    assert index["targets"][0]["title"] == "Démo — unicode"
    assert "Démo" in b.read("targets/index.json").decode()  # ensure_ascii=False
    errors = json.loads(b.read("errors.json"))
    assert "claim-node-closed" in {e["code"] for e in errors["errors"]}


def test_check_names_each_differing_product(b: GraphBuilder) -> None:
    g = load_graph(b.root)
    p.write_products(g, b.root)
    b.write("frontier.json", b.read("frontier.json") + b" ")
    b.remove("info.json")
    b.write("targets/gone/graph.json", "{}\n")
    assert p.check_products(load_graph(b.root), b.root) == [
        "frontier.json", "info.json", "targets/gone/graph.json"]
    p.write_products(load_graph(b.root), b.root)
    assert not (b.root / "targets/gone/graph.json").exists()
    assert p.check_products(load_graph(b.root), b.root) == []
    # a new merge changes the products
    b.merge([b.proof(T, "root--h2", kind="Witness")], date="2026-01-09")
    assert "frontier.json" in p.check_products(load_graph(b.root), b.root)


def test_deterministic_bytes(b: GraphBuilder) -> None:
    one = p.products(load_graph(b.root))
    two = p.products(load_graph(b.root))
    assert one == two
    for data in one.values():
        assert data.endswith(b"\n")
        obj = json.loads(data)
        assert p.render(obj) == data
        assert data == (json.dumps(obj, sort_keys=True, indent=2, ensure_ascii=False)
                        + "\n").encode()


def test_render_equals_json_dumps_on_awkward_values() -> None:
    obj = {"b": [1, 2.5, -0.0, 1e300, True, False, None, "é\u2028\"\\\n\x01"],
           "a": {}, "c": [], "d": [[], {}, [{"z": 1, "y": [None]}]], "é": "ünï"}
    assert p.render(obj) == (json.dumps(obj, sort_keys=True, indent=2, ensure_ascii=False)
                             + "\n").encode()
    with pytest.raises(TypeError):
        p.render({1: "x"})
    with pytest.raises(TypeError):
        p.render({"x": object()})


def test_commit_source_gives_the_same_products(b: GraphBuilder) -> None:
    p.write_products(load_graph(b.root), b.root)
    sha = git_commit(b.root, "graph with products")
    at_commit = load_graph(b.root, sha)
    assert at_commit.commit == sha
    assert p.products(at_commit) == p.products(load_graph(b.root))
    assert p.check_products(at_commit, b.root) == []
    # the work tree moves on; the commit's products still check against the commit
    b.merge([b.proof(T, "root--h2")], date="2026-02-01")
    assert p.check_products(load_graph(b.root, sha), b.root) == []
    assert p.check_products(load_graph(b.root), b.root) != []
