"""The trainer tests' fixture graph: verified positives, every way a positive can be forged,
failures, a frontier, and a renamed copy of a miniF2F Test statement (issue 14)."""

from __future__ import annotations

import tarfile
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from network import signing
from network.record import models as m
from tests.graphs import DEFAULT_TOOLCHAIN, ZERO40, GraphBuilder, git_commit, sha256_hex

ROOT = Path(__file__).resolve().parents[1]
MINIF2F = ROOT / "tests" / "fixtures" / "datasets" / "minif2f-lean4-5746b7d.tar.gz"
SECRET_TACTIC = "exact calib_secret_tactic_7d1"
"""A token only the calibration root's merged proof holds (the leakage tests look for it)."""


PARTIAL_TEXT = ("-- approach: two and two by halves\n-- licence: CC-BY-4.0\n"
                "theorem Calib.main : 2 + 2 = 4 := by\n"
                "  -- label: the sum\n  -- claim: $2 + 2 = 4$\n"
                "  have h₁ : 2 + 2 = 4 := sorry\n  exact h₁\n")
"""A merged partial of calib/root in the D-12 v3.44 grammar."""


def minif2f_statement(name: str, split: str = "Test") -> str:
    """One statement file of the miniF2F fixture archive."""
    with tarfile.open(MINIF2F) as tf:
        f = tf.extractfile(f"MiniF2F/{split}/{name}.lean")
        assert f is not None
        return f.read().decode("utf-8")


def stmt(decl: str, body: str) -> str:
    return f"theorem {decl} : {body} := by\n  sorry\n"


def attest(b: GraphBuilder, tid: str, nid: str, paths: list[str], *, name: str,
           verdict: str = "pass", statement_hash: str | None = "auto",
           toolchain: str = DEFAULT_TOOLCHAIN, key: Any = "gate",
           kind: str = "proof", steps: list[dict[str, Any]] | None = None,
           graph_id: str | None = None) -> str:
    """``attestations/<name>.json`` for ``paths`` of ``tid/nid``; ``key="gate"`` signs with
    the published gate key, None leaves it unsigned, a private key signs with that key."""
    if statement_hash == "auto":
        meta = b.read(f"targets/{tid}/nodes/{nid}/Statement.lean")
        statement_hash = sha256_hex(meta)
    rec: dict[str, Any] = {
        "schema": "attestation/v1", "graph_id": graph_id or b.graph_id, "target": tid,
        "node": nid,
        "artifact_kind": kind, "artifacts": [{"path": p, "sha256": b.sha(p)} for p in paths],
        "toolchain": toolchain, "gate_spec_sha256": "0" * 64, "base_commit": ZERO40,
        "head_commit": ZERO40, "graph_commit": ZERO40, "verdict": verdict,
        "steps": steps or [], "timestamp": "2026-01-02",
    }
    if statement_hash is not None:
        rec["statement_hash"] = statement_hash
    if verdict != "pass":
        rec["first_failing_step"] = 5
    if key == "gate":
        rec = b.signed(m.Attestation, rec, "gate", kind="gate")
    elif key is not None:
        sig = signing.sign(m.Attestation.model_validate(rec), key, "gate", "rogue", "gate")
        rec = {**rec, "signature": sig.model_dump()}
    return b.write_json(f"attestations/{name}.json", rec)


