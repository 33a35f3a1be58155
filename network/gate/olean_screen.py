"""The carried olean screened as data (issue 32, D-4 step 4, v3.27).

The checkers import a contributor's compiled module without its extension states
(``Common.lean``'s ``loadExts := false``), so no entry it holds is evaluated. This screen is
the defence in depth beside that rule: a compiled module, built in the build sandbox or
carried as a GitHub artifact, may hold environment-extension entries its source never spelled
(a macro, elaborator, delaborator, unexpander, parser, simproc, initializer,
``implemented_by``/``extern``/``csimp`` entry, compiled code, ...). Before any checker
imports a carried module, ``OleanEntries.lean`` reads its compiled files as data with Lean's
own reader and lists every extension holding an entry outside :data:`INERT_EXTENSIONS`; any
such extension refuses the module with ``olean-extension-entry``. A report that is missing,
malformed or unbound is a refusal too, never a pass; without Lean it is ``toolchain-missing``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from network.errors import define
from network.gate.result import Diagnostic, StepResult
from network.gate.sandbox import SandboxRunner
from network.gate.toolchain import Toolchain
from network.gate.workspace import Workspace
from network.record.models import Caps

define("olean-extension-entry", 4, 422,
       "A carried compiled module (.olean) holds environment-extension entries outside the "
       "gate's inert set (e.g. a macro, elaborator, delaborator, parser, simproc, "
       "initializer, implemented_by/extern/csimp entry or compiled code), which its "
       "checked source does not account for; it is refused before any checker imports it "
       "(issue 32).",
       "Submit the Lean source only and let the gate build it: plain theorems, lemmas and "
       "definitions that register no syntax, printer, code or attribute outside the inert "
       "list. If the module was built from that source alone, report it with the log.")

#: The extensions whose entries are data that importing a module never evaluates as code
#: (the name a module's ``ModuleData.entries`` pairs with them → where Lean defines it).
#: Only what honest statement, proof and definition modules are known to write (D-4 v3.27,
#: issue 32). A ``MapDeclarationExtension``/``TagDeclarationExtension`` and a
#: ``registerSimplePersistentEnvExtension``/scoped extension without an explicit ``name``
#: take their declaration's full name (``name : Name := by exact decl_name%``,
#: lean4 src/Lean/EnvExtension.lean and src/Lean/Environment.lean). Nothing that holds
#: code, a parser, a printer, an elaborator, a simproc or an initializer is here; compiled
#: code (the IR and LCNF extensions) is not here either.
INERT_EXTENSIONS: Mapping[str, str] = {
    # the source range of each declaration, read by the server and by error messages:
    # `builtin_initialize declRangeExt : MapDeclarationExtension DeclarationRanges`
    "Lean.declRangeExt": "leanprover/lean4: src/Lean/DeclarationRange.lean",
    # doc strings, text only: `builtin_initialize docStringExt : MapDeclarationExtension String`
    "Lean.docStringExt": "leanprover/lean4: src/Lean/DocString/Extension.lean",
    # the namespaces a module's declarations open (`Demo` of `Demo.aux`), names only:
    # `builtin_initialize namespacesExt : SimplePersistentEnvExtension Name NameSSet`
    "Lean.namespacesExt": "leanprover/lean4: src/Lean/Namespace.lean",
    # `protected` tags, names only: `builtin_initialize protectedExt : TagDeclarationExtension`
    "Lean.protectedExt": "leanprover/lean4: src/Lean/Modifiers.lean",
    # instance entries (keys and priority of an `instance`), data the discrimination tree
    # folds: `builtin_initialize instanceExtension : SimpleScopedEnvExtension InstanceEntry
    # Instances`
    "Lean.Meta.instanceExtension": "leanprover/lean4: src/Lean/Meta/Instances.lean",
    # the MatcherInfo of each `match` auxiliary (`mkMatcherAuxDefinition` → `addMatcherInfo`),
    # numbers and names only: `Lean.Meta.Match.Extension.extension`
    "Lean.Meta.Match.Extension.extension": "leanprover/lean4: src/Lean/Meta/Match/MatcherInfo.lean",
    # the `@[inline]` hint every matcher gets (`setInlineAttribute`), an enum value per
    # name: `builtin_initialize inlineAttrs : EnumAttributes InlineAttributeKind`
    "Lean.Compiler.inlineAttrs": "leanprover/lean4: src/Lean/Compiler/InlineAttrs.lean",
}


@dataclass(frozen=True)
class ExtensionEntries:
    """One extension of one carried module holding entries outside the inert set.

    Attributes:
        module: the module name, e.g. ``Lemmata.demo.mid.Proof``.
        extension: the extension's name as the olean pairs it with its entries.
        entries: how many entries it holds (the largest count over the module's parts).
    """

    module: str
    extension: str
    entries: int


@dataclass(frozen=True)
class OleanScreenResult:
    """What the screen found (issue 32).

    Attributes:
        ok: True only when a bound report was read for every module and no extension
            outside the inert set holds an entry.
        code: None, ``olean-extension-entry``, or the reason no report was read
            (``checker-output-unbound``, ``checker-output-malformed``,
            ``checker-failed``, ``toolchain-missing``, ...).
        modules: the modules screened.
        outside: every extension outside the inert set that holds entries.
        detail: a sentence for the reader.
    """

    ok: bool
    code: str | None
    modules: tuple[str, ...]
    outside: tuple[ExtensionEntries, ...] = ()
    detail: str = ""


def _malformed(modules: tuple[str, ...], why: str) -> OleanScreenResult:
    return OleanScreenResult(False, "checker-output-malformed", modules,
                             detail=f"OleanEntries report: {why}")


def screen_from_report(report: dict[str, Any] | tuple[str, str], modules: Sequence[str],
                       inert: Mapping[str, str] = INERT_EXTENSIONS) -> OleanScreenResult:
    """Read an OleanEntries answer into the screen's verdict (fail closed).

    Args:
        report: the bound report (a JSON object) or ``(code, detail)`` from
            :meth:`~network.gate.toolchain.Toolchain.olean_entries`.
        modules: the modules asked about, in request order.
        inert: the inert set the request named; a listed extension in it is not held
            against the module (the checker filters it already).

    Returns:
        An :class:`OleanScreenResult`: ``(code, detail)`` keeps its code; a report that does
        not answer exactly the modules asked, in order, with well-formed rows is
        ``checker-output-malformed``; any listed extension outside ``inert`` is
        ``olean-extension-entry``. Never ok without a report.

    Implements issue 32's olean screen (D-4 step 4, v3.27).
    """
    mods = tuple(modules)
    if isinstance(report, tuple):
        code, detail = report
        return OleanScreenResult(False, code or "checker-failed", mods, detail=detail)
    if report.get("checker") != "OleanEntries" or report.get("version") != 1:
        return _malformed(mods, "not an OleanEntries version 1 report")
    rows = report.get("modules")
    if not isinstance(rows, list) or len(rows) != len(mods):
        return _malformed(mods, f"expected one row per module ({len(mods)})")
    outside: list[ExtensionEntries] = []
    for want, row in zip(mods, rows, strict=True):
        if not isinstance(row, dict) or row.get("module") != want:
            return _malformed(mods, f"expected the row of {want}")
        exts = row.get("outside")
        if not isinstance(exts, list):
            return _malformed(mods, f"{want}: no list of extensions")
        for e in exts:
            name, count = (e.get("name"), e.get("entries")) if isinstance(e, dict) else (None, None)
            if not isinstance(name, str) or not name or isinstance(count, bool) \
                    or not isinstance(count, int) or count < 1:
                return _malformed(mods, f"{want}: a malformed extension row {e!r}")
            if name not in inert:
                outside.append(ExtensionEntries(want, name, count))
    if outside:
        return OleanScreenResult(False, "olean-extension-entry", mods, tuple(outside),
                                 refusal_detail(outside))
    return OleanScreenResult(True, None, mods)


def refusal_detail(outside: Sequence[ExtensionEntries]) -> str:
    """``M holds entries of X (3), Y (1); …``: the modules and extension names refused."""
    by_module: dict[str, list[str]] = {}
    for e in outside:
        by_module.setdefault(e.module, []).append(f"{e.extension} ({e.entries})")
    return "; ".join(f"{m} holds entries of {', '.join(exts)} outside the inert set"
                     for m, exts in by_module.items())


def screen_carried(tc: Toolchain, workspace: Workspace, modules: Sequence[str],
                   sandbox: SandboxRunner, caps: Caps) -> StepResult | None:
    """Step 4's screen of the carried ``modules`` in check ``workspace``, before any checker
    imports them (issue 32, D-4 v3.27): None when every module passes, else the step-4
    refusal carrying the screen's code (``olean-extension-entry`` naming the modules and
    extensions, or why no report was read).

    Raises:
        ValueError: ``workspace`` is a scratch workspace (from the toolchain).
    """
    if not modules:
        return None
    inert = sorted(INERT_EXTENSIONS)
    res = screen_from_report(tc.olean_entries(workspace, list(modules), inert, sandbox, caps),
                             modules)
    if res.ok:
        return None
    return StepResult.refused(4, [Diagnostic(res.code or "checker-failed",
                                             res.detail or "the olean screen did not pass",
                                             None)])
