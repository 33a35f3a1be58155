"""The forge over git's smart HTTP (issue 11, network/api/git/git_http.py), driven by the real
``git`` client against the service on a free loopback port: clone, commit, push to
``submit/<name>`` with a token, and every push the forge refuses."""

from __future__ import annotations

import base64
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from api_flow_support import FlowNet

from network import proc
from network.api import db
from network.api.git.git_http import MAX_BRANCH, check_branch, parse_commands
from network.api.identity import identity
from network.errors import LemmataError

POSTMORTEM = "targets/demo/nodes/mid/attempts/20260921T141320Z-ann-postmortem.yaml"
PM_TEXT = ("schema: d13/v1\nnode: demo/mid\ncontributor: ann\nroute: strong induction\n"
           "route_class: induction\noutcome: exhausted\nterminal_goal_state: 'n : Nat'\n"
           "failure_class: missing-library\n")


@dataclass
class Served:
    """The network, its base URL, its app and two identities' tokens."""

    net: FlowNet
    url: str
    app: object
    tokens: dict[str, str]

    @property
    def git_url(self) -> str:
        return f"{self.url}/git/graph.git"

    def with_token(self, who: str) -> str:
        host = self.url.removeprefix("http://")
        return f"http://{who}:{self.tokens[who]}@{host}/git/graph.git"


@pytest.fixture()
def served(tmp_path: Path) -> Iterator[Served]:
    net = FlowNet.create(tmp_path, None)
    with net.serve() as (url, app):
        svc = app.state.svc
        tokens = {who: identity.issue_operator_token(
            svc, pseudonym=who, dco=svc.settings.dco_version, operator="op")["token"]
            for who in ("ann", "bob")}
        yield Served(net, url, app, tokens)


def git(*args: str, cwd: Path | None = None, extra: dict[str, str] | None = None
        ) -> proc.Completed:
    """The real git client, never prompting."""
    return proc.run(["git", *args], cwd=cwd, timeout_s=120,
                    git_env={"GIT_TERMINAL_PROMPT": "0", **(extra or {})})


def clone_and_commit(s: Served, dest: Path, path: str = POSTMORTEM,
                     text: str = PM_TEXT) -> Path:
    done = git("clone", s.git_url, str(dest))
    assert done.rc == 0, done.err
    f = dest / path
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_text(text, "utf-8")
    assert git("add", path, cwd=dest).rc == 0
    done = git("commit", "-q", "-m", "postmortem of demo/mid", cwd=dest)
    assert done.rc == 0, done.err
    return dest


def _prs(s: Served) -> list[object]:
    return list(s.app.state.svc.forge.list_all())  # type: ignore[attr-defined]


def test_clone_commit_push_opens_a_pull_request_for_the_pusher(served: Served,
                                                               tmp_path: Path) -> None:
    work = clone_and_commit(served, tmp_path / "w")
    assert (work / "targets" / "demo").is_dir()  # the clone holds the graph at main
    done = git("push", served.with_token("ann"), "HEAD:submit/mid-postmortem", cwd=work)
    assert done.rc == 0, done.err
    prs = _prs(served)
    assert len(prs) == 1
    pr = prs[0]
    assert f"remote: lemmata: refs/heads/submit/mid-postmortem opened pull request " \
           f"#{pr.number} for ann" in done.err, done.err  # type: ignore[attr-defined]
    head = git("rev-parse", "HEAD", cwd=work).out.strip()
    assert (pr.author, pr.head_sha, pr.state) == ("ann", head, "open")  # type: ignore[attr-defined]
    assert pr.title == "postmortem of demo/mid"  # type: ignore[attr-defined]
    forge = served.app.state.svc.forge  # type: ignore[attr-defined]
    assert str(forge.repo.references[f"refs/heads/pr/{pr.number}"].target) == head  # type: ignore[attr-defined]
    with served.app.state.svc.sessions() as ses:  # type: ignore[attr-defined]
        row = ses.query(db.SubmissionRow).one()
        ann = ses.query(db.IdentityRow).filter_by(pseudonym="ann").one()
        assert (row.identity_id, row.pseudonym, row.kind, row.node) == (
            ann.id, "ann", "postmortem", "mid")
        assert f"GET /submissions/{row.id}" in done.err
    import httpx

    mine = httpx.get(f"{served.url}/submissions/mine",
                     headers={"Authorization": f"Bearer {served.tokens['ann']}"}).json()
    assert [o["pull_request"] for o in mine["open"]] == [f"local/{pr.number}"]  # type: ignore[attr-defined]
    theirs = httpx.get(f"{served.url}/submissions/mine",
                       headers={"Authorization": f"Bearer {served.tokens['bob']}"}).json()
    assert theirs["open"] == []
    # the merge queue gates it like any other pull request, with the pusher as submitter
    items = served.net.run_queue()
    assert [i.number for i in items] == [pr.number]  # type: ignore[attr-defined]
    out = items[0].outcome
    assert out is not None and out.runs, items[0]
    assert [r.attestation.submitter for r in out.runs if r.attestation] == ["ann"], out
    assert items[0].verdict == "pass" and items[0].merge_sha, items[0]


