"""The embedded forge: where pull requests against the graph live (DESIGN.md, D-35).

:class:`LocalForge` is the embedded default of the :class:`~network.forge.types.Forge`
protocol: a bare graph repository handled through pygit2, each pull request a branch
``refs/heads/pr/<n>`` plus a row in SQL (:mod:`network.forge.rows`). The gate runs on it
through the merge queue (network.gate.queue.queue). A pull request the service opens is
indistinguishable from a hand-opened one: the ledger identity is the commit author and the
``Signed-off-by`` trailer, the service is the committer (D-23, D-35).

Pull-request rows are operational state: losing them loses the queue's bookkeeping, never
a verdict, which lives in the graph's attestations.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from pathlib import Path

import pygit2
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from network.errors import LemmataError
from network.forge.rows import PullRequestRow, transaction
from network.forge.types import MAIN, PrState, PullRequest
from network.record.read.source import check_graph_path


def _row_to_pr(row: PullRequestRow) -> PullRequest:
    return PullRequest(
        number=row.number, title=row.title, body=row.body, base_sha=row.base_sha,
        head_sha=row.head_sha, author=row.author, state=row.state,  # type: ignore[arg-type]
        merge_sha=row.merge_sha, precheck_attestation=row.precheck_attestation,
        close_code=row.close_code, close_detail=row.close_detail,
    )


class LocalForge:
    """A bare repository plus SQL rows: the embedded forge.

    Args:
        repo_path: the bare repository (created by :meth:`create` or :meth:`seed`).
        sessions: a sessionmaker over the service's database (migrated).
        committer: name and e-mail the service commits as.
        clock: seconds since the epoch, for operational timestamps and commit times.

    Raises:
        LemmataError: ``git-error`` when ``repo_path`` is not a repository.
    """

    def __init__(self, repo_path: str | Path, sessions: sessionmaker[Session], *,
                 committer: tuple[str, str] = ("Lemmata service", "service@lemmata.invalid"),
                 clock: Callable[[], float] | None = None) -> None:
        try:
            self.repo = pygit2.Repository(str(repo_path))
        except pygit2.GitError as exc:
            raise LemmataError("git-error", f"{repo_path}: {exc}") from exc
        self.path = Path(repo_path)
        self.sessions = sessions
        self.committer = committer
        self._clock = clock or time.time

    # --- creating ---------------------------------------------------------------------

    @staticmethod
    def seed(repo_path: str | Path, graph_dir: str | Path, *, message: str = "Seed the graph",
             author: tuple[str, str] = ("Lemmata", "graph@lemmata.invalid"),
             when: int = 0) -> str:
        """Create a bare repository whose main holds ``graph_dir``'s files in one commit.

        Idempotent: an existing repository is left as it is. Symbolic links and hostile
        names are refused (the record holds neither).

        Returns:
            main's commit id, 40 hex.

        Raises:
            LemmataError: ``symlink-refused`` or ``hostile-path``.
        """
        repo_path = Path(repo_path)
        if (repo_path / "HEAD").exists():
            repo = pygit2.Repository(str(repo_path))
            return str(repo.references[MAIN].target)
        repo = pygit2.init_repository(str(repo_path), bare=True, initial_head="main")
        files: dict[str, bytes] = {}
        root = Path(graph_dir)
        for p in sorted(root.rglob("*")):
            rel = p.relative_to(root).as_posix()
            if p.is_symlink():
                raise LemmataError("symlink-refused", "a symbolic link", path=rel)
            if not p.is_file() or rel.startswith(".git/"):
                continue
            why = check_graph_path(rel)
            if why:
                raise LemmataError("hostile-path", why, path=rel)
            files[rel] = p.read_bytes()
        tree = _build_tree(repo, None, files)
        sig = pygit2.Signature(author[0], author[1], when or int(time.time()), 0)
        oid = repo.create_commit(MAIN, sig, sig, message, tree, [])
        return str(oid)

    # --- reading ----------------------------------------------------------------------

    def main_sha(self) -> str:
        return str(self.repo.references[MAIN].target)

    def get(self, number: int) -> PullRequest:
        with self.sessions() as s:
            row = s.get(PullRequestRow, number)
            if row is None:
                raise LemmataError("pull-request-not-found", f"no pull request #{number}")
            return _row_to_pr(row)

    def list_open(self) -> list[PullRequest]:
        with self.sessions() as s:
            rows = s.scalars(select(PullRequestRow).where(PullRequestRow.state == "open")
                             .order_by(PullRequestRow.number)).all()
            return [_row_to_pr(r) for r in rows]

    def list_all(self) -> list[PullRequest]:
        """Every pull request, by number."""
        with self.sessions() as s:
            rows = s.scalars(select(PullRequestRow).order_by(PullRequestRow.number)).all()
            return [_row_to_pr(r) for r in rows]

    # --- writing ----------------------------------------------------------------------

    def _signature(self, name: str, email: str) -> pygit2.Signature:
        return pygit2.Signature(name, email, int(self._clock()), 0)

    def commit_files(self, parent: str, files: Mapping[str, bytes | None], message: str, *,
                     author: tuple[str, str]) -> str:
        """A commit on top of ``parent`` changing ``files``; no ref moves.

        Args:
            parent: the parent commit, 40 hex.
            files: graph path → new bytes, or None to delete.
            message: the commit message.
            author: (name, e-mail) of the author; the committer is the service.

        Raises:
            LemmataError: ``hostile-path`` for an unsafe path.
        """
        for path in files:
            why = check_graph_path(path)
            if why:
                raise LemmataError("hostile-path", why, path=path)
        base_tree = self.repo[parent].peel(pygit2.Commit).tree
        tree = _build_tree(self.repo, base_tree, files)
        return str(self.repo.create_commit(
            None, self._signature(*author), self._signature(*self.committer), message, tree,
            [pygit2.Oid(hex=parent)],
        ))

    def open_pull_request(self, *, files: Mapping[str, bytes | None], title: str, body: str,
                          author: str, precheck_attestation: str | None = None,
                          base_sha: str | None = None) -> PullRequest:
        base = base_sha or self.main_sha()
        message = f"{title}\n\nSigned-off-by: {author} <{author}@users.lemmata.invalid>\n"
        head = self.commit_files(base, files, message,
                                 author=(author, f"{author}@users.lemmata.invalid"))
        return self.open_from_commit(head, title=title, body=body, author=author,
                                     precheck_attestation=precheck_attestation, base_sha=base)

    def open_from_commit(self, head_sha: str, *, title: str, body: str, author: str,
                         precheck_attestation: str | None = None,
                         base_sha: str | None = None) -> PullRequest:
        """Open a pull request for an existing commit (a plain-git push)."""
        with transaction(self.sessions) as s:
            row = PullRequestRow(
                title=title[:300], body=body, base_sha=base_sha or self.main_sha(),
                head_sha=head_sha, author=author, state="open",
                precheck_attestation=precheck_attestation, opened_at=int(self._clock()),
            )
            s.add(row)
            s.flush()
            self.repo.references.create(f"refs/heads/pr/{row.number}",
                                        pygit2.Oid(hex=head_sha), force=True)
            return _row_to_pr(row)

    def amend_pull_request(self, number: int, files: Mapping[str, bytes | None], message: str,
                           *, author: str) -> PullRequest:
        """Push one more commit changing ``files`` onto an open pull request's branch, as its
        author would (D-28 notation note 2026-10-06: ``amends``).

        Raises:
            LemmataError: ``pull-request-not-found``; ``pull-request-closed``;
                ``hostile-path``.
        """
        pr = self.get(number)
        if pr.state != "open":
            raise LemmataError("pull-request-closed", f"#{number} is {pr.state}")
        message = f"{message}\n\nSigned-off-by: {author} <{author}@users.lemmata.invalid>\n"
        head = self.commit_files(pr.head_sha, files, message,
                                 author=(author, f"{author}@users.lemmata.invalid"))
        with transaction(self.sessions) as s:
            row = s.get(PullRequestRow, number)
            assert row is not None
            row.head_sha = head
            self.repo.references.create(f"refs/heads/pr/{number}", pygit2.Oid(hex=head),
                                        force=True)
            return _row_to_pr(row)

    def _finish(self, number: int, state: PrState, merge_sha: str | None,
                code: str | None = None, detail: str | None = None) -> PullRequest:
        with transaction(self.sessions) as s:
            row = s.get(PullRequestRow, number)
            if row is None:
                raise LemmataError("pull-request-not-found", f"no pull request #{number}")
            if row.state != "open":
                raise LemmataError("pull-request-closed", f"#{number} is {row.state}")
            row.state = state
            row.merge_sha = merge_sha
            row.closed_at = int(self._clock())
            row.close_code = code[:64] if code else None
            row.close_detail = detail[:500] if detail else None
            ref = f"refs/heads/pr/{number}"
            if ref in self.repo.references:
                self.repo.references.delete(ref)
            return _row_to_pr(row)

    def close(self, number: int, *, code: str | None = None,
              detail: str | None = None) -> PullRequest:
        """Close unmerged and delete the branch; ``code`` and ``detail`` record why (the
        merge queue's catalog code, issue 16), shown to the submitter.

        Raises:
            LemmataError: ``pull-request-not-found``; ``pull-request-closed``.
        """
        return self._finish(number, "closed", None, code, detail)

    def merge_target(self, number: int) -> str:
        """main's commit after merging pull request ``number``, computed without moving any
        ref (the merge queue journals it before main moves, issue 16): the head itself when
        it fast-forwards main, else a new merge commit (the service as committer).

        Returns:
            the commit id, 40 hex.

        Raises:
            LemmataError: ``pull-request-not-found``; ``pull-request-closed``;
                ``merge-conflict`` when the head no longer merges cleanly into main.
        """
        pr = self.get(number)
        if pr.state != "open":
            raise LemmataError("pull-request-closed", f"#{number} is {pr.state}")
        main = self.main_sha()
        if self.repo.descendant_of(pygit2.Oid(hex=pr.head_sha), pygit2.Oid(hex=main)) or \
                pr.head_sha == main:
            return pr.head_sha
        index = self.repo.merge_commits(main, pr.head_sha)
        if index.conflicts is not None:
            raise LemmataError("merge-conflict", f"#{number} conflicts with main")
        tree = index.write_tree(self.repo)
        sig = self._signature(*self.committer)
        return str(self.repo.create_commit(
            None, sig, sig, f"Merge pull request #{number}: {pr.title}", tree,
            [pygit2.Oid(hex=main), pygit2.Oid(hex=pr.head_sha)],
        ))

    def contains(self, commit: str, ancestor: str) -> bool:
        """Whether ``commit`` is ``ancestor`` or descends from it (both 40 hex); False when
        either is not in the repository."""
        try:
            return commit == ancestor or self.repo.descendant_of(
                pygit2.Oid(hex=commit), pygit2.Oid(hex=ancestor))
        except (pygit2.GitError, ValueError, KeyError):
            return False

    def advance_main(self, expected: str, new: str) -> bool:
        """Move main from ``expected`` to ``new`` (both 40 hex); idempotent (issue 16).

        Returns:
            True when main moved now, False when main already contains ``new``.

        Raises:
            LemmataError: ``merge-conflict`` when main is neither ``expected`` nor contains
                ``new`` (main moved under the merge: it is judged again).
        """
        main = self.main_sha()
        if self.contains(main, new):
            return False
        if main != expected:
            raise LemmataError("merge-conflict", f"main moved to {main[:12]} under a merge "
                               f"expected from {expected[:12]}")
        self.repo.references[MAIN].set_target(pygit2.Oid(hex=new))
        return True

    def mark_merged(self, number: int, merge_sha: str) -> PullRequest:
        """Mark pull request ``number`` merged as ``merge_sha`` and delete its branch;
        idempotent: a row already merged is returned as it is (issue 16).

        Raises:
            LemmataError: ``pull-request-not-found``; ``pull-request-closed`` when it was
                closed unmerged.
        """
        pr = self.get(number)
        if pr.state == "merged":
            return pr
        return self._finish(number, "merged", merge_sha)

    def merge(self, number: int) -> PullRequest:
        main = self.main_sha()
        new_main = self.merge_target(number)
        self.advance_main(main, new_main)
        return self._finish(number, "merged", new_main)

    def commit_to_main(self, files: Mapping[str, bytes | None], message: str) -> str:
        sha = self.commit_files(self.main_sha(), files, message, author=self.committer)
        self.repo.references[MAIN].set_target(pygit2.Oid(hex=sha))
        return sha


def _build_tree(repo: pygit2.Repository, base: pygit2.Tree | None,
                files: Mapping[str, bytes | None]) -> pygit2.Oid:
    """A tree equal to ``base`` with ``files`` applied (None deletes), built bottom-up."""
    nested: dict[str, object] = {}
    for path, data in files.items():
        parts = path.split("/")
        cur = nested
        for part in parts[:-1]:
            nxt = cur.setdefault(part, {})
            assert isinstance(nxt, dict)
            cur = nxt
        cur[parts[-1]] = data

    def write(tree: pygit2.Tree | None, changes: dict[str, object]) -> pygit2.Oid | None:
        tb = repo.TreeBuilder(tree) if tree is not None else repo.TreeBuilder()
        for name, change in changes.items():
            existing = tree[name] if tree is not None and name in tree else None
            if isinstance(change, dict):
                sub = repo.get(existing.id) if existing is not None else None
                sub_tree = sub if isinstance(sub, pygit2.Tree) else None
                oid = write(sub_tree, change)
                if oid is None:
                    if existing is not None:
                        tb.remove(name)
                else:
                    tb.insert(name, oid, pygit2.enums.FileMode.TREE)
            elif change is None:
                if existing is not None:
                    tb.remove(name)
            else:
                assert isinstance(change, bytes)
                tb.insert(name, repo.create_blob(change), pygit2.enums.FileMode.BLOB)
        if len(tb) == 0:
            return None
        return tb.write()

    oid = write(base, nested)
    return oid if oid is not None else repo.TreeBuilder().write()
