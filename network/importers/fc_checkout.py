"""A Formal Conjectures checkout as the importer reads it (D-10; Foundation ruling 13):
the repository at its HEAD commit (never its work tree, so the recorded commit is exactly
what was imported), the collection folder a run imports, and its ``.lean`` files with the
target ids their paths give (``erdos-<N>``, ``<collection>-<path>``) and the limits on
them. :mod:`network.importers.formal_conjectures` plans the import and re-exports every
public name here.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path

import pygit2

from network.errors import LemmataError
from network.importers.fc_naming import _cap_id, _slug

FC_REPOSITORY = "https://github.com/google-deepmind/formal-conjectures"
ERDOS_DIR = "FormalConjectures/ErdosProblems"
_PROBLEM_ID_RE = re.compile(r"[0-9]{1,6}")
#: a file or folder name of a collection: the graph layout's portable segment
#: (``network.record.read.source.check_graph_path``: no leading dot, no ``..``), dots included,
#: so arXiv-id folders such as ``0911.2077`` are read (issue 28)
_SAFE_NAME_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
_SAFE_FOLDER_RE = _SAFE_NAME_RE
MAX_LEAN_BYTES = 1_000_000
MAX_FILES = 20_000


# --- the checkout ----------------------------------------------------------------------


@dataclass
class Checkout:
    """A Formal Conjectures–style git checkout, read at its HEAD commit.

    Attributes:
        repo: the pygit2 repository.
        commit: HEAD's commit id, 40 hex.
        date: HEAD's committer date, ``YYYY-MM-DD`` (UTC): the import's ``listed`` date.
        tree: the tree of the checkout's folder at HEAD.
        repository: the https URL recorded as provenance and lake package URL.
    """

    repo: pygit2.Repository
    commit: str
    date: str
    tree: pygit2.Tree
    repository: str

    def entry(self, path: str) -> pygit2.Object | None:
        """The object at ``path`` (a tree or blob), or None."""
        try:
            return self.repo.get(self.tree[path].id)
        except KeyError:
            return None

    def read(self, path: str) -> bytes | None:
        """A file's bytes at HEAD, or None when absent.

        Raises:
            LemmataError: ``import-hostile-path`` when the path is a symbolic link or a
                submodule; ``file-too-large`` past :data:`MAX_LEAN_BYTES`.
        """
        try:
            ent = self.tree[path]
        except KeyError:
            return None
        if ent.filemode in (pygit2.enums.FileMode.LINK, pygit2.enums.FileMode.COMMIT):
            raise LemmataError("import-hostile-path", "a symbolic link or submodule", path=path)
        blob = self.repo.get(ent.id)
        if not isinstance(blob, pygit2.Blob):
            return None
        if blob.size > MAX_LEAN_BYTES:
            raise LemmataError("file-too-large", f"{blob.size} bytes", path=path)
        return bytes(blob.data)


def open_checkout(path: str | Path, repository: str | None = None) -> Checkout:
    """Open a checkout and resolve its HEAD commit (provenance, D-10).

    Args:
        path: the checkout's root folder (or a folder of it holding FormalConjectures/).
        repository: the https URL to record; default: the ``origin`` remote when it is an
            https URL, else :data:`FC_REPOSITORY`.

    Raises:
        LemmataError: ``import-source-invalid`` when ``path`` is not inside a git
            repository with a commit.
    """
    p = Path(path)
    found = pygit2.discover_repository(str(p)) if p.is_dir() else None
    if found is None:
        raise LemmataError("import-source-invalid", f"{p} is not inside a git checkout")
    repo = pygit2.Repository(found)
    try:
        head = repo.head.peel(pygit2.Commit)
    except (pygit2.GitError, KeyError, ValueError) as exc:
        raise LemmataError("import-source-invalid", f"{p} has no HEAD commit: {exc}") from exc
    tree = head.tree
    if repo.workdir is not None:
        rel = p.resolve().relative_to(Path(repo.workdir).resolve()).as_posix()
        if rel != ".":
            sub = repo.get(tree[rel].id) if rel in tree else None
            if not isinstance(sub, pygit2.Tree):
                raise LemmataError("import-source-invalid", f"{rel} is not committed at HEAD")
            tree = sub
    url = repository or _origin_url(repo) or FC_REPOSITORY
    if not re.fullmatch(r"https://[A-Za-z0-9.-]+(/[A-Za-z0-9_.-]+)+", url):
        raise LemmataError("import-source-invalid", f"repository URL {url!r} is not plain https")
    date = dt.datetime.fromtimestamp(head.commit_time, dt.UTC).strftime("%Y-%m-%d")
    return Checkout(repo, str(head.id), date, tree, url)


def _origin_url(repo: pygit2.Repository) -> str | None:
    try:
        url = repo.remotes["origin"].url or ""
    except (KeyError, ValueError):
        return None
    url = url.removesuffix(".git")
    return url if url.startswith("https://") else None


@dataclass(frozen=True)
class Collection:
    """The folder of the checkout a run imports.

    Attributes:
        folder: the folder's path in the checkout (``FormalConjectures/Wikipedia``).
        erdos: whether it is the Erdős collection (``<N>.lean`` files, ``erdos-N`` ids,
            erdosproblems.com links).
        prefix: the first segment of every target id (``erdos``, ``wikipedia``).
    """

    folder: str
    erdos: bool
    prefix: str


def collection_of(co: Checkout, folder: str | None) -> Collection:
    """Check and resolve ``--collection`` (a folder relative to the checkout's root).

    Raises:
        LemmataError: ``import-hostile-path`` for an absolute path, ``..``, an empty or
            non-portable segment (a portable one may hold dots: ``Arxiv/0911.2077``);
            ``import-source-invalid`` when HEAD has no such folder.
    """
    folder = ERDOS_DIR if folder is None else folder
    segs = folder.strip("/").split("/") if not folder.startswith("/") else [""]
    if not segs or any(not _SAFE_FOLDER_RE.fullmatch(s) or ".." in s for s in segs) or \
            len(folder) > 300:
        raise LemmataError("import-hostile-path", "a collection is a relative folder of plain "
                           "portable names", path=repr(folder)[:300])
    folder = "/".join(segs)
    if not isinstance(co.entry(folder), pygit2.Tree):
        raise LemmataError("import-source-invalid", f"no {folder}/ folder at HEAD {co.commit}")
    erdos = folder == ERDOS_DIR
    return Collection(folder, erdos, "erdos" if erdos else _slug(segs[-1]))


@dataclass
class SourceFile:
    """One file of the collection, as listed before it is read.

    Attributes:
        path: the file's path in the checkout.
        stem: its path relative to the collection without ``.lean`` (``242``, ``Sub/Foo``).
        number: the Erdős problem number, or None outside the Erdős collection.
        base_id: the id of the file's main target (``erdos-242``, ``wikipedia-goldbach``).
        refused: ``(catalog code, detail)`` when the file is not read at all.
    """

    path: str
    stem: str
    number: str | None
    base_id: str
    refused: tuple[str, str] | None = None


def problem_files(co: Checkout, problems: list[str] | None,
                  collection: Collection | None = None) -> list[SourceFile]:
    """The files of a collection to import, in a fixed order (Erdős: numeric).

    Args:
        co: the checkout.
        problems: file stems to import (Erdős: plain numbers), or None for every file.
        collection: the collection (default: the Erdős collection).

    Returns:
        One :class:`SourceFile` per ``.lean`` file; an entry that is a link, a submodule or
        not a portable name is listed with ``refused`` set and is never read.

    Raises:
        LemmataError: ``import-hostile-path`` for a ``problems`` entry that is not a plain
            name; ``import-problem-not-found`` for one with no file.
    """
    coll = collection or collection_of(co, None)
    listed: list[SourceFile] = []
    _walk(co, coll, coll.folder, "", listed)
    if len(listed) > MAX_FILES:
        raise LemmataError("import-source-invalid", f"more than {MAX_FILES} files")
    if coll.erdos:
        listed.sort(key=lambda f: (f.number is None, int(f.number or 0), f.path))
    else:
        listed.sort(key=lambda f: f.path)
    if problems is None:
        return listed
    by_stem = {f.stem: f for f in listed if f.refused is None}
    chosen: list[SourceFile] = []
    for pid in problems:
        ok = (_PROBLEM_ID_RE.fullmatch(pid) if coll.erdos else
              all(_SAFE_NAME_RE.fullmatch(s) and ".." not in s for s in pid.split("/")))
        if not ok:
            raise LemmataError("import-hostile-path", f"problem id {pid!r} is not a plain name")
        if pid not in by_stem:
            raise LemmataError("import-problem-not-found", f"no {coll.folder}/{pid}.lean")
        chosen.append(by_stem[pid])
    return chosen


def _walk(co: Checkout, coll: Collection, folder: str, rel: str,
          out: list[SourceFile]) -> None:
    tree = co.entry(folder)
    assert isinstance(tree, pygit2.Tree)
    for ent in tree:
        name = ent.name or ""
        path = f"{folder}/{name}"
        safe = bool(_SAFE_NAME_RE.fullmatch(name)) and ".." not in name
        if ent.filemode == pygit2.enums.FileMode.TREE:
            if coll.erdos:
                continue  # the Erdős collection is flat: <N>.lean
            if not (safe and _SAFE_FOLDER_RE.fullmatch(name)):
                out.append(SourceFile(f"{folder}/{name!r}"[:400], name[:100], None, "",
                                      ("import-hostile-path",
                                       "a folder whose name is not portable; not read")))
                continue
            _walk(co, coll, path, f"{rel}{name}/", out)
            continue
        if not name.endswith(".lean") and safe:
            continue  # README, data: not Lean
        stem = f"{rel}{name.removesuffix('.lean')}"
        if not safe:
            out.append(SourceFile(f"{folder}/{name!r}"[:400], stem[:100], None, "",
                                  ("import-hostile-path", "not a plain portable name; not read")))
            continue
        if ent.filemode in (pygit2.enums.FileMode.LINK, pygit2.enums.FileMode.COMMIT):
            out.append(SourceFile(path, stem, None, "",
                                  ("import-hostile-path", "a symbolic link or submodule; not read")))
            continue
        if coll.erdos:
            mt = re.fullmatch(r"([0-9]{1,6})\.lean", name)
            if mt is None:
                out.append(SourceFile(path, stem, None, "",
                                      ("import-problem-not-found",
                                       "not an Erdős problem file <N>.lean; not read")))
                continue
            out.append(SourceFile(path, stem, mt.group(1), f"erdos-{mt.group(1)}"))
        else:
            out.append(SourceFile(path, stem, None,
                                  _cap_id(f"{coll.prefix}-{_slug(stem)}", stem)))