def test_push_to_main_tags_and_other_refs_is_refused(served: Served, tmp_path: Path) -> None:
    work = clone_and_commit(served, tmp_path / "w")
    main_before = served.app.state.svc.forge.main_sha()  # type: ignore[attr-defined]
    assert git("tag", "v1", cwd=work).rc == 0
    for spec in ("HEAD:main", "v1", "HEAD:refs/heads/pr/1", "HEAD:other",
                 "HEAD:refs/notes/x"):
        done = git("push", served.with_token("ann"), spec, cwd=work)
        assert done.rc != 0, spec
        assert "git-push-ref-refused" in done.err, (spec, done.err)
    assert served.app.state.svc.forge.main_sha() == main_before  # type: ignore[attr-defined]
    assert _prs(served) == []


def test_push_without_or_with_a_wrong_token_is_401(served: Served, tmp_path: Path) -> None:
    work = clone_and_commit(served, tmp_path / "w")
    done = git("push", served.git_url, "HEAD:submit/x", cwd=work)  # 401: git wants a user
    assert done.rc != 0 and "could not read Username" in done.err, done.err
    served.tokens["eve"] = "lmt_not-a-token"
    done = git("push", served.with_token("eve"), "HEAD:submit/x", cwd=work)
    assert done.rc != 0 and "Authentication failed" in done.err + done.out, done.err
    assert _prs(served) == []
    import httpx

    r = httpx.get(f"{served.git_url}/info/refs?service=git-receive-pack")
    assert r.status_code == 401 and r.headers["www-authenticate"].startswith("Basic")
    assert r.text.startswith("token-missing:")
    bad = base64.b64encode(b"eve:lmt_wrong").decode()
    r = httpx.get(f"{served.git_url}/info/refs?service=git-receive-pack",
                  headers={"Authorization": f"Basic {bad}"})
    assert r.status_code == 401 and r.text.startswith("token-invalid:")
    # every failure counted against the address, as on the token routes
    svc = served.app.state.svc  # type: ignore[attr-defined]
    from network.api.service import rate_count, sha256_hex

    assert rate_count(svc, f"address:{sha256_hex('127.0.0.1')}:auth-failures") >= 4


def test_auth_failures_meet_the_rate_limit(tmp_path: Path) -> None:
    net = FlowNet.create(tmp_path, None, rate_auth_failures_per_address=2)
    import httpx

    with net.serve() as (url, _app):
        codes = [httpx.get(f"{url}/git/graph.git/info/refs?service=git-receive-pack",
                           headers={"Authorization": "Basic " + base64.b64encode(
                               b"x:lmt_wrong").decode()}).status_code for _ in range(3)]
    assert codes == [401, 401, 429]


@pytest.mark.parametrize("name", ["", "a..b", "-lead", ".hidden", "x.lock", "a/.b", "a//b",
                                  "trail/", "sp ace", "tab\tx", "é", "a@{1}", "a~1", "a^",
                                  "a:b", "q?", "st*r", "back\\slash", "x" * (MAX_BRANCH + 1)])
def test_hostile_branch_names_are_refused(name: str) -> None:
    with pytest.raises(LemmataError) as e:
        check_branch("refs/heads/submit/" + name)
    assert e.value.code == "git-push-branch-invalid"


