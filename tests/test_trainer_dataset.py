"""The dataset compiler (issue 14; seed 000 "Synthetic data needs a family tree"; D-13,
D-34): positives only from verified artifacts, failures ranked and never taught, splits by
connected component before expansion, the frontier and miniF2F Test sealed with zero
contamination (the leakage test), one manifest, the same bytes for the same input."""

from __future__ import annotations

import io
import json
import shutil
import tarfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from network.cli import main
from network.errors import LemmataError
from network.record import derive
from network.record.read.loader import load_graph
from network.trainer import dataset as D
from network.trainer.prompts import PROMPT_CONTRACT
from tests.trainer_support import MINIF2F, PARTIAL_TEXT, SECRET_TACTIC, build_trainer_graph


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("tg") / "graph"
    _, sha = build_trainer_graph(root)
    out = tmp_path_factory.mktemp("ds") / "out"
    D.write_dataset(D.compile_dataset(root, minif2f=[MINIF2F]), out)
    rows = {name: [json.loads(line) for line in (out / name).read_text("utf-8").splitlines()]
            for name in D.FILES}
    return {"root": root, "sha": sha, "out": out, "rows": rows,
            "manifest": json.loads((out / "manifest.json").read_text("utf-8"))}


def _items(rows: list[dict[str, Any]]) -> set[str]:
    return {r["item"] for r in rows}


# --- the leakage test --------------------------------------------------------------------


def test_zero_contamination_between_training_and_sealed(compiled: dict[str, Any]) -> None:
    """Recomputed from the written files alone: no target, statement hash (exact or
    canonical) or rendered prompt of a sealed row is held by a training-side row; every
    frontier node and every miniF2F Test statement is sealed and nowhere else."""
    rows = compiled["rows"]
    train_side = rows["sft.jsonl"] + rows["ranking.jsonl"] + rows["statements.jsonl"]
    sealed = rows["sealed.jsonl"]
    for key in ("target_key", "statement_sha256", "canonical_sha256", "prompt_sha256"):
        shared = {r[key] for r in train_side if r.get(key)} & \
            {r[key] for r in sealed if r.get(key)}
        assert shared == set(), key
    assert {r["split"] for r in train_side} <= {"train", "valid"}
    assert {r["split"] for r in sealed} == {"sealed"}
    graph = load_graph(compiled["root"], commit=compiled["sha"])
    frontier = {f"graph:{e['target']}/{e['node']}" for e in derive.frontier(graph)}
    assert frontier and frontier <= _items(sealed)
    assert not frontier & _items(train_side)
    with tarfile.open(MINIF2F) as tf:
        tests = {f"minif2f:Test/{Path(n).stem}" for n in tf.getnames()
                 if n.startswith("MiniF2F/Test/") and n.endswith(".lean")}
    assert len(tests) == 244 and tests <= _items(sealed)
    assert not tests & _items(train_side)
    assert not any(SECRET_TACTIC in r["prompt"] for r in train_side + sealed)


def test_a_renamed_copy_of_a_test_statement_is_sealed(compiled: dict[str, Any]) -> None:
    """copycat/root restates miniF2F Test's aime_1983_p1 under another name, with other
    comments and spacing, and carries a verified proof: the canonical statement edge
    joins it to the Test item, so it is sealed and its proof withheld."""
    rows = compiled["rows"]
    assert "graph:copycat/root" in _items(rows["sealed.jsonl"])
    assert not any(r["item"] == "graph:copycat/root" for r in rows["sft.jsonl"])
    [row] = [r for r in rows["sealed.jsonl"] if r["item"] == "graph:copycat/root"]
    assert row["sealed"] == "joined"
    assert compiled["manifest"]["withheld_in_sealed_components"]["sft"] >= 2


def test_a_target_with_a_frontier_node_is_sealed_whole(compiled: dict[str, Any]) -> None:
    """open/done is proved and verified, but its target holds the frontier's open/root:
    the target edge seals it too (no row of one target on both sides)."""
    sealed = _items(compiled["rows"]["sealed.jsonl"])
    assert {"graph:open/root", "graph:open/done"} <= sealed
    assert not any(r["item"].startswith("graph:open/") for r in compiled["rows"]["sft.jsonl"])


def test_check_sealed_refuses_a_contaminated_assignment() -> None:
    items, _ = D.read_minif2f(MINIF2F)
    splits = D.assign_splits(items)
    D.check_sealed(items, splits)
    test_item = next(it for it in items if it.sealed)
    with pytest.raises(LemmataError) as err:
        D.check_sealed(items, {**splits, test_item.id: "train"})
    assert err.value.code == "trainer-split-contaminated"
    # a training item sharing only a rendered prompt with a sealed one is caught too
    valid = next(it for it in items if not it.sealed)
    twin = D.Item("graph:x/y", "graph", "graph:x", "0" * 64, None, valid.bundle,
                  {"proof": test_item.prompts["proof"]})
    with pytest.raises(LemmataError) as err2:
        D.check_sealed([*items, twin], {**splits, twin.id: "train"})
    assert err2.value.code == "trainer-split-contaminated"