def build_trainer_graph(root: Path) -> tuple[GraphBuilder, str]:
    """The graph, committed; returns (builder, commit).

    * ``calib`` (calibration, every node proved): ``root`` with a verified proof and a
      verified alternate, a verified partial, a postmortem and a failed attestation.
    * ``forged`` (calibration): ``forged-*`` nodes whose proofs carry each forgery of a
      positive (unsigned, a rogue key, another graph's attestation, another statement
      hash, another toolchain, bytes
      changed after the attestation, another node's attestation, a failed attestation
      only); some read open, so the target is sealed with the frontier.
    * ``open`` (an open problem): ``root`` open (the frontier) and ``done``, proved and
      verified: sealed with its target, its proof withheld.
    * ``copycat`` (calibration): ``root`` proves, verified, a renamed copy of miniF2F
      Test's aime_1983_p1: sealed by the canonical statement hash.
    """
    b = GraphBuilder(root)
    b.base()
    # --- calib --------------------------------------------------------------------------
    b.target("calib", cls="calibration", calibration=True, steward=None)
    b.node("calib", "root", statement=stmt("Calib.main", "2 + 2 = 4"),
           declaration="Calib.main", proof=f"theorem Calib.main : 2 + 2 = 4 := by\n  {SECRET_TACTIC}\n")
    proof = "targets/calib/nodes/root/Proof.lean"
    b.merge_record([proof], "2026-01-02", attestation=attest(b, "calib", "root", [proof],
                                                             name="a-root"))
    alt = b.partial("calib", "root", "20260103T000000Z", "alice",
                    "theorem Calib.main : 2 + 2 = 4 := by\n  norm_num\n", kind="alternate")
    attest(b, "calib", "root", [alt], name="a-alt", kind="alternate")
    part = b.partial("calib", "root", "20260105T000000Z", "carol", PARTIAL_TEXT)
    attest(b, "calib", "root", [part], name="a-part", kind="partial")
    b.postmortem("calib", "root", "20260104T000000Z", "bob")
    attest(b, "calib", "root", [proof], name="a-fail", verdict="fail",
           steps=[{"step": 5, "name": "axioms", "ok": False, "code": "sorry-used",
                   "diagnostics": [{"code": "sorry-used", "message": "uses sorryAx in "
                                    "calib_leaky_message", "line": 2}]}])
    rogue = Ed25519PrivateKey.generate()
    forged = {
        "othergraph": {"graph_id": "another-graph"},
        "unsigned": {"key": None},
        "rogue": {"key": rogue},
        "stmt": {"statement_hash": "f" * 64},
        "pin": {"toolchain": "leanprover/lean4:v4.9.0"},
        "changed": {},
        "elsewhere": {},
        "failed": {"verdict": "fail"},
    }
    b.target("forged", cls="calibration", calibration=True, steward=None)
    b.node("forged", "root", statement=stmt("Forged.main", "3 = 3"), declaration="Forged.main")
    for i, (tag, kw) in enumerate(sorted(forged.items())):
        nid = f"forged-{tag}"
        b.node("forged", nid, statement=stmt(f"Calib.f{i}", f"{i} + 1 = {i + 1}"),
               declaration=f"Calib.f{i}", proof=f"theorem Calib.f{i} : {i} + 1 = {i + 1} := rfl\n")
        path = f"targets/forged/nodes/{nid}/Proof.lean"
        if tag == "elsewhere":
            attest(b, "forged", "root", [path], name=f"a-{tag}", statement_hash=None)
        else:
            attest(b, "forged", nid, [path], name=f"a-{tag}", **kw)
        if tag == "changed":
            b.write(path, f"theorem Calib.f{i} : {i} + 1 = {i + 1} := by decide\n")
    # --- open ---------------------------------------------------------------------------
    b.target("open")
    b.node("open", "root", statement=stmt("Open.main", "∀ n : Nat, n < n + 7"),
           declaration="Open.main")
    b.node("open", "done", statement=stmt("Open.done", "1 < 7"), declaration="Open.done",
           proof="theorem Open.done : 1 < 7 := by decide\n")
    attest(b, "open", "done", ["targets/open/nodes/done/Proof.lean"], name="o-done")
    # --- copycat ------------------------------------------------------------------------
    test_stmt = minif2f_statement("aime_1983_p1")
    body = test_stmt[test_stmt.index("theorem aime_1983_p1"):]
    copy = "/-- not a copy, honest -/\n" + body.replace("theorem aime_1983_p1",
                                                       "theorem  Copycat.main").replace(
        " := by sorry", "   := by\n  sorry\n")
    b.target("copycat", cls="calibration", calibration=True, steward=None)
    b.node("copycat", "root", statement=copy, declaration="Copycat.main",
           proof=copy.replace("sorry", "exact copied_proof"))
    attest(b, "copycat", "root", ["targets/copycat/nodes/root/Proof.lean"], name="c-root")
    return b, git_commit(b.root, "trainer fixture graph")


# --- milestone 2: the tiny model, adapters and a compiled dataset ---------------------------


def tiny_base(folder: Path) -> Path:
    """The 2-layer random Llama and its byte-level tokenizer (no hub download)."""
    from network.trainer.engines import build_tiny_model

    return build_tiny_model(folder, seed=0)


def random_adapter(base: Path, out: Path, *, seed: int, r: int = 4) -> Path:
    """A LoRA adapter of ``base`` with random A and B (peft's default B is zero, which
    would change nothing), saved to ``out``."""
    import torch
    from peft import LoraConfig, get_peft_model

    from network.trainer.engines import load_base

    model, _ = load_base(base)
    torch.manual_seed(seed)
    peft = get_peft_model(model, LoraConfig(r=r, lora_alpha=2 * r, init_lora_weights=False,
                                            target_modules=["q_proj", "v_proj"]))
    peft.save_pretrained(str(out))
    return out


def compiled_dataset(root: Path) -> tuple[Path, Path, str]:
    """The fixture graph and miniF2F compiled: (graph, dataset folder, commit)."""
    from network.trainer import dataset as D

    _, sha = build_trainer_graph(root / "graph")
    D.write_dataset(D.compile_dataset(root / "graph", minif2f=[MINIF2F]), root / "ds")
    return root / "graph", root / "ds", sha
