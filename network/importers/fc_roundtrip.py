"""The import's round trip, checked without Lean (issue 28; D-9, D-10).

For every declaration a landed file holds, the landed text's code tokens (comments and
whitespace aside) equal the source declaration's, plus only the preamble it needs: both
files are read with the same token reader (:mod:`network.gate.screens.lean_commands`), and
for each landed declaration the check compares, with the source declaration of the same
name,

- its scoped prefix (``open … in``, ``variable … in``, …), token for token;
- its attributes, less the Formal Conjectures bookkeeping the import records instead
  (``category``, ``AMS``, ``formal_proof``, ``conditional formal_proof``);
- its modifiers (a definitions module may drop ``private``: its definitions are read by
  another module) and the rest of its tokens; a statement may have its upstream proof
  replaced by ``:= by sorry`` and nothing else (its signature stays token for token);
- the scopes it sits in (each ``namespace``/``section`` opened by the same command), and
  the preamble in effect at it (``open``, ``variable``, ``universe``, ``include``,
  ``omit``, ``set_option``, ``attribute``, ``export``), in order, token for token.

The landed file may hold nothing else: its imports are the source's (plus the target's
definitions module), and every other command is a scope, a comment or a preamble command
some landed declaration needs. Any difference is an error, ``import-round-trip-differs``:
the file is not imported.
"""

from __future__ import annotations

from collections.abc import Sequence

from network.errors import LemmataError, define
from network.gate.screens.lean_commands import (
    DECL,
    HEADER,
    PREAMBLE,
    SCOPE,
    Command,
    ReadFile,
    declaration_parts,
    read_commands,
)
from network.gate.screens.lean_lex import Token
from network.importers.fc_project import attribute_entries, effective_preamble
from network.importers.lean_text import SORRY_VALUES

define("import-round-trip-differs", None, 422,
       "A file the import would land does not say what its source says: read back without "
       "Lean, a declaration's tokens, its scoped commands, its scopes or the preamble in "
       "effect at it differ from the source's (comments and whitespace aside), or the file "
       "holds something the source's declarations do not need. Nothing of the source file "
       "is imported.",
       "Report it as an importer bug with the file and the difference; never land the "
       "file by hand without reading it against the source.")

def _texts(tokens: Sequence[Token]) -> list[str]:
    return [t.text for t in tokens]


def _attributes(cmd: Command) -> list[list[str]]:
    return [_texts(e) for e in attribute_entries(cmd)]


def _decl_tokens(cmd: Command) -> tuple[list[str], list[str]]:
    """(modifiers, the rest) of a declaration's code tokens."""
    n = len(cmd.modifiers)
    return _texts(cmd.tokens[:n]), _texts(cmd.tokens[n:])


def _scope_key(cmds: Sequence[Command], cmd: Command) -> list[tuple[str, str, list[str]]]:
    """The scopes open at ``cmd``: kind, name and the tokens of the command that opened
    each."""
    openers = {f: c for c in cmds for f in c.opens}
    return [(f.kind, f.name, _texts(openers[f].tokens) if f in openers else [])
            for f in cmd.frames]


def _preamble_key(cmds: Sequence[Command], cmd: Command) -> list[list[str]]:
    return [_texts([t for c in [*p.scoped, p] for t in c.tokens])
            for p in effective_preamble(cmds, cmd)]


def _match(source: ReadFile, landed: Command) -> Command | None:
    """The source declaration a landed one comes from: the same full name, or for an
    anonymous one the same kind and the same tokens."""
    for c in source.commands:
        if c.cls != DECL or c.kind != landed.kind:
            continue
        if landed.name is not None and c.name is not None and c.full_name == landed.full_name:
            return c
        if landed.name is None and c.name is None and \
                _decl_tokens(c)[1] == _decl_tokens(landed)[1]:
            return c
    return None