def test_branch_names_the_forge_takes_git_takes() -> None:
    for name in ("x", "mid-proof", "a/b.c_d", "X9/y" + "z" * 90):
        check_branch("refs/heads/submit/" + name)
        assert git("check-ref-format", "refs/heads/submit/" + name).rc == 0


def test_bad_branch_names_are_refused_over_git(served: Served, tmp_path: Path) -> None:
    work = clone_and_commit(served, tmp_path / "w")
    for spec in ("HEAD:submit/-x", "HEAD:submit/" + "y" * 101, "HEAD:submit/caf\u00e9",
                 "HEAD:submit/a_b/c@d"):
        done = git("push", served.with_token("ann"), spec, cwd=work)
        assert done.rc != 0, spec
        assert "git-push-branch-invalid" in done.err, (spec, done.err)
    assert _prs(served) == []


def test_nobody_moves_an_opened_branch(served: Served, tmp_path: Path) -> None:
    """Decision: a pushed branch opens one pull request; a second push to it, by another
    identity or by its own pusher, is refused ``git-push-branch-exists`` (no force, no
    deletion), and the pull request keeps its head."""
    ann = clone_and_commit(served, tmp_path / "ann")
    assert git("push", served.with_token("ann"), "HEAD:submit/mine", cwd=ann).rc == 0
    (pr,) = _prs(served)
    bob = clone_and_commit(  # a valid record of bob's: step 2 now runs at push time
        served, tmp_path / "bob", path=POSTMORTEM.replace("141320Z-ann", "141321Z-bob"),
        text=PM_TEXT.replace("contributor: ann", "contributor: bob"))
    done = git("push", served.with_token("bob"), "HEAD:submit/mine", cwd=bob)
    assert done.rc != 0, done.err  # git itself sees a non-fast-forward
    for spec in ("+HEAD:submit/mine", "HEAD:submit/MINE"):  # the forge refuses these
        done = git("push", served.with_token("bob"), spec, cwd=bob)
        assert done.rc != 0 and "git-push-branch-exists" in done.err, (spec, done.err)
        assert f"it opened pull request #{pr.number} for ann" in done.err  # type: ignore[attr-defined]
    done = git("push", served.with_token("bob"), ":submit/mine", cwd=bob)
    assert done.rc != 0 and "git-push-delete-refused" in done.err, done.err
    (ann / "more.md").write_text("x\n", "utf-8")
    git("add", "more.md", cwd=ann)
    git("commit", "-q", "-m", "more", cwd=ann)
    done = git("push", served.with_token("ann"), "HEAD:submit/mine", cwd=ann)
    assert done.rc != 0 and "git-push-branch-exists" in done.err, done.err
    assert [(p.number, p.head_sha) for p in _prs(served)] == [  # type: ignore[attr-defined]
        (pr.number, pr.head_sha)]  # type: ignore[attr-defined]
    # a new name is a new pull request, bob's
    assert git("push", served.with_token("bob"), "HEAD:submit/bobs", cwd=bob).rc == 0
    assert [p.author for p in _prs(served)] == ["ann", "bob"]  # type: ignore[attr-defined]


def test_unrelated_history_is_refused_by_the_hook(served: Served, tmp_path: Path) -> None:
    work = tmp_path / "orphan"
    work.mkdir()
    git("init", "-q", "-b", "main", str(work))
    (work / "x.md").write_text("x\n", "utf-8")
    git("add", "x.md", cwd=work)
    git("commit", "-q", "-m", "unrelated", cwd=work)
    done = git("push", served.with_token("ann"), "HEAD:submit/orphan", cwd=work)
    assert done.rc != 0 and "git-push-unrelated" in done.err, done.err
    assert "refs/heads/submit/orphan" not in served.app.state.svc.forge.repo.references  # type: ignore[attr-defined]
    assert _prs(served) == []


def test_a_body_over_the_limit_is_413(tmp_path: Path) -> None:
    net = FlowNet.create(tmp_path, None, max_body_bytes=4096)
    with net.serve() as (url, app):
        svc = app.state.svc
        token = identity.issue_operator_token(svc, pseudonym="ann",
                                              dco=svc.settings.dco_version,
                                              operator="op")["token"]
        s = Served(net, url, app, {"ann": token})
        work = clone_and_commit(s, tmp_path / "w", text="".join(
            f"{i:06d} incompressible? {i * 7919 % 1000003}\n" for i in range(4000)))
        done = git("push", s.with_token("ann"), "HEAD:submit/big", cwd=work)
        assert done.rc != 0 and "413" in done.err, done.err
        assert list(svc.forge.list_all()) == []


