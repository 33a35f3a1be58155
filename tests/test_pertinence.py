"""A related variant's pertinence signature (D-30 v3.12; issue 18): the record, what
derives from it, and step 2's refusals of forged and hostile ones.

Each gate test builds a real git graph (:class:`tests.graphs.GraphBuilder`), adds one
pertinence record in a head commit and runs ``lemmata gate run`` on base..head
(:func:`tests.test_gate_actors.gate`), reading step 2's codes from the attestation.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest
import yaml

from network import signing
from network.errors import CATALOG
from network.gate.records.pertinence import pertinence_findings
from network.record import models as m
from network.record import pertinence
from network.record.products.products import products
from network.record.read.loader import load_graph
from network.record.unverified import unverified
from network.record.validate import validate_graph
from tests.graphs import GraphBuilder, git_commit
from tests.test_gate_actors import gate

T = "demo"
SENTENCE = "The case r = 3 of the root's bound: an improved constant for small r."
OTHER_SENTENCE = "A reformulation over finite fields of the root's statement."
TS = "20260105T000000Z"


def _variant(b: GraphBuilder, nid: str, relation: str = "related",
             sentence: str | None = SENTENCE, tid: str = T) -> str:
    variant: dict[str, Any] = {"of": "root", "relation": relation}
    if sentence is not None:
        variant["pertinence"] = sentence
    return b.node(tid, nid, origin="variant", variant=variant)


def _record(tid: str, nid: str, who: str, sentence: str | None = SENTENCE,
            **over: Any) -> dict[str, Any]:
    return {"schema": "pertinence/v1", "target": tid, "variant": nid,
            "sentence_sha256": pertinence.sentence_sha256(sentence or ""),
            "by": who, "date": "2026-01-05", **over}


def _file(b: GraphBuilder, tid: str, nid: str, who: str, rec: dict[str, Any], *,
          signer: str | None = None, signed: bool = True, ts: str = TS) -> str:
    if signed:
        rec = b.signed(m.Pertinence, rec, signer or who)
    return b.write_yaml(f"targets/{tid}/nodes/{nid}/pertinence/{ts}-{who}.yaml", rec)


@pytest.fixture()
def repo(tmp_path: Path) -> tuple[GraphBuilder, str]:
    """demo (steward steve, curator ``curator``): root; rel, a related variant with a
    sentence; rel2, another related variant with the same sentence; bare, a related
    variant without one; res, a resolves variant; lemma, no variant. other (steward olga):
    a related variant ``rel`` with the same sentence."""
    b = GraphBuilder(tmp_path / "g").base()
    b.target(T)
    b.node(T, "root")
    _variant(b, "rel")
    _variant(b, "rel2")
    _variant(b, "bare", sentence=None)
    _variant(b, "res", relation="resolves", sentence=None)
    b.node(T, "lemma")
    b.target("other", steward="olga")
    b.node("other", "root")
    _variant(b, "rel", tid="other")
    return b, git_commit(b.root, "base")


def _state(b: GraphBuilder, nid: str = "rel", tid: str = T) -> pertinence.PertinenceState:
    st = pertinence.pertinence_state(load_graph(b.root), tid, nid)
    assert st is not None
    return st


# --- what passes, and what derives from it ----------------------------------------------


@pytest.mark.parametrize("who", ["steve", "curator"])
def test_a_steward_or_curator_signs_and_the_variant_reads_pertinent(
        repo: Any, tmp_path: Path, who: str) -> None:
    b, base = repo
    assert not _state(b).signed
    path = _file(b, T, "rel", who, _record(T, "rel", who))
    assert gate(b, base, who, tmp_path) == (0, [])
    st = _state(b)
    assert st.signed and st.signature is not None
    assert (st.signature.by, st.signature.path) == (who, path)
    assert st.sentence_sha256 == pertinence.sentence_sha256(SENTENCE)
    assert not _state(b, "rel2").signed  # one variant's signature is not another's
    assert pertinence.unverified(load_graph(b.root)) == frozenset()


def test_the_products_publish_signed_and_unsigned_and_proved_relations_carry_none(
        repo: Any) -> None:
    b, _base = repo
    _file(b, T, "rel", "steve", _record(T, "rel", "steve"))
    assert validate_graph(b.root, commit=git_commit(b.root, "signed")) == []
    view = yaml.safe_load(products(load_graph(b.root))[f"targets/{T}/graph.json"])
    rows = {r["id"]: r for r in view["nodes"]}
    assert rows["rel"]["variant"]["pertinence_signed"] is True
    assert rows["rel"]["variant"]["pertinence_signature"]["by"] == "steve"
    assert rows["rel2"]["variant"]["pertinence_signed"] is False
    assert rows["rel2"]["variant"]["pertinence_signature"] is None
    assert rows["bare"]["variant"]["pertinence_signed"] is False
    assert "pertinence_signed" not in rows["res"]["variant"]  # kernel-checked relation
    assert rows["lemma"]["variant"] is None


def test_an_edited_sentence_reads_unsigned_again(repo: Any) -> None:
    """The signature binds the sentence's hash: a META.yaml whose sentence changed after
    signing (a hand edit that reached the record) reads unsigned, the old record listed
    as counting for nothing."""
    b, _base = repo
    path = _file(b, T, "rel", "steve", _record(T, "rel", "steve"))
    assert _state(b).signed
    _variant(b, "rel", sentence=SENTENCE + " ")  # one trailing space is another sentence
    st = _state(b)
    assert not st.signed and st.not_counted == (path,)
    assert path in pertinence.unverified(load_graph(b.root))


def test_a_withdrawn_signature_counts_for_nothing(repo: Any) -> None:
    b, _base = repo
    path = _file(b, T, "rel", "steve", _record(T, "rel", "steve"))
    b.withdrawal(T, "rel", "20260106T000000Z", "curator", path)
    assert not _state(b).signed


def test_a_signature_dated_before_the_signer_held_the_role_counts_for_nothing(
        repo: Any) -> None:
    """The role is judged on the record's date: steve is steward from 2026-01-01."""
    b, _base = repo
    _file(b, T, "rel", "steve", _record(T, "rel", "steve", date="2025-12-01"))
    assert not _state(b).signed