def test_components_join_on_a_shared_prompt_alone() -> None:
    a = D.Item("a", "graph", "ta", "1" * 64, None, {}, {"proof": "same"})
    b = D.Item("b", "graph", "tb", "2" * 64, None, {}, {"proof": "same"})
    c = D.Item("c", "graph", "tc", "3" * 64, None, {}, {"proof": "other"})
    assert [[i.id for i in comp] for comp in D.components([c, b, a])] == [["a", "b"], ["c"]]
    c.sealed = "frontier"
    b.prompts = {"proof": "other"}
    assert D.assign_splits([a, b, c])["b"] == "sealed"


def test_a_training_component_is_always_reserved() -> None:
    items = [D.Item(f"i{k}", "graph", f"t{k}", f"{k:064x}", None, {}, {"proof": str(k)})
             for k in range(3)]
    assert "train" in D.assign_splits(items, valid_fraction=1.0).values()


# --- positives, failures ----------------------------------------------------------------


def test_positives_come_only_from_verified_artifacts(compiled: dict[str, Any]) -> None:
    sft = compiled["rows"]["sft.jsonl"]
    assert sorted((r["artifact"]["kind"], r["task"]) for r in sft) == [
        ("alternate", "proof"), ("partial", "partial"), ("proof", "proof")]
    for r in sft:
        assert r["item"] == "graph:calib/root" and r["split"] in ("train", "valid")
        assert r["attestation"]["path"] in ("attestations/a-root.json",
                                            "attestations/a-alt.json",
                                            "attestations/a-part.json")
    [part] = [r for r in sft if r["task"] == "partial"]
    assert part["completion"] == PARTIAL_TEXT and "-- label:" in part["prompt"]
    assert any(SECRET_TACTIC in r["completion"] for r in sft)
    refused = {r["path"].split("/")[3]: r["reason"] for r in compiled["manifest"]["refused"]}
    assert refused == {
        "forged-changed": "no-pass-attestation",    # bytes changed after the attestation
        "forged-elsewhere": "no-pass-attestation",  # another node's attestation
        "forged-othergraph": "graph-id-mismatch",
        "forged-failed": "no-pass-attestation",     # a failed attestation only
        "forged-pin": "toolchain-pin-mismatch",
        "forged-rogue": "not-gate-signed",           # a key the graph does not publish
        "forged-stmt": "statement-hash-mismatch",
        "forged-unsigned": "not-gate-signed",
    }


def test_failures_rank_and_never_teach(compiled: dict[str, Any]) -> None:
    rank = compiled["rows"]["ranking.jsonl"]
    kinds = sorted(r["kind"] for r in rank if r["item"] == "graph:calib/root")
    assert kinds == ["attestation", "postmortem"]
    att = next(r for r in rank if r["kind"] == "attestation")
    assert att["diagnostics"] == [{"step": 5, "code": "sorry-used", "line": 2}]
    assert "calib_leaky_message" not in json.dumps(rank)  # gate messages never ride
    pm = next(r for r in rank if r["kind"] == "postmortem")
    assert pm["terminal_goal_state"] == "⊢ False"
    assert not any("completion" in r for r in rank)
    sft_paths = {r["artifact"]["path"] for r in compiled["rows"]["sft.jsonl"]}
    assert not sft_paths & {r["path"] for r in rank if r["kind"] != "attestation"}


# --- manifest and determinism ------------------------------------------------------------


def test_the_manifest_binds_commit_rows_and_contract(compiled: dict[str, Any]) -> None:
    man = compiled["manifest"]
    assert man["graph"]["commit"] == compiled["sha"]
    assert man["prompt_contract"] == PROMPT_CONTRACT
    assert man["sources"]["minif2f"][0]["archive"] == MINIF2F.name
    assert D.verify_dataset(compiled["out"]) == man
    for name in D.FILES:
        assert [r["id"] for r in compiled["rows"][name]] == man["files"][name]["rows"]