def test_paths_outside_the_protocol_are_404(served: Served) -> None:
    import httpx

    for path in ("HEAD", "objects/info/packs", "info/refs", "info/refs?service=git-x",
                 "config", "objects/pack"):
        r = httpx.get(f"{served.git_url}/{path}")
        assert r.status_code == 404 and r.text.startswith("git-path-unknown"), (path, r.text)


def test_malformed_receive_pack_bodies_are_refused() -> None:
    zero, one = "0" * 40, "1" * 40
    for body in (b"", b"zzzz", b"0000", b"0005", b"00ffshort",
                 f"0030{zero} {one}\n".encode()):
        with pytest.raises(LemmataError) as e:
            parse_commands(body)
        assert e.value.code == "git-push-malformed", body
    line = f"{zero} {one} refs/heads/submit/x\n".encode()
    twice = b"".join(b"%04x" % (len(line) + 4) + line for _ in range(2)) + b"0000"
    with pytest.raises(LemmataError) as e:
        parse_commands(twice)
    assert e.value.code == "git-push-malformed"
    many = b"".join(b"%04x" % (len(ln) + 4) + ln for ln in (
        f"{zero} {one} refs/heads/submit/x{i}\n".encode() for i in range(11))) + b"0000"
    with pytest.raises(LemmataError) as e:
        parse_commands(many)
    assert e.value.code == "git-push-too-many-refs"
    cert = b"push-cert\0report-status\n"
    with pytest.raises(LemmataError) as e:
        parse_commands(b"%04x" % (len(cert) + 4) + cert + b"0000")
    assert e.value.code == "git-push-malformed"


def test_the_ref_read_is_the_ref_git_reads() -> None:
    """git chomps one newline at the end of the packet, then cuts at NUL: a newline
    before the capabilities stays in the ref name git sees, so the service reads it too
    (and refuses the name) rather than judging ``refs/heads/submit/d`` instead."""
    zero, one = "0" * 40, "1" * 40
    for line, ref in [(f"{zero} {one} refs/heads/submit/d\n\0report-status\n",
                       "refs/heads/submit/d\n"),
                      (f"{zero} {one} refs/heads/submit/d\n\n", "refs/heads/submit/d\n"),
                      (f"{zero} {one} refs/heads/submit/d\0report-status\n",
                       "refs/heads/submit/d")]:
        raw = line.encode()
        [cmd] = parse_commands(b"%04x" % (len(raw) + 4) + raw + b"0000").commands
        assert cmd.ref == ref
    with pytest.raises(LemmataError) as e:
        check_branch("refs/heads/submit/d\n")
    assert e.value.code == "git-push-branch-invalid"


def test_a_branch_may_only_point_at_a_commit(served: Served, tmp_path: Path) -> None:
    work = clone_and_commit(served, tmp_path / "w")
    assert git("tag", "-a", "-m", "annotated", "t1", cwd=work).rc == 0
    for spec in ("HEAD^{tree}:refs/heads/submit/tree", "t1:refs/heads/submit/tag"):
        done = git("push", served.with_token("ann"), spec, cwd=work)
        assert done.rc != 0, spec
        assert "git-push-not-commit" in done.err, (spec, done.err)
    assert _prs(served) == []


