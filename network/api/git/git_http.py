"""The forge over git's smart HTTP: plain-git contributors on the embedded default (issue 11,
DESIGN.md's third user class; D-35).

:func:`install` mounts ``/git/graph.git`` in the service. Behind it runs the real git
server, ``git http-backend`` (CGI, through :func:`network.proc.run`), on the LocalForge's
bare repository and nothing else: the path the CGI sees is built here from a fixed table
(``info/refs``, ``git-upload-pack``, ``git-receive-pack``), never from the request.

* **Clone and fetch are open reads** (``git-upload-pack``), like every read route.
* **A push needs a token** (D-19): HTTP basic auth whose password is a service token
  (``POST /tokens``, ``lemmata token issue``); the user name is ignored. No or a wrong
  token answers ``401`` with ``WWW-Authenticate: Basic``, and counts against the address's
  failed authentications like any token route (:func:`network.api.service.authenticate`).
  The push itself passes the write guard (:func:`network.api.identity.pseudonyms.write_identity`:
  write limits, role binding, the DCO) and, as it opens a pull request, is refused
  ``queue-down`` while the merge queue is down (:func:`network.api.service.require_queue`).
* **A push may only create ``refs/heads/submit/<name>``.** The service reads the ref
  updates of the ``git-receive-pack`` request before git sees them (:func:`parse_commands`)
  and refuses, with a catalog code git shows the pusher (a receive-pack ``ng`` line and a
  ``remote:`` line), a push to any other ref (main, tags, ``pr/<n>``), a deletion, a
  hostile branch name (:func:`check_branch`) and any update of an existing ``submit/``
  branch: a pushed branch opens one pull request and nobody moves it afterwards, its
  pusher included (a corrected change is a new branch, as a corrected submission is a new
  pull request, D-25 v3.21), so nobody can update another's pull request. A pre-receive
  hook the service writes into the forge (:data:`HOOK`; the pusher controls the pack and
  the ref names, never the hook) refuses the same updates again as the last word, and a
  commit that shares no history with main. git itself checks every pushed object
  (``receive.fsckObjects``) and the pack's size (``receive.maxInputSize``); the request
  body is bounded by the service's ``max_body_bytes`` (``413 body-too-large``).
* **A pushed branch opens a pull request** exactly as a service submission does: on the
  forge, from the pushed commit, with the pusher's pseudonym as author (the submitter the
  merge queue's gate sees), indexed in ``submissions`` as the pusher's (``GET
  /submissions/mine``, ``DELETE /submissions/<id>``). The merge queue gates it like any
  other pull request. The refusals ``submit_proof`` makes before a pull request opens
  hold for a push whose first artifact it would take (:func:`check_before_opening`); a
  refused push has its branch removed again. A fenced ``precheck-attestation`` block in
  the head commit's message is carried into the pull request's body (ruling 7). Only a
  ref git's own status report calls ``ok`` opens one (:func:`updated_refs`), and the
  pusher is told its number and submission on git's progress band.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
import secrets
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from network import ids, proc
from network.api import db, deps
from network.api.identity.pseudonyms import write_identity
from network.api.service import Caller, Service, Who, authenticate, require_queue
from network.api.submit import submissions
from network.errors import LemmataError, define
from network.forge.local import LocalForge
from network.forge.types import PullRequest, precheck_from_body

define("git-path-unknown", None, 404,
       "The git endpoint serves git's smart HTTP protocol only: info/refs, git-upload-pack "
       "and git-receive-pack of /git/graph.git.",
       "Clone with a git client: `git clone <service>/git/graph.git`.")
define("git-push-ref-refused", None, 403,
       "A push over git HTTP may only create a branch refs/heads/submit/<name>: main, tags, "
       "pull-request branches and every other ref are refused (issue 11).",
       "Push your commit to a new branch: `git push origin HEAD:submit/<name>`.")
define("git-push-delete-refused", None, 403,
       "A push may not delete a branch; a pull request is withdrawn through the service.",
       "Withdraw it with DELETE /submissions/<id> (withdraw_submission).")
define("git-push-branch-invalid", None, 422,
       "The branch name is not one the forge takes: after submit/ come 1-100 characters of "
       "'/'-separated parts of ASCII letters, digits, '.', '_' and '-', each starting with "
       "a letter or digit, none ending in '.lock' or '.', no '..', and git check-ref-format "
       "must accept it.",
       "Push to a plain name such as submit/mid-proof.")
define("git-push-branch-exists", None, 409,
       "The branch already exists: a pushed branch opens one pull request and nobody, its "
       "pusher included, moves it afterwards (a corrected change is a new pull request, "
       "D-25 v3.21).",
       "Push to a new name, e.g. submit/<name>-2; withdraw the old pull request if it is "
       "superseded.")
define("git-push-too-many-refs", None, 422,
       "One push may create at most 10 branches.",
       "Push fewer branches at once.")
define("git-push-malformed", None, 422,
       "The git-receive-pack request is not one the forge reads: not git's pkt-line "
       "commands, compressed, or a signed push.",
       "Push with an ordinary git client, without --signed.")
define("git-push-unrelated", None, 422,
       "The pushed commit shares no history with the graph's main.",
       "Clone the graph, commit on top of main and push that.")
define("git-push-not-commit", None, 422, "A branch may only point at a commit.",
       "Push a commit, not a tag, tree or blob.")
define("git-push-nothing-new", None, 422,
       "The pushed commit is already on main: there is nothing for a pull request to hold.",
       "Commit your change on top of main, then push it to a new submit/ branch.")
define("git-backend-failed", None, 502,
       "git http-backend failed or answered something the service cannot read.",
       "Retry; if it persists, the operator should read the service's log.")
define("git-push-not-opened", None, 503,
       "The push was received but its pull request could not be opened; the branch was "
       "removed again.",
       "Push the same branch again.")

#: the mount point; the forge's repository is the only one served
MOUNT = "/git/graph.git"
SUBMIT = "refs/heads/submit/"
ZERO = "0" * 40
MAX_REFS = 10
MAX_BRANCH = 100
GIT_TIMEOUT_S = 120.0
HOOKS_DIR = "lemmata-hooks"
_HEX40 = re.compile(r"[0-9a-f]{40}")
_PART = r"[A-Za-z0-9][A-Za-z0-9._-]*"
_BRANCH = re.compile(rf"{_PART}(?:/{_PART})*")
_GIT_PROTOCOL = re.compile(r"[A-Za-z0-9=:._,-]{1,100}")
_push_lock = threading.Lock()  # one push at a time per service process

#: The forge's pre-receive hook (issue 11): the last word on a push, whatever the pusher
#: put in the pack or the ref names. Written by :func:`write_hook`; git runs it from the
#: ``core.hooksPath`` the service passes, with the pushed objects still in quarantine.
HOOK = """#!/bin/sh
# Written by the Lemmata service (network/api/git/git_http.py) on every start; edits are lost.
# A push over git HTTP may only create refs/heads/submit/<name> at a commit that shares
# history with main (issue 11).
zero=0000000000000000000000000000000000000000
status=0
while read -r old new ref; do
  case "$ref" in
    refs/heads/submit/?*) ;;
    *) echo "lemmata: git-push-ref-refused: $ref"; status=1; continue ;;
  esac
  if [ "$new" = "$zero" ]; then
    echo "lemmata: git-push-delete-refused: $ref"; status=1; continue
  fi
  if [ "$old" != "$zero" ]; then
    echo "lemmata: git-push-branch-exists: $ref"; status=1; continue
  fi
  if [ "$(git cat-file -t "$new" 2>/dev/null)" != commit ]; then
    echo "lemmata: git-push-not-commit: $ref"; status=1; continue
  fi
  if ! git merge-base "$new" refs/heads/main >/dev/null 2>&1; then
    echo "lemmata: git-push-unrelated: $ref shares no history with main"; status=1
  fi