def _body_differs(src: Command, src_text: str, got: Command, got_text: str,
                  proof_dropped_ok: bool) -> str | None:
    """Why the landed declaration's tokens (modifiers aside) differ from the source's, or
    None."""
    want, have = _decl_tokens(src)[1], _decl_tokens(got)[1]
    if want == have:
        return None
    if proof_dropped_ok and src.kind in ("theorem", "lemma"):
        stub = next((v for v in SORRY_VALUES if want[-len(v):] == v), None)
        if stub is not None:
            # the source's proof is itself a sorry: compare everything before it, found by
            # its tokens alone, never by the split both sides share (issue 28: a split
            # that took a `let`'s `:=` for the proof's agreed with itself)
            if want[:-len(stub)] == have[:-3] and have[-3:] == [":=", "by", "sorry"]:
                return None
            return ("its statement differs from the source's before the proof: source "
                    f"{' '.join(want[-len(stub) - 6:-len(stub)])!r}, landed "
                    f"{' '.join(have[-9:-3])!r}")
        sp, gp = declaration_parts(src, src_text), declaration_parts(got, got_text)
        n_src, n_got = len(src.modifiers), len(got.modifiers)
        sig_src = _texts(src.tokens[n_src:sp.body])
        sig_got = _texts(got.tokens[n_got:gp.body])
        if sig_src == sig_got and _texts(got.tokens[gp.body:]) == [":=", "by", "sorry"]:
            return None
    k = next((j for j, (a, b) in enumerate(zip(want, have, strict=False)) if a != b),
             min(len(want), len(have)))
    return (f"its tokens differ from the source's at token {k}: source "
            f"{' '.join(want[k:k + 6])!r}, landed {' '.join(have[k:k + 6])!r}")


def round_trip_differences(source_text: str, landed_text: str, *,
                           defs_import: str | None = None, proof_dropped_ok: bool = False,
                           private_dropped_ok: bool = False) -> list[str]:
    """Every difference between a landed Lean file and the source file it was cut from.

    Args:
        source_text: the registry file's text.
        landed_text: a landed file's text (a Statement.lean or a definitions module).
        defs_import: the one ``import`` line the landed file may add (the target's
            definitions module), or None.
        proof_dropped_ok: a theorem's upstream proof may be ``:= by sorry`` (a
            Statement.lean).
        private_dropped_ok: a declaration may drop ``private`` (a definitions module).

    Returns:
        One sentence per difference; ``[]`` when the landed file says exactly what the
        source says.

    Implements D-9's fidelity check for D-10 imports (issue 28).
    """
    try:
        source = read_commands(source_text)
        landed = read_commands(landed_text)
    except LemmataError as exc:
        return [f"unreadable: {exc.detail}"]
    out: list[str] = []
    src_imports = [_texts(c.tokens) for c in source.commands if c.cls == HEADER]
    for c in landed.commands:
        if c.cls == HEADER and _texts(c.tokens) not in src_imports and not (
                defs_import and _texts(c.tokens)[:1] == ["import"]
                and "".join(_texts(c.tokens)[1:]) == defs_import):
            out.append(f"line {c.line}: `{c.text}` is not an import of the source")
    decls = [c for c in landed.commands if c.cls == DECL]
    if not decls:
        out.append("it lands no declaration")
    for got in decls:
        src = _match(source, got)
        where = f"line {got.line}: {got.full_name}"
        if src is None:
            out.append(f"{where} is not a declaration of the source")
            continue
        if [_texts(p.tokens) for p in got.scoped] != [_texts(p.tokens) for p in src.scoped]:
            out.append(f"{where}: its scoped commands (`… in`) differ from the source's")
        if _attributes(got) != _attributes(src):
            out.append(f"{where}: its attributes differ from the source's")
        mods_src, mods_got = _decl_tokens(src)[0], _decl_tokens(got)[0]
        if mods_got != mods_src and not (
                private_dropped_ok and mods_got == [m for m in mods_src if m != "private"]):
            out.append(f"{where}: its modifiers {mods_got} differ from the source's {mods_src}")
        why = _body_differs(src, source_text, got, landed_text, proof_dropped_ok)
        if why:
            out.append(f"{where}: {why}")
        if _scope_key(landed.commands, got) != _scope_key(source.commands, src):
            out.append(f"{where}: the scopes it sits in differ from the source's")
        if _preamble_key(landed.commands, got) != _preamble_key(source.commands, src):
            out.append(f"{where}: the preamble in effect at it differs from the source's")
    for c in landed.commands:
        if c.cls in (HEADER, DECL, "comment") or (c.cls == SCOPE and c.kind != "mutual"):
            continue
        if c.in_scoped and any(c in d.scoped for d in decls):
            continue
        if c.cls == PREAMBLE and not c.in_scoped and any(
                c in effective_preamble(landed.commands, d) for d in decls):
            continue
        out.append(f"line {c.line}: `{' '.join(c.masked.split())[:60]}` is not needed by "
                   "the landed declarations")
    return out