def test_a_pull_request_that_cannot_open_leaves_no_branch(
        served: Served, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    forge = served.app.state.svc.forge  # type: ignore[attr-defined]

    def broken(*_a: object, **_k: object) -> None:
        raise LemmataError("merge-conflict", "the forge's database is away")

    monkeypatch.setattr(forge, "open_from_commit", broken)
    work = clone_and_commit(served, tmp_path / "w")
    done = git("push", served.with_token("ann"), "HEAD:submit/lost", cwd=work)
    assert done.rc != 0 and "git-push-not-opened" in done.err, done.err
    assert "refs/heads/submit/lost" not in forge.repo.references
    monkeypatch.undo()
    done = git("push", served.with_token("ann"), "HEAD:submit/lost", cwd=work)
    assert done.rc == 0, done.err  # the same push again opens it
    assert [p.author for p in _prs(served)] == ["ann"]  # type: ignore[attr-defined]


def test_a_compressed_or_garbled_push_body_is_refused(served: Served) -> None:
    import httpx

    token = served.tokens["ann"]
    basic = base64.b64encode(f"ann:{token}".encode()).decode()
    headers = {"Authorization": f"Basic {basic}",
               "Content-Type": "application/x-git-receive-pack-request"}
    zero, one = "0" * 40, "1" * 40
    line = f"{zero} {one} refs/heads/submit/x\0report-status side-band-64k\n".encode()
    body = b"%04x" % (len(line) + 4) + line + b"0000"
    r = httpx.post(f"{served.git_url}/git-receive-pack", content=body,
                   headers={**headers, "Content-Encoding": "gzip"})
    assert r.status_code == 200 and b"git-push-malformed" in r.content
    assert b"ng refs/heads/submit/x" in r.content
    r = httpx.post(f"{served.git_url}/git-receive-pack", content=b"garbage", headers=headers)
    assert r.status_code == 422 and r.text.startswith("git-push-malformed")
    assert _prs(served) == []


def test_an_unreadable_backend_answer_is_git_backend_failed() -> None:
    from network.api.git.git_http import _cgi_response

    for done in (proc.Completed(1, "", "boom", ("git",), b""),
                 proc.Completed(0, "", "", ("git",), b"no header at all"),
                 proc.Completed(0, "", "", ("git",), b"Status: xx\r\n\r\nbody")):
        with pytest.raises(LemmataError) as e:
            _cgi_response(done)
        assert e.value.code == "git-backend-failed"


def test_only_refs_git_reports_ok_open_pull_requests() -> None:
    from network.api.git.git_http import _pkt, updated_refs

    status = _pkt(b"unpack ok\n") + _pkt(b"ok refs/heads/submit/a\n") + \
        _pkt(b"ng refs/heads/submit/b failed to lock\n") + b"0000"
    plain = frozenset({"report-status"})
    assert updated_refs(status, plain) == {"refs/heads/submit/a"}
    banded = _pkt(b"\x02remote says ok refs/heads/submit/c\n") + \
        _pkt(b"\x01" + status[:9]) + _pkt(b"\x01" + status[9:]) + b"0000"
    assert updated_refs(banded, plain | {"side-band-64k"}) == {"refs/heads/submit/a"}
    assert updated_refs(b"garbage", plain) == set()


def test_a_copy_is_refused_before_its_pull_request_opens(served: Served,
                                                         tmp_path: Path) -> None:
    """The pre-open refusals of POST /submissions hold for a push: a second pull request
    carrying, comments and spacing aside, the same proof of demo/mid is submission-copy,
    and its branch is removed again."""
    from api_flow_support import PROOF_MID, PROOF_MID_COPY

    proof = "targets/demo/nodes/mid/Proof.lean"
    ann = clone_and_commit(served, tmp_path / "ann", path=proof, text=PROOF_MID)
    done = git("push", served.with_token("ann"), "HEAD:submit/mid", cwd=ann)
    assert done.rc == 0, done.err
    bob = clone_and_commit(served, tmp_path / "bob", path=proof, text=PROOF_MID_COPY)
    done = git("push", served.with_token("bob"), "HEAD:submit/mid-too", cwd=bob)
    assert done.rc != 0 and "submission-copy" in done.err, done.err
    forge = served.app.state.svc.forge  # type: ignore[attr-defined]
    assert "refs/heads/submit/mid-too" not in forge.repo.references
    assert [p.author for p in _prs(served)] == ["ann"]  # type: ignore[attr-defined]
    with served.app.state.svc.sessions() as ses:  # type: ignore[attr-defined]
        assert [(r.kind, r.node) for r in ses.query(db.SubmissionRow)] == [("proof", "mid")]


def test_a_push_passes_the_write_guard(tmp_path: Path) -> None:
    """The write limits hold for pushes (each push is one write of its identity), told as
    git's ng lines; an unauthenticated receive-pack body is 401 before it is read."""
    import httpx

    net = FlowNet.create(tmp_path, None, rate_writes_per_identity=1)
    with net.serve() as (url, app):
        svc = app.state.svc
        token = identity.issue_operator_token(svc, pseudonym="ann",
                                              dco=svc.settings.dco_version,
                                              operator="op")["token"]
        s = Served(net, url, app, {"ann": token})
        work = clone_and_commit(s, tmp_path / "w")
        assert git("push", s.with_token("ann"), "HEAD:submit/one", cwd=work).rc == 0
        done = git("push", s.with_token("ann"), "HEAD:submit/two", cwd=work)
        assert done.rc != 0 and "rate-limited" in done.err, done.err
        assert [p.author for p in svc.forge.list_all()] == ["ann"]
        r = httpx.post(f"{s.git_url}/git-receive-pack", content=b"garbage",
                       headers={"Content-Type": "application/x-git-receive-pack-request"})
        assert r.status_code == 401 and r.text.startswith("token-missing")


def test_a_push_is_refused_while_the_merge_queue_is_down(served: Served,
                                                        tmp_path: Path) -> None:
    """A push opens a pull request, so like submit_proof it is refused ``queue-down``
    while no merge queue would judge it (issue 16), and opens nothing."""
    from network.api.service import HeartbeatQueue

    svc = served.app.state.svc  # type: ignore[attr-defined]
    svc.queue = HeartbeatQueue(tmp_path / "no-heartbeat.json")  # no queue has beaten
    work = clone_and_commit(served, tmp_path / "w")
    done = git("push", served.with_token("ann"), "HEAD:submit/while-down", cwd=work)
    assert done.rc != 0 and "queue-down" in done.err, done.err
    assert _prs(served) == []
    assert "refs/heads/submit/while-down" not in list(svc.forge.repo.references)
    svc.queue = None  # the queue is back: the same push opens its pull request
    assert git("push", served.with_token("ann"), "HEAD:submit/while-down", cwd=work).rc == 0
    assert len(_prs(served)) == 1


def test_a_push_of_main_itself_is_refused(served: Served, tmp_path: Path) -> None:
    work = tmp_path / "w"
    assert git("clone", served.git_url, str(work)).rc == 0
    done = git("push", served.with_token("ann"), "HEAD:submit/empty", cwd=work)
    assert done.rc != 0 and "git-push-nothing-new" in done.err, done.err
    assert "refs/heads/submit/empty" not in served.app.state.svc.forge.repo.references  # type: ignore[attr-defined]
    assert _prs(served) == []


# --- step 2 at push time (issue 35, item 4) -------------------------------------------------


def _commit_bytes(s: Served, dest: Path, path: str, data: bytes) -> Path:
    done = git("clone", s.git_url, str(dest))
    assert done.rc == 0, done.err
    f = dest / path
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_bytes(data)
    assert git("add", path, cwd=dest).rc == 0
    assert git("commit", "-q", "-m", f"change {path}", cwd=dest).rc == 0
    return dest


@pytest.mark.parametrize(("path", "data", "code", "says"), [
    ("frontier.json", b"{}\n", "gate-only-path", "only the gate writes here"),
    ("targets/demo/NOTES.md", b"notes\n", "path-not-permitted", "targets/demo/NOTES.md"),
    (POSTMORTEM, PM_TEXT.replace("missing-library", "caf\xe9").encode("latin-1"),
     "not-utf8", "byte "),
    (POSTMORTEM, PM_TEXT.encode() + b"# " + b"x" * 3_000_000 + b"\n", "file-too-large",
     "the limit for this file is"),
])
def test_what_step_2_refuses_is_refused_at_push_time(served: Served, tmp_path: Path,
                                                     path: str, data: bytes, code: str,
                                                     says: str) -> None:
    """Before: each push was answered 'opened pull request #N' and refused seconds later
    by the gate. Now git prints step 2's catalog code, with the limit or the byte offset,
    and no pull request opens."""
    work = _commit_bytes(served, tmp_path / "w", path, data)
    done = git("push", served.with_token("ann"), "HEAD:submit/step2", cwd=work)
    assert done.rc != 0 and code in done.err and says in done.err, done.err
    forge = served.app.state.svc.forge  # type: ignore[attr-defined]
    assert "refs/heads/submit/step2" not in forge.repo.references
    assert _prs(served) == []