done
exit $status
"""


@dataclass(frozen=True)
class Command:
    """One ref update of a push: old and new commit (40 hex, zeros for none) and the ref."""

    old: str
    new: str
    ref: str


@dataclass(frozen=True)
class Push:
    """A ``git-receive-pack`` request's commands and the client's capabilities."""

    commands: tuple[Command, ...]
    caps: frozenset[str]


# --- reading the request -----------------------------------------------------------------


def parse_commands(body: bytes) -> Push:
    """The ref updates at the head of a ``git-receive-pack`` request body (git's pkt-line
    format: ``old new ref\\0caps`` lines up to a flush; the pack follows).

    ``shallow`` lines are skipped (git judges them); a push certificate is refused.

    Raises:
        LemmataError: ``git-push-malformed``; ``git-push-too-many-refs``.
    """
    pos = 0
    commands: list[Command] = []
    caps: frozenset[str] = frozenset()
    lines = 0
    while True:
        head = body[pos:pos + 4]
        if len(head) < 4 or not re.fullmatch(rb"[0-9a-f]{4}", head):
            raise LemmataError("git-push-malformed", "the commands are not pkt-lines")
        size = int(head, 16)
        if size == 0:
            break
        if size < 5 or pos + size > len(body):
            raise LemmataError("git-push-malformed", f"a pkt-line of {size} bytes")
        line = body[pos + 4:pos + size]
        pos += size
        lines += 1
        if lines > 4 * MAX_REFS + 1000:  # shallow lines are bounded too
            raise LemmataError("git-push-malformed", "too many command lines")
        if line.endswith(b"\n"):  # git chomps one newline, the packet's last byte
            line = line[:-1]
        if not commands and b"\0" in line:
            line, _, cap_bytes = line.partition(b"\0")
            caps = frozenset(cap_bytes.decode("ascii", "replace").split())
        if line.startswith(b"shallow "):
            continue
        if line.startswith(b"push-cert"):
            raise LemmataError("git-push-malformed", "signed pushes are not taken")
        parts = line.split(b" ")
        if len(parts) != 3:
            raise LemmataError("git-push-malformed", "a command is not `old new ref`")
        old, new = (p.decode("ascii", "replace") for p in parts[:2])
        if not (_HEX40.fullmatch(old) and _HEX40.fullmatch(new)):
            raise LemmataError("git-push-malformed", "a command's object ids are not 40 hex")
        ref = parts[2].decode("utf-8", "replace")
        if any(c.ref == ref for c in commands):
            raise LemmataError("git-push-malformed", f"{ref[:120]!r} is updated twice")
        commands.append(Command(old, new, ref))
        if len(commands) > MAX_REFS:
            raise LemmataError("git-push-too-many-refs", f"more than {MAX_REFS} ref updates")
    if not commands:
        raise LemmataError("git-push-malformed", "no ref update")
    return Push(tuple(commands), caps)


def check_branch(ref: str) -> None:
    """Refuse a pushed ref that is not a well-formed ``refs/heads/submit/<name>``.

    Args:
        ref: the full ref name as the pusher sent it (hostile).

    Raises:
        LemmataError: ``git-push-ref-refused`` outside ``refs/heads/submit/``;
            ``git-push-branch-invalid`` for a name :data:`_BRANCH` or
            ``git check-ref-format`` refuses, or one over :data:`MAX_BRANCH` characters.
    """
    if not ref.startswith(SUBMIT):
        raise LemmataError("git-push-ref-refused", f"{ref[:120]!r} is not under {SUBMIT}")
    name = ref[len(SUBMIT):]
    shown = repr(name[:120])
    if not name or len(name) > MAX_BRANCH:
        raise LemmataError("git-push-branch-invalid", f"{shown} is empty or longer than "
                           f"{MAX_BRANCH} characters")
    if not _BRANCH.fullmatch(name) or ".." in name or any(
            part.endswith((".lock", ".")) for part in name.split("/")):
        raise LemmataError("git-push-branch-invalid", f"{shown} has a character or part "
                           "the forge does not take")
    done = proc.run(["git", "check-ref-format", ref], timeout_s=10)
    if done.rc != 0:
        raise LemmataError("git-push-branch-invalid", f"git check-ref-format refuses {shown}")


def _refusal(forge: LocalForge, cmd: Command) -> LemmataError | None:
    """Why the service refuses one ref update before git sees it, or None."""
    try:
        check_branch(cmd.ref)
        if cmd.new == ZERO:
            raise LemmataError("git-push-delete-refused", f"{cmd.ref} would be deleted")
        taken = {r.casefold() for r in forge.repo.references if r.startswith(SUBMIT)}
        if cmd.old != ZERO or cmd.ref.casefold() in taken:
            raise LemmataError("git-push-branch-exists", f"{cmd.ref} exists{_opened_as(forge, cmd.ref)}")
    except LemmataError as exc:
        return exc
    return None


def _opened_as(forge: LocalForge, ref: str) -> str:
    """``: it opened pull request #n for <pusher>`` for the pull request the branch opened
    (its body's last line, which the pusher's commit message cannot follow), else ""."""
    for pr in forge.list_all():
        if pr.body.casefold().endswith(_mark(ref, pr.author).casefold()):
            return f": it opened pull request #{pr.number} for {pr.author}"
    return ""


def _mark(ref: str, pseudonym: str) -> str:
    """The last line of a pushed pull request's body."""
    return f"Pushed over git HTTP to `{ref}` for {pseudonym} (D-35, issue 11).\n"