# --- step 2's refusals ---------------------------------------------------------------------


def test_a_non_role_signer_is_refused_and_counts_for_nothing(repo: Any, tmp_path: Path) -> None:
    b, base = repo
    path = _file(b, T, "rel", "alice", _record(T, "rel", "alice"))  # a valid approval sig
    # the kind's plan (a steward's or curator's) and the signature's binding both refuse
    assert gate(b, base, "alice", tmp_path) == (1, ["role-not-permitted", "role-key-unbound"])
    assert not _state(b).signed
    # had it reached the record anyway, the record's flag lists it (ruling 14)
    assert path in unverified(load_graph(b.root))


def test_another_targets_steward_holds_no_role_here(repo: Any, tmp_path: Path) -> None:
    b, base = repo
    _file(b, T, "rel", "olga", _record(T, "rel", "olga"))
    assert gate(b, base, "olga", tmp_path) == (1, ["role-not-permitted", "role-key-unbound"])


def test_a_wrong_signer_is_refused(repo: Any, tmp_path: Path) -> None:
    """by steve, signature naming the curator: the signer is not the record's actor."""
    b, base = repo
    _file(b, T, "rel", "steve", _record(T, "rel", "steve"), signer="curator")
    assert gate(b, base, "steve", tmp_path) == (1, ["role-key-unbound"])
    assert not _state(b).signed


def test_a_record_naming_another_actor_than_its_submitter_is_refused(
        repo: Any, tmp_path: Path) -> None:
    b, base = repo
    _file(b, T, "rel", "steve", _record(T, "rel", "steve"))
    assert "actor-not-submitter" in gate(b, base, "mallory", tmp_path)[1]


def test_an_unsigned_or_tampered_signature_is_refused(repo: Any, tmp_path: Path) -> None:
    b, base = repo
    _file(b, T, "rel", "steve", _record(T, "rel", "steve"), signed=False)
    assert gate(b, base, "steve", tmp_path) == (1, ["role-act-unsigned"])
    assert not _state(b).signed


def test_a_gate_key_is_no_role_key(repo: Any, tmp_path: Path) -> None:
    from tests.graphs import BUILDER_GATE_KEY, BUILDER_GATE_KEY_ID

    b, base = repo
    rec = _record(T, "rel", "steve")
    sig = signing.sign(m.Pertinence.model_validate(rec), BUILDER_GATE_KEY, "gate",
                       BUILDER_GATE_KEY_ID, "steve")
    _file(b, T, "rel", "steve", {**rec, "signature": sig.model_dump()}, signed=False)
    assert gate(b, base, "steve", tmp_path) == (1, ["role-key-unbound"])


def test_signing_an_edited_sentence_is_refused(repo: Any, tmp_path: Path) -> None:
    """A signature of a sentence other than the one META.yaml holds (what the signer was
    shown before an edit, or a doctored hash) is refused and never counts."""
    b, base = repo
    _file(b, T, "rel", "steve", _record(T, "rel", "steve", sentence=OTHER_SENTENCE))
    assert gate(b, base, "steve", tmp_path) == (1, ["pertinence-sentence-mismatch"])
    assert not _state(b).signed


def test_a_hash_changed_after_signing_is_refused(repo: Any, tmp_path: Path) -> None:
    b, base = repo
    p = _file(b, T, "rel", "steve", _record(T, "rel", "steve", sentence=OTHER_SENTENCE))
    doc = yaml.safe_load(b.read(p))
    b.write_yaml(p, {**doc, "sentence_sha256": pertinence.sentence_sha256(SENTENCE)})
    assert gate(b, base, "steve", tmp_path) == (1, ["role-signature-invalid"])
    assert not _state(b).signed