def test_a_changed_row_fails_verification(compiled: dict[str, Any], tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(compiled["out"], copy)
    data = (copy / "sft.jsonl").read_text("utf-8").replace("norm_num", "sorry")
    (copy / "sft.jsonl").write_text(data, "utf-8")
    with pytest.raises(LemmataError) as err:
        D.verify_dataset(copy)
    assert err.value.code == "trainer-source-malformed"


def test_same_input_same_bytes(compiled: dict[str, Any], tmp_path: Path) -> None:
    """Compiled again, from a copy of the graph elsewhere: every file is byte-identical."""
    moved = tmp_path / "elsewhere" / "graph"
    shutil.copytree(compiled["root"], moved)
    again = D.compile_dataset(moved, minif2f=[MINIF2F])
    D.write_dataset(again, tmp_path / "again")
    for name in (*D.FILES, "manifest.json"):
        assert (tmp_path / "again" / name).read_bytes() == \
            (compiled["out"] / name).read_bytes(), name


def test_a_named_commit_is_bound_as_40_hex(compiled: dict[str, Any]) -> None:
    again = D.compile_dataset(compiled["root"], commit="HEAD")
    assert again["manifest"]["graph"]["commit"] == compiled["sha"]
    with pytest.raises(LemmataError) as err:
        D.compile_dataset(compiled["root"], commit="no-such-ref")
    assert err.value.code == "git-error"


def test_the_cli_compiles(compiled: dict[str, Any], tmp_path: Path) -> None:
    res = CliRunner().invoke(main, ["trainer", "compile", str(compiled["root"]),
                                    str(tmp_path / "cli"), "--minif2f", str(MINIF2F)])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["commit"] == compiled["sha"]
    assert (tmp_path / "cli" / "manifest.json").read_bytes() == \
        (compiled["out"] / "manifest.json").read_bytes()


# --- refusals ----------------------------------------------------------------------------


def test_an_uncommitted_graph_is_refused(tmp_path: Path) -> None:
    (tmp_path / "g").mkdir()
    with pytest.raises(LemmataError) as err:
        D.compile_dataset(tmp_path / "g")
    assert err.value.code == "trainer-graph-uncommitted"
    import pygit2
    pygit2.init_repository(str(tmp_path / "empty"))
    with pytest.raises(LemmataError) as err2:
        D.compile_dataset(tmp_path / "empty")
    assert err2.value.code == "trainer-graph-uncommitted"


def test_a_non_empty_out_folder_is_refused_and_untouched(compiled: dict[str, Any],
                                                        tmp_path: Path) -> None:
    out = tmp_path / "busy"
    out.mkdir()
    (out / "old.jsonl").write_text("old\n")
    with pytest.raises(LemmataError) as err:
        D.write_dataset({"files": {"sft.jsonl": b""}, "manifest": {}}, out)
    assert err.value.code == "trainer-out-not-empty"
    assert sorted(p.name for p in out.iterdir()) == ["old.jsonl"]


def _tar(tmp_path: Path, members: list[tuple[str, bytes | None]]) -> Path:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for name, data in members:
            info = tarfile.TarInfo(name)
            if data is None:
                info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
                tf.addfile(info)
            else:
                info.size = len(data)
                tf.addfile(info, io.BytesIO(data))
    path = tmp_path / "bad.tar.gz"
    path.write_bytes(buf.getvalue())
    return path


@pytest.mark.parametrize("members", [
    [("MiniF2F/Valid/a.lean", None)],                          # a symlink, not a file
    [("MiniF2F/Test/a.lean", b"x" * (64 * 1024 + 1))],         # oversized
    [("README.md", b"no statements")],                         # nothing to read
])
def test_a_malformed_statement_set_is_refused(tmp_path: Path, members: Any) -> None:
    with pytest.raises(LemmataError) as err:
        D.read_minif2f(_tar(tmp_path, members))
    assert err.value.code == "trainer-source-malformed"


def test_a_file_that_is_no_archive_is_refused(tmp_path: Path) -> None:
    (tmp_path / "x.tar.gz").write_bytes(b"not gzip")
    with pytest.raises(LemmataError) as err:
        D.read_minif2f(tmp_path / "x.tar.gz")
    assert err.value.code == "trainer-source-malformed"


def test_canonical_statement_ignores_name_comments_and_spacing() -> None:
    a = "theorem A.b (n : Nat) : n = n := by sorry"
    b = "/-- doc -/\ntheorem  Other.name  (n : Nat)   :\n  n = n -- c\n  := by\n  sorry\n"
    c = "theorem A.b (n : Nat) : n = n + 0 := by sorry"
    assert D.canonical_statement_sha256(a) == D.canonical_statement_sha256(b)
    assert D.canonical_statement_sha256(a) != D.canonical_statement_sha256(c)
    assert D.canonical_statement_sha256("-- nothing here\n") is None


def test_the_trainer_imports_no_ml_framework() -> None:
    """Importing the trainer and the CLI pulls in none of torch, transformers, peft, ray,
    trl or vllm (a fresh interpreter tells): every ML import is inside a function."""
    import subprocess
    import sys

    code = ("import sys, network.cli, network.trainer.dataset, network.trainer.prompts, "
            "network.trainer.reward, network.trainer.engines, network.trainer.sft, "
            "network.trainer.evaluate, network.trainer.history, network.trainer.pipeline, "
            "network.trainer.propose, network.trainer.orchestrate, network.trainer.grpo, "
            "network.trainer.minif2f_judge, network.trainer.gguf_base\n"
            "bad = [m for m in ('torch', 'transformers', 'peft', 'ray', 'trl', 'vllm', "
            "'datasets', 'gguf') "
            "if m in sys.modules]\nprint(bad)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).resolve().parents[1])
    assert out.stdout.strip() == "[]"