def token_of(request: Request) -> str | None:
    """The token a git client presents: the password of HTTP basic auth (the user name is
    ignored), or a bearer token; None when there is none. Undecodable basic credentials
    are returned as they came, so they fail as ``token-invalid``."""
    auth = request.headers.get("authorization") or ""
    scheme, _, value = auth.partition(" ")
    value = value.strip()
    if scheme.lower() == "bearer":
        return value or None
    if scheme.lower() != "basic" or not value:
        return None
    try:
        decoded = base64.b64decode(value, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return value
    _user, sep, password = decoded.partition(":")
    return password.strip() or None if sep else (decoded.strip() or None)


# --- answering -----------------------------------------------------------------------------


def refusal_response(exc: LemmataError) -> Response:
    """A refusal a git client shows its user: ``text/plain`` ``code: detail`` and the
    action (git prints a text/plain answer of its ref discovery as ``remote:`` lines), the
    catalog's status; 401 asks for basic auth, 429 adds ``Retry-After``."""
    headers = {}
    if exc.entry.http_status == 401:
        headers["WWW-Authenticate"] = 'Basic realm="lemmata git", charset="UTF-8"'
    retry = getattr(exc, "retry_after", None)
    if retry is not None:
        headers["Retry-After"] = str(int(retry))
    text = f"{exc.code}: {exc.detail}\n{exc.entry.action}\n"
    return Response(text, status_code=exc.entry.http_status, media_type="text/plain",
                    headers=headers)


def _pkt(data: bytes) -> bytes:
    return b"%04x" % (len(data) + 4) + data


def _one_line(text: str) -> str:
    return re.sub(r"[\x00-\x1f\x7f]+", " ", text)[:400]


def report(push: Push, refused: dict[str, LemmataError]) -> Response:
    """The receive-pack answer refusing a whole push, as git reads it: ``ng <ref> <code:
    detail>`` for each ref (the refs not at fault name the one that is), each refusal's
    action on git's progress band (``remote:`` lines) when the client takes side-band.

    A client that asked for no status report gets the plain-text refusal (403) instead."""
    first = next(iter(refused.values()))
    if not push.caps & {"report-status", "report-status-v2"}:
        return refusal_response(first)
    status = _pkt(b"unpack ok\n")
    for cmd in push.commands:
        exc = refused.get(cmd.ref)
        why = f"{exc.code}: {exc.detail}" if exc else (
            f"not pushed: {first.code} refused another ref of this push")
        status += _pkt(f"ng {cmd.ref} {_one_line(why)}\n".encode("utf-8", "replace"))
    status += b"0000"
    if not push.caps & {"side-band-64k", "side-band"}:
        body = status
    else:
        chunk = 65000 if "side-band-64k" in push.caps else 990
        body = b""
        for exc in refused.values():
            msg = f"lemmata: {exc.code}: {_one_line(exc.detail)}\nlemmata: {exc.entry.action}\n"
            body += _pkt(b"\x02" + msg.encode("utf-8", "replace"))
        for i in range(0, len(status), chunk):
            body += _pkt(b"\x01" + status[i:i + chunk])
        body += b"0000"
    return Response(body, media_type="application/x-git-receive-pack-result",
                    headers={"Cache-Control": "no-cache"})


# --- the CGI -------------------------------------------------------------------------------


def write_hook(forge: LocalForge) -> Path:
    """Write :data:`HOOK` as ``pre-receive`` in the forge's ``lemmata-hooks/`` (the
    ``core.hooksPath`` every push runs with, so no other hook runs); idempotent.

    Returns:
        The hooks folder.
    """
    hooks = forge.path / HOOKS_DIR
    hooks.mkdir(exist_ok=True)
    hook = hooks / "pre-receive"
    if not hook.exists() or hook.read_text("utf-8") != HOOK:
        tmp = hooks / f".pre-receive.{secrets.token_hex(4)}"
        tmp.write_text(HOOK, "utf-8")
        tmp.chmod(0o755)
        tmp.replace(hook)
    hook.chmod(0o755)
    return hooks


def _config(pairs: list[tuple[str, str]]) -> dict[str, str]:
    env = {"GIT_CONFIG_COUNT": str(len(pairs))}
    for i, (key, value) in enumerate(pairs):
        env[f"GIT_CONFIG_KEY_{i}"] = key
        env[f"GIT_CONFIG_VALUE_{i}"] = value
    return env


def run_backend(svc: Service, forge: LocalForge, *, method: str, path: str, service: str,
                body: bytes, headers: dict[str, str], remote_user: str | None,
                address: str) -> Response:
    """Run ``git http-backend`` for one request on the forge's repository and turn its CGI
    answer into a response.

    Args:
        method: GET or POST.
        path: ``info/refs``, ``git-upload-pack`` or ``git-receive-pack`` (checked by the
            caller against the fixed table).
        service: ``git-upload-pack`` or ``git-receive-pack``.
        body: the whole request body.
        headers: the request headers git's CGI reads (Content-Type, Content-Encoding,
            Git-Protocol).
        remote_user: the pusher's pseudonym (receive-pack only).

    Raises:
        LemmataError: ``git-backend-failed``; what :func:`network.proc.run` raises.
    """
    push = service == "git-receive-pack"
    hooks = write_hook(forge) if push else forge.path / HOOKS_DIR
    repo = forge.path.resolve()
    config = [("http.receivepack", "true" if push else "false"),
              ("http.uploadpack", "true"), ("http.getanyfile", "false"),
              ("core.hooksPath", str(hooks.resolve())),
              ("receive.fsckObjects", "true"), ("receive.denyDeletes", "true"),
              ("receive.denyNonFastForwards", "true"), ("receive.autogc", "false"),
              ("receive.advertisePushOptions", "false"),
              ("receive.maxInputSize", str(svc.settings.max_body_bytes)),
              ("uploadpack.allowFilter", "false"), ("safe.directory", str(repo))]
    git_env = {
        "GIT_PROJECT_ROOT": str(repo.parent), "GIT_HTTP_EXPORT_ALL": "1",
        "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_HTTP_MAX_REQUEST_BUFFER": str(max(svc.settings.max_body_bytes, 10_000_000)),
        **_config(config),
    }
    protocol = headers.get("git-protocol")
    if protocol and _GIT_PROTOCOL.fullmatch(protocol):
        git_env["GIT_PROTOCOL"] = protocol
    cgi = {
        "REQUEST_METHOD": method, "PATH_INFO": f"/{repo.name}/{path}",
        "QUERY_STRING": f"service={service}" if path == "info/refs" else "",
        "CONTENT_TYPE": headers.get("content-type", ""),
        "CONTENT_LENGTH": str(len(body)) if method == "POST" else "",
        "REMOTE_ADDR": address, "SERVER_PROTOCOL": "HTTP/1.1", "GATEWAY_INTERFACE": "CGI/1.1",
    }
    encoding = headers.get("content-encoding")
    if encoding and not push:
        cgi["HTTP_CONTENT_ENCODING"] = encoding
    if remote_user:
        cgi["REMOTE_USER"] = remote_user
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TMPDIR")}
    env.update(cgi)
    done = proc.run(["git", "http-backend"], env=env, git_env=git_env,
                    input_bytes=body if method == "POST" else b"", timeout_s=GIT_TIMEOUT_S)
    return _cgi_response(done)


def _cgi_response(done: proc.Completed) -> Response:
    raw = done.raw_out
    sep = raw.find(b"\r\n\r\n")
    skip = 4
    if sep < 0 or (0 <= raw.find(b"\n\n") < sep):
        sep, skip = raw.find(b"\n\n"), 2
    if done.rc != 0 and sep < 0:
        raise LemmataError("git-backend-failed", f"git http-backend exited {done.rc}: "
                           f"{_one_line(done.err)[:200]}")
    if sep < 0:
        raise LemmataError("git-backend-failed", "no CGI header in git http-backend's answer")
    status = 200
    out_headers: dict[str, str] = {}
    for line in raw[:sep].decode("latin-1").splitlines():
        name, _, value = line.partition(":")
        name, value = name.strip(), value.strip()
        if name.lower() == "status":
            try:
                status = int(value.split()[0])
            except (ValueError, IndexError) as exc:
                raise LemmataError("git-backend-failed", f"CGI status {value!r}") from exc
        elif name.lower() in ("content-type", "cache-control", "expires", "pragma"):
            out_headers[name] = value
    media = out_headers.pop("Content-Type", None) or out_headers.pop("content-type", None)
    return Response(raw[sep + skip:], status_code=status, media_type=media,
                    headers=out_headers)


# --- opening the pull requests -------------------------------------------------------------


def _title_and_body(forge: LocalForge, cmd: Command, who: Who) -> tuple[str, str]:
    import pygit2

    commit = forge.repo[cmd.new].peel(pygit2.Commit)
    message = str(commit.message or "")[:20000]
    summary = _one_line(message.split("\n", 1)[0]).strip()[:200]
    title = summary or f"push to {cmd.ref[len('refs/heads/'):]}"
    body = (f"{message.rstrip()}\n\n" if message.strip() else "") + (
        _mark(cmd.ref, who.pseudonym))
    return title, body


def _text_at(forge: LocalForge, commit: str, path: str | None) -> str:
    import pygit2

    if not path:
        return ""
    try:
        blob = forge.repo[forge.repo[commit].peel(pygit2.Commit).tree[path].id]
    except (KeyError, ValueError):
        return ""
    return bytes(blob.data).decode("utf-8", "replace") if isinstance(blob, pygit2.Blob) else ""


def step2_refusal(forge: LocalForge, graph: Any, head: str, submitter: str | None) -> None:
    """Gate steps 1 and 2 on a pushed commit at push time (issue 35, item 4): the queue's
    :func:`network.gate.steps.step2.run_steps_1_2` over its changes since the merge base with
    main. What it refuses (``gate-only-path``, ``file-too-large``, ``not-utf8``, ...) git
    prints with the limit or byte offset, and no pull request opens.

    Raises:
        LemmataError: the first failing finding's own code (every finding in the
            detail), as :func:`network.api.submit.record_pr.refuse_findings` raises it.
    """
    import pygit2

    from network.api.submit.record_pr import refuse_findings
    from network.gate.diff import diff_commits
    from network.gate.steps.step2 import run_steps_1_2

    main = forge.main_sha()
    mb = forge.repo.merge_base(pygit2.Oid(hex=main), pygit2.Oid(hex=head))
    result = run_steps_1_2(diff_commits(forge.path, str(mb) if mb else main, head), graph,
                           submitter)
    failing = [d for step in (result.step1, result.step2) if not step.ok
               for d in step.diagnostics]
    refuse_findings(failing)


def check_before_opening(svc: Service, forge: LocalForge, head: str,
                         submitter: str | None = None) -> dict[str, Any]:
    """The refusals :func:`network.api.submit.submissions.submit_proof` makes before a pull
    request opens, applied to a pushed commit: first gate steps 1 and 2
    (:func:`step2_refusal`), then, where its first artifact is one ``submit_proof`` takes
    (the Lean kinds and a witness), shelved and unclaimable nodes, an unlabelled partial,
    a copy of a merged or open artifact, a taken witness slot (D-25 v3.21, D-12 v3.44,
    D-14 v3.47). Call it holding ``submissions._lock``.

    Args:
        svc: the service.
        forge: the local forge holding the pushed commit.
        head: the pushed commit.
        submitter: the pusher's pseudonym (step 2's role rules); None when unknown.

    Returns:
        The index facts of the head (target, node, kind, chain_head, normalized_sha256).

    Raises:
        LemmataError: ``git-push-nothing-new`` for a commit main holds; any step-1/2 code
            (``path-not-permitted``, ``gate-only-path``, ``file-too-large``, ``not-utf8``,
            ...); ``submission-node-shelved``; ``alternate-without-proof``;
            ``claimable()``'s codes; ``partial-unlabelled``; ``submission-copy``;
            ``witness-slot-taken``.
    """
    from types import SimpleNamespace

    from network.gate.artifacts import partial_label_findings

    if forge.contains(forge.main_sha(), head):
        raise LemmataError("git-push-nothing-new", f"{head[:12]} is already on main")
    try:
        graph = svc.graphs.snapshot().graph
    except LemmataError:
        return {"target": "-", "node": "-", "kind": "unclassified", "chain_head": None,
                "normalized_sha256": "0" * 64}
    step2_refusal(forge, graph, head, submitter)
    facts = submissions._classify_pr(svc, graph, SimpleNamespace(head_sha=head))
    kind, target, node = facts["kind"], facts["target"], facts["node"]
    if node == "-" or kind not in (*submissions.SUBMITTABLE, "witness"):
        return facts
    text = _text_at(forge, head, facts["chain_head"])
    if kind != "witness":
        submissions.check_node_accepts(graph, target=target, node=node, kind=kind)
    if kind == "partial":
        found = partial_label_findings(text, facts["chain_head"],
                                       submissions.hole_lines(text))
        if found:
            raise LemmataError("partial-unlabelled", "; ".join(d.message for d in found),
                               path=facts["chain_head"])
    submissions.sync_index(svc)
    submissions.check_copies(svc, graph, target=target, node=node, kind=kind, text=text)
    return facts


def open_pushed(svc: Service, forge: LocalForge, who: Who,
                cmd: Command) -> tuple[PullRequest, str]:
    """Open the pull request of a branch the push created, with the pusher as author
    (the submitter the gate sees), and index it as the pusher's submission (ruling 12),
    after the refusals of :func:`check_before_opening`.

    Returns:
        The pull request and its submission id (``GET /submissions/<id>``).

    Raises:
        LemmataError: :func:`check_before_opening`'s codes; ``git-push-not-opened`` when
            the forge or the index failed.
    """
    title, body = _title_and_body(forge, cmd, who)
    with submissions._lock:  # the index's one check-then-open, as submit_proof holds it
        facts = check_before_opening(svc, forge, cmd.new, who.pseudonym)
        try:
            return _open(svc, forge, who, cmd, title, body, facts)
        except Exception as exc:  # reported to the pusher with its cause
            code = exc.code if isinstance(exc, LemmataError) else type(exc).__name__
            raise LemmataError("git-push-not-opened", f"{code}: {exc}") from exc


def _open(svc: Service, forge: LocalForge, who: Who, cmd: Command, title: str, body: str,
          facts: dict[str, Any]) -> tuple[PullRequest, str]:
    pr = forge.open_from_commit(cmd.new, title=title, body=body, author=who.pseudonym,
                                precheck_attestation=precheck_from_body(body),
                                base_sha=forge.main_sha())
    key = submissions._pr_key(pr.number)
    row = dict(pull_request_url=None, identity_id=who.id, pseudonym=who.pseudonym,
               opened_by_service=1, state="open", opened_at=svc.now(),
               head_sha=pr.head_sha, **facts)
    sub_id = ids.new_submission_id()
    try:
        with db.transaction(svc.sessions) as s:
            s.add(db.SubmissionRow(id=sub_id, pull_request=key, **row))
    except IntegrityError:  # indexed concurrently as a hand-opened one: make it ours
        with db.transaction(svc.sessions) as s:
            s.execute(update(db.SubmissionRow).where(
                db.SubmissionRow.pull_request == key).values(**row))
            sub_id = s.execute(select(db.SubmissionRow.id).where(
                db.SubmissionRow.pull_request == key)).scalar_one()
    return pr, sub_id


def _pkt_lines(data: bytes) -> list[bytes]:
    """The payloads of a run of pkt-lines (flushes dropped); stops at anything else."""
    out: list[bytes] = []
    pos = 0
    while pos + 4 <= len(data):
        head = data[pos:pos + 4]
        if not re.fullmatch(rb"[0-9a-f]{4}", head):
            break
        size = int(head, 16)
        if size < 4:  # flush and the other special packets
            pos += 4
            continue
        out.append(data[pos + 4:pos + size])
        pos += size
    return out


def updated_refs(answer: bytes, caps: frozenset[str]) -> set[str]:
    """The refs git's receive-pack answer reports ``ok`` (its status report, unwrapped
    from side-band when the client asked for it): what git itself updated."""
    report_bytes = answer
    if caps & {"side-band-64k", "side-band"}:
        report_bytes = b"".join(p[1:] for p in _pkt_lines(answer) if p[:1] == b"\x01")
    out: set[str] = set()
    for line in _pkt_lines(report_bytes):
        text = line.decode("utf-8", "replace").rstrip("\n")
        if text.startswith("ok "):
            out.add(text[3:])
    return out


def _with_messages(answer: Response, push: Push, lines: list[str]) -> Response:
    """git's receive-pack answer with ``lines`` added on its progress band (shown as
    ``remote:`` lines), before its closing flush; unchanged without side-band."""
    body = bytes(answer.body)
    if not lines or not push.caps & {"side-band-64k", "side-band"} or \
            not body.endswith(b"0000"):
        return answer
    extra = b"".join(_pkt(b"\x02" + f"lemmata: {_one_line(ln)}\n".encode("utf-8", "replace"))
                     for ln in lines)
    return Response(body[:-4] + extra + b"0000", status_code=answer.status_code,
                    media_type=answer.media_type, headers={"Cache-Control": "no-cache"})


def receive(svc: Service, forge: LocalForge, caller: Caller, body: bytes,
            headers: dict[str, str]) -> Response:
    """A ``git-receive-pack`` POST: read the commands, refuse what the forge does not
    take, else hand the request to git and open a pull request for each branch created.

    Raises:
        LemmataError: ``token-missing``/``token-invalid``/``token-expired`` (rendered 401
            by the caller); ``git-backend-failed``.
    """
    refusal: LemmataError | None = None
    try:  # the token first: nobody unauthenticated makes the service read a push
        who = write_identity(svc, caller)
        require_queue(svc)  # a pull request opened now would wait unjudged (issue 16)
    except LemmataError as exc:
        if exc.entry.http_status == 401:
            raise
        refusal = exc  # rate-limited, dco-not-accepted, queue-down: told as git's ng lines
    if refusal is None and (headers.get("content-encoding") or "identity").lower() \
            != "identity":
        refusal = LemmataError("git-push-malformed", "a compressed push body")
    try:
        push = parse_commands(body)
    except LemmataError as exc:
        return refusal_response(refusal or exc)
    if refusal is not None:
        return report(push, {push.commands[0].ref: refusal})
    with _push_lock:
        refused = {c.ref: e for c in push.commands if (e := _refusal(forge, c)) is not None}
        if refused:
            return report(push, refused)
        try:
            answer = run_backend(svc, forge, method="POST", path="git-receive-pack",
                                 service="git-receive-pack", body=body, headers=headers,
                                 remote_user=who.pseudonym, address=caller.address)
        except LemmataError:  # git killed or unreadable: no branch stays without its PR
            for cmd in push.commands:
                if _ref_target(forge, cmd.ref) == cmd.new:
                    forge.repo.references.delete(cmd.ref)
            raise
        done = updated_refs(bytes(answer.body), push.caps)
        created = [c for c in push.commands
                   if c.ref in done and _ref_target(forge, c.ref) == c.new]
        failed: dict[str, LemmataError] = {}
        opened: list[str] = []
        for cmd in created:
            try:
                pr, sub_id = open_pushed(svc, forge, who, cmd)
                opened.append(f"{cmd.ref} opened pull request #{pr.number} for "
                              f"{who.pseudonym}; the merge queue gates it: poll GET "
                              f"/submissions/{sub_id} (get_submission)")
            except Exception as exc:  # noqa: BLE001 - the branch must not stay without its PR
                failed[cmd.ref] = exc if isinstance(exc, LemmataError) else LemmataError(
                    "git-push-not-opened", f"{type(exc).__name__}: {exc}")
                if cmd.ref in forge.repo.references:
                    forge.repo.references.delete(cmd.ref)
        if failed:
            return report(push, failed)
        return _with_messages(answer, push, opened)


def _ref_target(forge: LocalForge, ref: str) -> str | None:
    try:
        return str(forge.repo.references[ref].target)
    except (KeyError, ValueError):
        return None


# --- the route -----------------------------------------------------------------------------

_PATHS = {("GET", "info/refs"), ("POST", "git-upload-pack"), ("POST", "git-receive-pack")}
_SERVICES = ("git-upload-pack", "git-receive-pack")


async def _endpoint(request: Request) -> Response:
    svc: Service = request.app.state.svc
    rest = str(request.path_params.get("rest", ""))
    method = "GET" if request.method == "HEAD" else request.method
    try:
        if (method, rest) not in _PATHS:
            raise LemmataError("git-path-unknown", f"{method} {MOUNT}/{rest[:100]}")
        service = request.query_params.get("service") if rest == "info/refs" else rest
        if service not in _SERVICES:
            raise LemmataError("git-path-unknown", "only git's smart HTTP protocol is "
                               "served (info/refs needs ?service=git-upload-pack or "
                               "git-receive-pack)")
        forge = svc.forge
        if not isinstance(forge, LocalForge):
            raise LemmataError("forge-unavailable", "this service has no embedded forge to "
                               "serve over git (a GitHub forge is cloned from GitHub)")
        address = deps.address(request)  # X-Forwarded-For from a trusted proxy only
        caller = Caller(token=token_of(request), address=address)
        headers = {k.lower(): v for k, v in request.headers.items()}
        body = await request.body() if method == "POST" else b""
        if service == "git-receive-pack" and rest == "info/refs":
            who = await run_in_threadpool(authenticate, svc, caller.token,
                                          caller.address_hash)
            return await run_in_threadpool(
                run_backend, svc, forge, method=method, path=rest, service=service,
                body=body, headers=headers, remote_user=who.pseudonym, address=address)
        if service == "git-receive-pack":
            return await run_in_threadpool(receive, svc, forge, caller, body, headers)
        return await run_in_threadpool(
            run_backend, svc, forge, method=method, path=rest, service=service, body=body,
            headers=headers, remote_user=None, address=address)
    except LemmataError as exc:
        return refusal_response(exc)


def install(app: Any, svc: Service) -> None:
    """Mount the git endpoint at ``/git/graph.git/{rest}`` (GET and POST; no MCP tool:
    git is its client, ``network.api.tools.NO_TOOL``)."""
    del svc  # the endpoint reads app.state.svc, so a test's app swap is seen
    app.router.routes.append(Route(MOUNT + "/{rest:path}", _endpoint,
                                   methods=["GET", "POST"]))


__all__ = ["HOOK", "MOUNT", "Command", "Push", "check_before_opening", "check_branch", "install", "open_pushed",
           "parse_commands", "receive", "refusal_response", "report", "run_backend",
           "token_of", "updated_refs", "write_hook"]