@pytest.mark.parametrize("nid", ["res", "lemma"])
def test_signing_a_node_that_is_no_related_variant_is_refused(
        repo: Any, tmp_path: Path, nid: str) -> None:
    b, base = repo
    _file(b, T, nid, "steve", _record(T, nid, "steve"))
    assert gate(b, base, "steve", tmp_path) == (1, ["pertinence-not-related"])
    assert pertinence.pertinence_state(load_graph(b.root), T, nid) is None


def test_a_variant_is_signed_only_once_it_is_on_main(repo: Any, tmp_path: Path) -> None:
    """Proposing a related variant and signing its sentence in one pull request is
    refused: the signature is judged against the record the variant already is on."""
    b, base = repo
    _variant(b, "fresh")
    _file(b, T, "fresh", "steve", _record(T, "fresh", "steve"))
    # the classifier refuses the mixed pull request first; the rule itself, below
    assert gate(b, base, "steve", tmp_path) == (1, ["path-not-permitted"])
    rec = m.Pertinence.model_validate(b.signed(m.Pertinence, _record(T, "fresh", "steve"),
                                               "steve"))
    [d] = pertinence_findings(load_graph(b.root, base), T, "fresh", "p.yaml", rec)
    assert d.code == "pertinence-not-related"


def test_a_related_variant_without_a_sentence_cannot_be_signed(
        repo: Any, tmp_path: Path) -> None:
    b, base = repo
    _file(b, T, "bare", "steve", _record(T, "bare", "steve", sentence=""))
    assert gate(b, base, "steve", tmp_path) == (1, ["pertinence-no-sentence"])
    assert not _state(b, "bare").signed


def test_a_signature_replayed_onto_another_variant_is_refused(repo: Any, tmp_path: Path) -> None:
    """rel and rel2 carry the same sentence: steve's signed record for rel, copied byte
    for byte under rel2, names rel; renaming it breaks the signature."""
    b, base = repo
    p = _file(b, T, "rel", "steve", _record(T, "rel", "steve"))
    data = b.read(p)
    (b.root / p).unlink()
    copy = f"targets/{T}/nodes/rel2/pertinence/{TS}-steve.yaml"
    b.write(copy, data)
    assert gate(b, base, "steve", tmp_path) == (1, ["pertinence-elsewhere"])
    assert not _state(b, "rel2").signed
    doc = yaml.safe_load(data)
    b.write_yaml(copy, {**doc, "variant": "rel2"})
    assert gate(b, base, "steve", tmp_path) == (1, ["role-signature-invalid"])
    assert not _state(b, "rel2").signed


def test_a_signature_replayed_onto_another_target_is_refused(repo: Any, tmp_path: Path) -> None:
    """The curator holds the role on both targets and both carry a variant ``rel`` with
    the same sentence: the record names its target, so the copy is refused."""
    b, base = repo
    p = _file(b, T, "rel", "curator", _record(T, "rel", "curator"))
    data = b.read(p)
    (b.root / p).unlink()
    b.write(f"targets/other/nodes/rel/pertinence/{TS}-curator.yaml", data)
    assert gate(b, base, "curator", tmp_path) == (1, ["pertinence-elsewhere"])
    assert not _state(b, "rel", "other").signed


def test_one_act_per_variant_and_sentence(repo: Any, tmp_path: Path) -> None:
    b, base = repo
    _file(b, T, "rel", "steve", _record(T, "rel", "steve"))
    _file(b, T, "rel", "steve", _record(T, "rel", "steve"), ts="20260105T000001Z")
    assert gate(b, base, "steve", tmp_path) == (1, ["pertinence-already-signed"])
    # one on main already: a second, by another role holder, is refused
    (b.root / f"targets/{T}/nodes/rel/pertinence/20260105T000001Z-steve.yaml").unlink()
    base2 = git_commit(b.root, "signed")
    _file(b, T, "rel", "curator", _record(T, "rel", "curator", date="2026-01-06"),
          ts="20260106T000000Z")
    assert gate(b, base2, "curator", tmp_path) == (1, ["pertinence-already-signed"])


def test_every_pertinence_code_is_published_at_step_2() -> None:
    for code in ("pertinence-elsewhere", "pertinence-not-related", "pertinence-no-sentence",
                 "pertinence-sentence-mismatch", "pertinence-already-signed"):
        assert CATALOG[code].step == 2, code


def test_the_sentence_hash_is_of_the_exact_bytes() -> None:
    assert pertinence.sentence_sha256("é") == hashlib.sha256("é".encode()).hexdigest()
    assert pertinence.sentence_sha256("a") != pertinence.sentence_sha256("a ")

