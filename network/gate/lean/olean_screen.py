"""The carried olean screened as data (issue 32, D-4 step 4, v3.27).

The checkers import a contributor's compiled module without its extension states
(``Common.lean``'s ``loadExts := false``), so no entry it holds is evaluated. This screen is
the defence in depth beside that rule: a compiled module, built in the build sandbox or
carried as a GitHub artifact, may hold environment-extension entries its source never spelled
(a macro, elaborator, delaborator, unexpander, parser, simproc, initializer,
``implemented_by``/``extern``/``csimp`` entry, ...). Before any checker imports a carried
module, ``OleanEntries.lean`` reads its compiled files as data with Lean's own reader and
lists every extension holding an entry outside :data:`INERT_EXTENSIONS`; any such extension
refuses the module with ``olean-extension-entry``. A report that is missing, malformed or
unbound is a refusal too, never a pass; without Lean it is ``toolchain-missing``.

The inert set is what honest theorem, definition, instance, structure, class, inductive and
``simp``-lemma modules write on the pinned toolchains (v4.27 … v4.34), each name read in
Lean's source: data such as declaration ranges, reducibility, structure and equation
information, ``simp``/``ext`` lemma entries, and the compiled code (IR and LCNF) of the
module's own definitions. Compiled code is admitted because an import with
``loadExts := false`` never runs it and any proof that could make it run reaches
``Lean.reduceBool``/``Lean.reduceNat``, which the checkers and step 5 refuse (see
:data:`INERT_EXTENSIONS`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from network.errors import define
from network.gate.lean.toolchain import Toolchain
from network.gate.result import Diagnostic, StepResult
from network.gate.sandbox.sandbox import SandboxRunner
from network.gate.sandbox.workspace import Workspace
from network.record.models import Caps

define("olean-extension-entry", 4, 422,
       "A carried compiled module (.olean) holds environment-extension entries outside the "
       "gate's inert set (e.g. a macro, elaborator, delaborator, parser, simproc, "
       "initializer or implemented_by/extern/csimp entry), which its checked source does "
       "not account for; it is refused before any checker imports it (issue 32).",
       "Submit the Lean source only and let the gate build it: plain theorems, lemmas and "
       "definitions that register no syntax, printer, code or attribute outside the inert "
       "list. If the module was built from that source alone, report it with the log.")

#: The extensions whose entries are data that importing a module never evaluates as code
#: (the name a module's ``ModuleData.entries`` pairs with them → where Lean defines it).
#: Only what honest statement, proof and definition modules are known to write (D-4 v3.27,
#: issue 32): theorems and lemmas (``rfl`` ones are tagged ``@[defeq]``), computable,
#: ``noncomputable``, ``abbrev``, structurally, well-founded and ``partial_fixpoint``
#: recursive ``def``s, ``instance``s, ``structure``s, ``class``es, ``inductive``s (their
#: ``casesOn``/``noConfusion``/``ctorIdx``/``ctor.elim`` and ``SizeOf`` constructions),
#: ``@[simp]``/``@[ext]``/``@[match_pattern]``/``@[deprecated]`` lemmas and module docs.
#:
#: How a name is read off the source: a ``MapDeclarationExtension``/``TagDeclarationExtension``
#: and a ``registerSimplePersistentEnvExtension``/``registerPersistentEnvExtension``/scoped
#: extension without an explicit ``name`` take their declaration's full name (``name : Name
#: := by exact decl_name%``, lean4 src/Lean/EnvExtension.lean and src/Lean/Environment.lean);
#: ``registerTagAttribute``/``registerParametricAttribute`` name theirs by ``ref`` (default
#: ``decl_name%``, src/Lean/Attributes.lean), and ``registerSimpAttr`` its scoped extension
#: by the same ``ref`` (src/Lean/Meta/Tactic/Simp/Attr.lean). ``builtin_initialize x`` sets
#: ``decl_name%`` to the current namespace ++ ``x``; a ``private builtin_initialize``/``private
#: initialize`` is named ``_private.<Module>.0.<Namespace>.x`` by the newer ``initialize``
#: elaborator (``mkPrivateName``, src/Lean/Elab/Declaration.lean; lean4's
#: stage0/stdlib/Lean/AuxRecursor.c and stage0/stdlib/Lean/Compiler/ModPkgExt.c spell them
#: so) and ``<Namespace>.x`` by the older macro (``with_decl_name% ?x``), so both spellings
#: are listed. A spelling no extension of the pinned toolchain carries is harmless: an import
#: hands an extension only the entries filed under its own name.
#:
#: Compiled code is admitted (the IR and LCNF extensions, their specialisation and
#: dead-branch data): a computable ``def`` cannot be written without it. An import with
#: ``loadExts := false`` keeps it as data and never runs it; it could run only if a term
#: reached ``Lean.reduceBool``/``Lean.reduceNat`` (what ``native_decide`` elaborates to).
#: Every checker that reduces contributor terms refuses such a term before any reduction
#: (``requireNoNativeReduction``, Common.lean), and such a proof's axioms
#: (``Lean.ofReduceBool``, ``Lean.ofReduceNat``, ``Lean.trustCompiler``, a ``_native``
#: axiom) are refused at step 5 unless a ``native_decide`` waiver names them
#: (network/gate/lean/axioms.py). Nothing that registers or holds a parser, syntax, notation,
#: macro, elaborator, delaborator, unexpander, tactic, simproc or initializer is here, nor
#: an ``implemented_by``, ``extern``, ``export`` or ``csimp`` entry: those change what a
#: later import, elaboration or build runs.
#:
#: A name with a numeric component (the ``0`` of a private name) cannot be sent to
#: ``OleanEntries.lean`` as a string component, so the checker lists it and
#: :func:`screen_from_report` drops it here by its printed form.
INERT_EXTENSIONS: Mapping[str, str] = {
    # --- declarations, names and documentation ---
    # the source range of each declaration, read by the server and by error messages:
    # `builtin_initialize declRangeExt : MapDeclarationExtension DeclarationRanges`
    "Lean.declRangeExt": "leanprover/lean4: src/Lean/DeclarationRange.lean",
    # doc strings, text only: `builtin_initialize docStringExt : MapDeclarationExtension String`
    "Lean.docStringExt": "leanprover/lean4: src/Lean/DocString/Extension.lean",
    # `/-! … -/` module docs, text and a source range each: `private builtin_initialize
    # moduleDocExt : SimplePersistentEnvExtension ModuleDoc (PersistentArray ModuleDoc)`
    # (the older `initialize` macro's spelling)
    "Lean.moduleDocExt": "leanprover/lean4: src/Lean/DocString/Extension.lean",
    # the same `private builtin_initialize moduleDocExt` as the newer `initialize` names it
    "_private.Lean.DocString.Extension.0.Lean.moduleDocExt":
        "leanprover/lean4: src/Lean/DocString/Extension.lean",
    # the namespaces a module's declarations open (`Demo` of `Demo.aux`), names only:
    # `builtin_initialize namespacesExt : SimplePersistentEnvExtension Name NameSSet`
    "Lean.namespacesExt": "leanprover/lean4: src/Lean/Namespace.lean",
    # `protected` tags, names only: `builtin_initialize protectedExt : TagDeclarationExtension`
    "Lean.protectedExt": "leanprover/lean4: src/Lean/Modifiers.lean",
    # names hidden from completion (auxiliary `match_`/`casesOn`/`ctorElim` declarations):
    # `builtin_initialize completionBlackListExt : TagDeclarationExtension`
    "Lean.Meta.completionBlackListExt": "leanprover/lean4: src/Lean/Meta/CompletionName.lean",
    # `@[deprecated]` data (new name, text, since) per name: `builtin_initialize
    # deprecatedAttr : ParametricAttribute DeprecationEntry ← registerParametricAttribute`
    "Lean.Linter.deprecatedAttr": "leanprover/lean4: src/Lean/Linter/Deprecated.lean",
    # --- written by every module ---
    # one entry per module, the module's package (an `Option PkgId`) for symbol names:
    # `private initialize modPkgExt : ModuleEnvExtension (Option PkgId)` (older spelling)
    "Lean.modPkgExt": "leanprover/lean4: src/Lean/Compiler/ModPkgExt.lean",
    # the same `private initialize modPkgExt`, as the newer `initialize` and stage0 name it
    "_private.Lean.Compiler.ModPkgExt.0.Lean.modPkgExt":
        "leanprover/lean4: src/Lean/Compiler/ModPkgExt.lean",
    # one entry per module, `none` or a deprecation message and date (strings):
    # `builtin_initialize deprecatedModuleExt : ModuleEnvExtension <| Option …`
    "Lean.deprecatedModuleExt": "leanprover/lean4: src/Lean/DeprecatedModule.lean",
    # import dependencies recorded for `shake` (module name and two flags):
    # `builtin_initialize extraModUses : SimplePersistentEnvExtension ExtraModUse …`
    "Lean.extraModUses": "leanprover/lean4: src/Lean/ExtraModUses.lean",
    # (attribute kind string, declaration name) pairs for `shake`: `public builtin_initialize
    # indirectModUseExt : SimplePersistentEnvExtension IndirectModUse …`
    "Lean.indirectModUseExt": "leanprover/lean4: src/Lean/ExtraModUses.lean",
    # --- definitions, reducibility and recursion ---
    # reducibility of the module's own definitions (`abbrev`, `instance`, `@[reducible]`,
    # well-founded `def`s are irreducible), an enum per name: `builtin_initialize
    # reducibilityCoreExt … ← registerPersistentEnvExtension { name := `reducibilityCore …`
    "reducibilityCore": "leanprover/lean4: src/Lean/ReducibilityAttrs.lean",
    # the same status set on imported or scoped names: `builtin_initialize
    # reducibilityExtraExt … ← registerSimpleScopedEnvExtension { name := `reducibilityExtra`
    "reducibilityExtra": "leanprover/lean4: src/Lean/ReducibilityAttrs.lean",
    # `noncomputable` tags, names only: `builtin_initialize noncomputableExt :
    # TagDeclarationExtension ← mkTagDeclarationExtension`
    "Lean.noncomputableExt": "leanprover/lean4: src/Lean/Compiler/NoncomputableAttr.lean",
    # which definitions are recursive, names only: `builtin_initialize recExt :
    # TagDeclarationExtension ← mkTagDeclarationExtension `recExt`
    "recExt": "leanprover/lean4: src/Lean/Meta/RecExt.lean",
    # equation information (types, values, argument positions) of structural recursion:
    # `builtin_initialize eqnInfoExt : MapDeclarationExtension EqnInfo` in `Structural`
    "Lean.Elab.Structural.eqnInfoExt":
        "leanprover/lean4: src/Lean/Elab/PreDefinition/Structural/Eqns.lean",
    # the same for well-founded recursion: `builtin_initialize eqnInfoExt :
    # MapDeclarationExtension EqnInfo ← mkMapDeclarationExtension` in `Lean.Elab.WF`
    "Lean.Elab.WF.eqnInfoExt": "leanprover/lean4: src/Lean/Elab/PreDefinition/WF/Eqns.lean",
    # the same for `partial_fixpoint`: `public builtin_initialize eqnInfoExt :
    # MapDeclarationExtension EqnInfo` in `Lean.Elab.PartialFixpoint`
    "Lean.Elab.PartialFixpoint.eqnInfoExt":
        "leanprover/lean4: src/Lean/Elab/PreDefinition/PartialFixpoint/Eqns.lean",
    # how a function's arguments map to its `.induct`/`.fun_cases` theorem (names, flags):
    # `builtin_initialize funIndInfoExt : MapDeclarationExtension FunIndInfo`
    "Lean.Meta.funIndInfoExt": "leanprover/lean4: src/Lean/Meta/Tactic/FunIndInfo.lean",
    # the MatcherInfo of each `match` auxiliary (`mkMatcherAuxDefinition` → `addMatcherInfo`),
    # numbers and names only: `builtin_initialize extension : SimplePersistentEnvExtension
    # Entry State` in `namespace Extension` of `Lean.Meta.Match`
    "Lean.Meta.Match.Extension.extension": "leanprover/lean4: src/Lean/Meta/Match/MatcherInfo.lean",
    # the `@[inline]` hint every matcher gets (`setInlineAttribute`), an enum value per
    # name: `builtin_initialize inlineAttrs : EnumAttributes InlineAttributeKind`
    "Lean.Compiler.inlineAttrs": "leanprover/lean4: src/Lean/Compiler/InlineAttrs.lean",
    # `@[match_pattern]` tags, names only: `builtin_initialize matchPatternAttr : TagAttribute
    # ← registerTagAttribute `match_pattern` (in `namespace Lean`)
    "Lean.matchPatternAttr": "leanprover/lean4: src/Lean/Meta/Match/MatchPatternAttr.lean",
    # --- inductive types, structures and classes ---
    # `casesOn`/`recOn`/`brecOn`/`below`/`ctorElim` tags, names only: `builtin_initialize
    # auxRecExt : TagDeclarationExtension ← mkTagDeclarationExtension`
    "Lean.auxRecExt": "leanprover/lean4: src/Lean/AuxRecursor.lean",
    # `noConfusion` shape (arities, positions) per name: `builtin_initialize noConfusionExt :
    # MapDeclarationExtension NoConfusionInfo ← mkMapDeclarationExtension`
    "Lean.noConfusionExt": "leanprover/lean4: src/Lean/AuxRecursor.lean",
    # `T.ctor.elim`/sparse `casesOn` tags, names only: `private builtin_initialize
    # sparseCasesOnExt : TagDeclarationExtension` (the older `initialize` macro's spelling)
    "Lean.sparseCasesOnExt": "leanprover/lean4: src/Lean/AuxRecursor.lean",
    # the same `private builtin_initialize sparseCasesOnExt`, as the newer `initialize` and
    # the shipped stage0 C name it
    "_private.Lean.AuxRecursor.0.Lean.sparseCasesOnExt":
        "leanprover/lean4: src/Lean/AuxRecursor.lean",
    # the inductive, arity and constructors of each sparse `casesOn` (`match` on some
    # constructors): `private builtin_initialize sparseCasesOnInfoExt : MapDeclarationExtension
    # SparseCasesOnInfo` in `Lean.Meta` (the older `initialize` macro's spelling)
    "Lean.Meta.sparseCasesOnInfoExt":
        "leanprover/lean4: src/Lean/Meta/Constructions/SparseCasesOn.lean",
    # the same `private builtin_initialize sparseCasesOnInfoExt`, as the newer `initialize`
    # names it
    "_private.Lean.Meta.Constructions.SparseCasesOn.0.Lean.Meta.sparseCasesOnInfoExt":
        "leanprover/lean4: src/Lean/Meta/Constructions/SparseCasesOn.lean",
    # `@[elab_as_elim]` tags that `ctorElim`/`casesOnSameCtor` receive, names only (a hint to
    # the application elaborator, no elaborator of its own): `builtin_initialize elabAsElim :
    # TagAttribute ← registerTagAttribute `elab_as_elim` in `Lean.Elab.Term`
    "Lean.Elab.Term.elabAsElim": "leanprover/lean4: src/Lean/Elab/App.lean",
    # field names, projections and parents of each `structure`/`class`: `builtin_initialize
    # structureExt : PersistentEnvExtension StructureInfo StructureInfo …`
    "Lean.structureExt": "leanprover/lean4: src/Lean/Structure.lean",
    # constructor, parameter count and index of each projection: `builtin_initialize
    # projectionFnInfoExt : MapDeclarationExtension ProjectionFunctionInfo`
    "Lean.projectionFnInfoExt": "leanprover/lean4: src/Lean/ProjFns.lean",
    # each `class` and its `outParam` positions: `builtin_initialize classExtension :
    # SimplePersistentEnvExtension ClassEntry ClassState`
    "Lean.classExtension": "leanprover/lean4: src/Lean/Class.lean",
    # instance entries (keys and priority of an `instance`), data the discrimination tree
    # folds: `builtin_initialize instanceExtension : SimpleScopedEnvExtension InstanceEntry
    # Instances`
    "Lean.Meta.instanceExtension": "leanprover/lean4: src/Lean/Meta/Instances.lean",
    # `@[default_instance]` entries (class, instance, priority): `builtin_initialize
    # defaultInstanceExtension : SimplePersistentEnvExtension DefaultInstanceEntry …`
    "Lean.Meta.defaultInstanceExtension": "leanprover/lean4: src/Lean/Meta/Instances.lean",
    # `@[recursor n]` major-premise positions: `builtin_initialize recursorAttribute :
    # ParametricAttribute Nat ← registerParametricAttribute`
    "Lean.Meta.recursorAttribute": "leanprover/lean4: src/Lean/Meta/RecursorInfo.lean",
    # --- lemmas for `simp`, `dsimp` and `ext` ---
    # `@[simp]` theorems (discrimination-tree keys, proof term, priority) and declarations
    # to unfold: `builtin_initialize simpExtension : SimpExtension ← registerSimpAttr `simp …`
    "Lean.Meta.simpExtension": "leanprover/lean4: src/Lean/Meta/Tactic/Simp/Attr.lean",
    # the same for `@[seval]`: `builtin_initialize sevalSimpExtension : SimpExtension ←
    # registerSimpAttr `seval …`
    "Lean.Meta.sevalSimpExtension": "leanprover/lean4: src/Lean/Meta/Tactic/Simp/Attr.lean",
    # `@[defeq]` tags (every `theorem … := rfl` is tagged), names only: `builtin_initialize
    # defeqAttr : TagAttribute ← registerTagAttribute `defeq`
    "Lean.defeqAttr": "leanprover/lean4: src/Lean/DefEqAttrib.lean",
    # `@[ext]` theorems (name, priority, keys): `builtin_initialize extExtension :
    # SimpleScopedEnvExtension ExtTheorem ExtTheorems` in `Lean.Meta.Ext`
    "Lean.Meta.Ext.extExtension": "leanprover/lean4: src/Lean/Meta/Tactic/Ext.lean",
    # the same `builtin_initialize extExtension` where it lived before, in
    # `Lean.Elab.Tactic.Ext`
    "Lean.Elab.Tactic.Ext.extExtension": "leanprover/lean4: src/Lean/Elab/Tactic/Ext.lean",
    # --- compiled code (see above: never run; native reduction is refused at step 5) ---
    # IR declarations of a computable `def`: `builtin_initialize declMapExt :
    # SimplePersistentEnvExtension Decl DeclMap ← registerSimplePersistentEnvExtension`
    "Lean.IR.declMapExt": "leanprover/lean4: src/Lean/Compiler/IR/CompilerM.lean",
    # IR dead-branch summaries (abstract values per function): `builtin_initialize
    # functionSummariesExt` in `Lean.IR.UnreachableBranches`
    "Lean.IR.UnreachableBranches.functionSummariesExt":
        "leanprover/lean4: src/Lean/Compiler/IR/ElimDeadBranches.lean",
    # LCNF base-phase declarations: `builtin_initialize baseExt : DeclExt … ← mkDeclExt .base`
    "Lean.Compiler.LCNF.baseExt": "leanprover/lean4: src/Lean/Compiler/LCNF/PhaseExt.lean",
    # LCNF mono-phase declarations: `builtin_initialize monoExt : DeclExt … ← mkDeclExt .mono`
    "Lean.Compiler.LCNF.monoExt": "leanprover/lean4: src/Lean/Compiler/LCNF/PhaseExt.lean",
    # LCNF impure-phase declarations where that phase is persisted: `builtin_initialize
    # impureExt : DeclExt .impure ← mkDeclExt .impure`
    "Lean.Compiler.LCNF.impureExt": "leanprover/lean4: src/Lean/Compiler/LCNF/PhaseExt.lean",
    # LCNF impure-phase signatures where only they are persisted: `builtin_initialize
    # impureSigExt : SigExt .impure ← mkSigDeclExt .impure`
    "Lean.Compiler.LCNF.impureSigExt": "leanprover/lean4: src/Lean/Compiler/LCNF/PhaseExt.lean",
    # parameter kinds for specialisation (a `def` with instance or function arguments):
    # `builtin_initialize specExtension : SimplePersistentEnvExtension SpecEntry SpecState`
    "Lean.Compiler.LCNF.specExtension": "leanprover/lean4: src/Lean/Compiler/LCNF/SpecInfo.lean",
    # specialisations made (key expression → declaration name): `builtin_initialize
    # specCacheExt : SimplePersistentEnvExtension CacheEntry Cache` in `…LCNF.Specialize`
    "Lean.Compiler.LCNF.Specialize.specCacheExt":
        "leanprover/lean4: src/Lean/Compiler/LCNF/Specialize.lean",
    # LCNF dead-branch summaries (abstract values per function): `builtin_initialize
    # functionSummariesExt` in `Lean.Compiler.LCNF.UnreachableBranches`
    "Lean.Compiler.LCNF.UnreachableBranches.functionSummariesExt":
        "leanprover/lean4: src/Lean/Compiler/LCNF/ElimDeadBranches.lean",
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
            :meth:`~network.gate.lean.toolchain.Toolchain.olean_entries`.
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
