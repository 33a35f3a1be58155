/-
Shared helpers of the gate's checker programs (network/gate/lean/, D-4 steps 4-8).

Not a module of its own: the Python adapter (network/gate/lean_toolchain.py) prepends this
file to each checker's body and runs the result with `lake env lean --run File.lean
request.json`. Each checker defines `run : Json → IO Json` and
`def main (args : List String) : IO UInt32 := LemmataGate.mainWith "<Checker>" run args`.

Rules every checker follows (LEAN_NOTES "Lean API"):
* imports the compiled modules it is asked about as data (`loadExts := false`): their
  environment extensions' entries (macro, elab, delab, unexpander, parser, simproc, ...)
  are never evaluated, it never elaborates their text and never calls
  `enableInitializersExecution`, so none of the contributor's code runs (issue 32);
* prints terms only in an environment built from the toolchain's and the pinned packages'
  modules alone (`printEnv`), with the contributor's constants added as axioms of their
  kernel types: notation and delaborators come from trusted oleans only;
* reads a fresh nonce from stdin before it reads its request or imports anything, and
  writes exactly one JSON object, {"checker", "version": 1, ...} or on any failure
  {"checker", "version": 1, "error": "<message>"}, to `<out>/report-<nonce>.json` through
  a handle it opens itself after every import; stdout carries no report (the host refuses
  a run whose stdout holds a report-shaped line, `checker-output-unbound`);
* receives names as arrays of components, so no name parsing happens here.

API read against leanprover/lean4's own sources (the index holds several versions of each;
only names present in the v4.2x-v4.3x ones are used):
* src/Lean/Environment.lean: `importModules imports opts (trustLevel) (plugins) (leakEnv)
  (loadExts) (level := .private)`, `Import.module`, `Environment.find?`,
  `getModuleIdxFor?`, `allImportedModuleNames` (= header.moduleNames; `ModuleIdx` indexes
  an Array through its GetElem? instance);
* src/Lean/Util/Path.lean: `initSearchPath`, `findSysroot` (LEAN_PATH from `lake env`),
  `findOLean : Name → IO FilePath` (the search path's `.olean`; the sysroot's library is
  `<sysroot>/lib/lean`, `getBuiltinSearchPath`);
* releases_drafts/environment.md (lean4): `importModules`/`finalizeImport` take
  `loadExts : Bool := false`; `true` loads extension states, which runs the extensions'
  import code (`evalConstCheck` of attribute entries), `false` leaves every entry unread;
  `withImportModules` (leanchecker's) always passes `false`;
* src/Lean/AddDecl.lean: `addDecl : Declaration → CoreM Unit` (kernel-checked);
  src/Lean/Declaration.lean: `Declaration.axiomDecl`, `AxiomVal` {name, levelParams, type,
  isUnsafe};
* src/Init/System/IO.lean: `IO.getStdin`, `IO.FS.Stream.getLine`, `IO.FS.writeFile`;
* src/Lean/CoreM.lean: `Core.Context` {fileName, fileMap, maxHeartbeats}, `Core.State`
  {env}, `CoreM.toIO`; `Elab.async` defaults to false with empty options;
* src/Lean/Meta/Basic.lean: `MetaM.run'`, `forallTelescope`, `withLocalDecl`,
  `withLetDecl`, `mkLambdaFVars`, `mkForallFVars`, `isDefEq`, `isProp`, `getLevel`;
* src/Lean/Util/FoldConsts.lean: `Expr.getUsedConstants`;
* src/Lean/Util/CollectAxioms.lean: deliberately not used (newer versions answer imported
  constants from `exportedAxiomsExt`, data a build writes); `axiomsOf` walks terms itself;
* src/Lean/Meta/Sorry.lean: `isLabeledSorry?` → `SorryLabelView.module? : Option (Name ×
  Position × Lsp.Range)`;
* src/Init/Prelude.lean: `letFun` (deprecated 2026-07, so named by a plain `letFun
  literal, never resolved; `have` is now a non-dependent `letE`);
* src/Lean/Data/Json/Basic.lean, Parser.lean, Printer.lean: `Json.getArr?`, `getStr?`,
  `getNat?`, `getObjVal?`, `Json.mkObj`, `Json.parse`, `Json.compress`;
* src/Lean/Declaration.lean: `ConstantInfo` and its `*Val` fields as used in `sameConst`.
Keyword check: no binder is a keyword (`matches`, `at`, `from`, `fun`, `have`, `show`,
`by`, `do`, `then`, `else`, `open`, `in`, …).
-/
import Lean

open Lean Meta

set_option linter.unusedVariables false

namespace LemmataGate

/-- A name from a JSON array of its components. -/
def nameOfJson (j : Json) : Except String Name := do
  let arr ← j.getArr?
  let mut n := Name.anonymous
  for c in arr do
    let s ← c.getStr?
    n := Name.str n s
  if n.isAnonymous then throw "empty name"
  return n

def namesOfJson (j : Json) : Except String (Array Name) := do
  let arr ← j.getArr?
  arr.mapM nameOfJson

def field (j : Json) (k : String) : IO Json :=
  IO.ofExcept (j.getObjVal? k)

def nameField (j : Json) (k : String) : IO Name := do
  IO.ofExcept (nameOfJson (← field j k))

def namesField (j : Json) (k : String) : IO (Array Name) := do
  IO.ofExcept (namesOfJson (← field j k))

def nameJson (n : Name) : Json := Json.str n.toString

def namesJson (ns : Array Name) : Json :=
  Json.arr (ns.map nameJson)

/-- Import `mods` at private level (theorem bodies included) as data: no extension state
loaded (`loadExts := false`), so no extension entry of a contributor's module (an
`@[macro]`, `@[delab]`, `simproc`, parser or `initialize` entry) is ever evaluated at
import. Lean still records the modules' raw entries, compiled code included
(`setImportedEntries` runs whatever `loadExts` says), so a term that reaches
`Lean.reduceBool`/`Lean.reduceNat` could make Meta's `whnf` or the kernel run that code:
every checker that reduces contributor terms calls `requireNoNativeReduction` first. The
`lean` binary enables initializer execution itself; nothing here relies on it being off.
MetaM works on this environment without matcher or smart-unfolding data (`runMeta` turns
smart unfolding off); printing uses `printEnv`. -/
def loadEnv (mods : Array Name) : IO Environment := do
  initSearchPath (← findSysroot)
  importModules (mods.map fun m => { module := m }) {} (loadExts := false)

/-- The folders whose `.olean` files are trusted, each a real path ending in `/`: the
toolchain's own library (`<sysroot>/lib/lean`) and the check workspace's pinned packages
(`./.lake/packages`, a link to the gate image's pin directory; `lake env` runs in the
workspace root). Neither the workspace's own build (`.lake/build`) nor the carried folder
(`<root>.host/carried`) is among them. A folder that does not exist is left out. -/
def trustedDirs : IO (Array String) := do
  let sysroot ← findSysroot
  let mut out := #[]
  for d in [sysroot / "lib" / "lean", (← IO.currentDir) / ".lake" / "packages"] do
    if (← d.pathExists) then
      out := out.push ((← IO.FS.realPath d).toString ++ "/")
  return out

/-- Whether module `m`'s `.olean` (its real path: links resolved) lies in a trusted folder. -/
def trustedModule (dirs : Array String) (m : Name) : IO Bool := do
  let p := (← IO.FS.realPath (← findOLean m)).toString
  return dirs.any fun d => d.isPrefixOf p

/-- The environment terms of `datas` are printed in: every module one of them imports whose
`.olean` is trusted (`trustedModule`), imported with its extension states (their code is
the toolchain's and the pinned packages', D-4 v3.16), and none of the contributor's. -/
def printEnv (datas : Array Environment) : IO Environment := do
  let dirs ← trustedDirs
  let mut mods : Array Name := #[]
  for data in datas do
    for m in data.allImportedModuleNames do
      if !mods.contains m && (← trustedModule dirs m) then mods := mods.push m
  importModules (mods.map fun m => { module := m }) {} (loadExts := true)

/-- Run a MetaM action against `env` with no heartbeat limit (the sandbox caps time) and
smart unfolding off. -/
def runMeta (env : Environment) (x : MetaM α) : IO α := do
  -- smart unfolding needs matcher data, an extension `loadEnv` does not load (issue 32)
  let opts : Options := KVMap.setBool {} `smartUnfolding false
  let ctx : Core.Context := { fileName := "<lemmata-gate>", fileMap := default, maxHeartbeats := 0,
                              options := opts }
  let st : Core.State := { env := env }
  let (a, _) ← (x.run' {} {}).toIO ctx st
  pure a


/-- The module that defines `n` in `env`, if imported. -/
def moduleOf (env : Environment) (n : Name) : Option Name := do
  let idx ← env.getModuleIdxFor? n
  env.allImportedModuleNames[idx]?

/-- What a constant's *meaning* depends on: its type, a definition's value, an inductive's
constructors and mutual block, a constructor's inductive, a recursor's rules. A theorem's
proof is not part of what it means. -/
def meaningDeps (ci : ConstantInfo) : Array Name := Id.run do
  let mut out := ci.type.getUsedConstants
  match ci with
  | .defnInfo v => out := out ++ v.value.getUsedConstants
  | .opaqueInfo v => out := out ++ v.value.getUsedConstants
  | .inductInfo v => out := out ++ v.ctors.toArray ++ v.all.toArray
  | .ctorInfo v => out := out.push v.induct
  | .recInfo v =>
    out := out ++ v.all.toArray
    for r in v.rules do
      out := out ++ r.rhs.getUsedConstants
  | _ => pure ()
  return out

/-- Everything a constant's kernel term uses: type and value (a theorem's proof too). -/
def termDeps (ci : ConstantInfo) : Array Name := Id.run do
  let mut out := meaningDeps ci
  if let .thmInfo v := ci then
    out := out ++ v.value.getUsedConstants
  return out

partial def closureGo (env : Environment) (deps : ConstantInfo → Array Name)
    (follow : Name → Bool) : List Name → NameSet → NameSet
  | [], seen => seen
  | n :: rest, seen =>
    if seen.contains n then closureGo env deps follow rest seen
    else
      let seen := seen.insert n
      if !follow n then closureGo env deps follow rest seen
      else match env.find? n with
        | none => closureGo env deps follow rest seen
        | some ci => closureGo env deps follow ((deps ci).toList ++ rest) seen

/-- The transitive closure of `roots` under `deps`, expanding only names `follow` allows
(names not followed are still included). -/
def closure (env : Environment) (deps : ConstantInfo → Array Name) (follow : Name → Bool)
    (roots : Array Name) : NameSet :=
  closureGo env deps follow roots.toList {}

/-- Refuse, before any reduction, terms that could make Lean run compiled code (issue 32):
the closure of `roots` under `termDeps`, followed through the constants of untrusted modules
(not `trustedModule`; a constant of the file itself too), must not reach `Lean.reduceBool`
or `Lean.reduceNat`. Meta's `whnf` (`reduceNative?`) and the kernel (`reduce_native`)
evaluate their argument's compiled code, which `loadEnv` leaves findable.

Raises: an IO error naming the constant that reaches one (the checker then fails closed). -/
def requireNoNativeReduction (env : Environment) (roots : Array Name) : IO Unit := do
  let dirs ← trustedDirs
  let mut untrusted : NameSet := {}
  for m in env.allImportedModuleNames do
    unless (← trustedModule dirs m) do untrusted := untrusted.insert m
  let follow := fun (n : Name) => match moduleOf env n with
    | some m => untrusted.contains m
    | none => true
  let reached := closure env termDeps follow roots
  for bad in [``Lean.reduceBool, ``Lean.reduceNat] do
    if reached.contains bad then
      throw (IO.userError (s!"a contributor's term reaches {bad}: refused before any " ++
        "reduction, since evaluating it would run compiled code (issue 32)"))

/-- Add to the current environment, as axioms of their kernel types, the constants of `data`
that a closed term `e` mentions and the environment lacks (and those their types mention),
types' dependencies first. Values are never needed to print. A constant the kernel refuses
as a safe axiom (an `unsafe` one) is left out; the printer then shows it by name. -/
def addForPrinting (data : Environment) (e : Expr) : CoreM Unit := do
  let env0 ← getEnv
  let typeDeps := fun (ci : ConstantInfo) => ci.type.getUsedConstants
  let wanted := closure data typeDeps (fun n => !env0.contains n) e.getUsedConstants
  let mut todo := wanted.toList.filter fun n => !env0.contains n && data.contains n
  let mut progress := true
  while progress && !todo.isEmpty do
    progress := false
    let mut rest : List Name := []
    for n in todo do
      let env ← getEnv
      let some ci := data.find? n | continue
      if ci.type.getUsedConstants.all env.contains then
        try
          addDecl (.axiomDecl { name := n, levelParams := ci.levelParams, type := ci.type,
                                isUnsafe := false })
          progress := true
        catch _ => pure ()
      else
        rest := n :: rest
    todo := rest

/-- A closed term of `data` pretty-printed in `penv` (from `printEnv data`). -/
def ppClosed (data penv : Environment) (e : Expr) : IO String :=
  runMeta penv do
    addForPrinting data e
    return toString (← ppExpr e)

def kindTag : ConstantInfo → String
  | .axiomInfo _ => "axiom"
  | .defnInfo _ => "def"
  | .thmInfo _ => "theorem"
  | .opaqueInfo _ => "opaque"
  | .quotInfo _ => "quot"
  | .inductInfo _ => "inductive"
  | .ctorInfo _ => "ctor"
  | .recInfo _ => "rec"

/-- Two constants mean the same: same kind, universe parameters and type, and for
definitions the same value (Comparator's identity check; a theorem's proof is ignored). -/
def sameConst (a b : ConstantInfo) : Bool :=
  kindTag a == kindTag b && a.levelParams == b.levelParams && a.type == b.type &&
  (match a, b with
   | .defnInfo x, .defnInfo y => x.value == y.value && x.safety == y.safety
   | .opaqueInfo x, .opaqueInfo y => x.value == y.value && x.isUnsafe == y.isUnsafe
   | .axiomInfo x, .axiomInfo y => x.isUnsafe == y.isUnsafe
   | .inductInfo x, .inductInfo y =>
       x.numParams == y.numParams && x.numIndices == y.numIndices && x.all == y.all &&
       x.ctors == y.ctors && x.isUnsafe == y.isUnsafe && x.isRec == y.isRec
   | .ctorInfo x, .ctorInfo y =>
       x.induct == y.induct && x.cidx == y.cidx && x.numParams == y.numParams &&
       x.numFields == y.numFields && x.isUnsafe == y.isUnsafe
   | .recInfo x, .recInfo y =>
       x.numParams == y.numParams && x.numIndices == y.numIndices &&
       x.numMotives == y.numMotives && x.numMinors == y.numMinors && x.k == y.k &&
       x.rules.length == y.rules.length &&
       (x.rules.zip y.rules).all fun (r, s) => r.ctor == s.ctor && r.nfields == s.nfields && r.rhs == s.rhs
   | _, _ => true)

/-- Constants that `roots` mean through in `source` and that are missing or different in
`target`. Constants of the same non-graph module in both environments come from the same
pinned olean, so they are not expanded (LEAN_NOTES: Lean's and Mathlib's compiled files are
trusted, D-4 v3.16); graph constants (under `graphPrefix`) are always compared. Names in
`exclude` (the theorem being proved, whose proof differs by design) are not compared. -/
def mismatches (source target : Environment) (graphPrefix : Name) (roots : Array Name)
    (exclude : Array Name := #[]) : Array Name := Id.run do
  let trusted := fun (n : Name) =>
    match moduleOf source n, moduleOf target n with
    | some m, some m' => m == m' && !graphPrefix.isPrefixOf m
    | _, _ => false
  let names := closure source meaningDeps (fun n => !trusted n) roots
  let mut bad := #[]
  for n in names.toList do
    if exclude.contains n then continue
    if trusted n then continue
    match source.find? n, target.find? n with
    | some a, some b => if !sameConst a b then bad := bad.push n
    | some _, none => bad := bad.push n
    | none, _ => pure ()
  return bad.qsort Name.lt

/-- The axioms a constant's kernel term reaches, transitively: every axiom in the closure
of `termDeps` (types and values, theorem proofs included), sorted. Computed here from the
imported terms, never read from an environment extension (since v4.2x `collectAxioms`
answers imported constants from `exportedAxiomsExt`, data the build wrote into the
olean). Which of them trust the compiler is the Python side's call. -/
def axiomsOf (env : Environment) (n : Name) : Array Name :=
  let names := closure env termDeps (fun _ => true) #[n]
  let axs := names.toList.filter fun m =>
    match env.find? m with
    | some (.axiomInfo _) => true
    | _ => false
  axs.toArray.qsort Name.lt

partial def levelKey : Level → String
  | .zero => "0"
  | .succ l => "(s " ++ levelKey l ++ ")"
  | .max a b => "(max " ++ levelKey a ++ " " ++ levelKey b ++ ")"
  | .imax a b => "(imax " ++ levelKey a ++ " " ++ levelKey b ++ ")"
  | .param n => n.toString
  | .mvar _ => "?"

/-- A structural text of a closed term: de Bruijn indices, no binder names, no binder
infos, no metadata. Two terms have the same key exactly when they are equal up to those.
The Python side hashes it (SHA-256) and compares it with network/gate/axioms/<pin>.json. -/
partial def exprKey : Expr → String
  | .bvar i => "#" ++ toString i
  | .fvar _ => "?f"
  | .mvar _ => "?m"
  | .sort l => "(S " ++ levelKey l ++ ")"
  | .const n ls => "(C " ++ n.toString ++ " [" ++ " ".intercalate (ls.map levelKey) ++ "])"
  | .app f a => "(A " ++ exprKey f ++ " " ++ exprKey a ++ ")"
  | .lam _ t b _ => "(L " ++ exprKey t ++ " " ++ exprKey b ++ ")"
  | .forallE _ t b _ => "(P " ++ exprKey t ++ " " ++ exprKey b ++ ")"
  | .letE _ t v b _ => "(E " ++ exprKey t ++ " " ++ exprKey v ++ " " ++ exprKey b ++ ")"
  | .lit (.natVal k) => "(N " ++ toString k ++ ")"
  | .lit (.strVal s) => "(T " ++ s.quote ++ ")"
  | .mdata _ e => exprKey e
  | .proj s i e => "(J " ++ s.toString ++ " " ++ toString i ++ " " ++ exprKey e ++ ")"

/-- A constant's identity key: its universe parameters, `|`, its type's `exprKey`. -/
def constKey (ci : ConstantInfo) : String :=
  ",".intercalate (ci.levelParams.map (·.toString)) ++ "|" ++ exprKey ci.type

/-- What the gate needs to know an axiom by (step 5, D-4 v3.27): its name, the module that
declares it (null when the current file does) and its identity key. -/
def axiomRow (env : Environment) (n : Name) : Json :=
  let mod := match moduleOf env n with
    | some m => nameJson m
    | none => Json.null
  let key := match env.find? n with
    | some ci => Json.str (constKey ci)
    | none => Json.null
  Json.mkObj [("name", nameJson n), ("module", mod), ("type_key", key)]

def axiomRows (env : Environment) (axs : Array Name) : Json :=
  Json.arr (axs.map (axiomRow env))

/-- `P₁ ∧ … ∧ Pₘ`, right-nested as `∧` parses; `True` when empty. -/
def mkAndList : List Expr → Expr
  | [] => mkConst ``True
  | [p] => p
  | p :: ps => mkApp2 (mkConst ``And) p (mkAndList ps)

/-- The graph's witness convention, built from a statement's type, never from its text:
for `∀ (x₁ : A₁) … (h₁ : P₁) …, C` it is `∃ x₁ … xₙ, P₁ ∧ … ∧ Pₘ` over the data binders in
order with the conjunction of the hypotheses (`True` when there is none). `keep` narrows
the hypotheses to those named (D-29 v3.22). Shared by Witness (step 7) and CheckRelation's
vacuity kind (D-12 #3: the negation of exactly this). -/
def hypothesesExists (type : Expr) (keep : Option (Array String)) : MetaM Expr :=
  forallTelescope type fun xs _ => do
    let mut data := #[]
    let mut hyps := #[]
    for x in xs do
      let d ← x.fvarId!.getDecl
      if ← isProp d.type then
        if keep.all (·.contains d.userName.toString) then hyps := hyps.push d.type
      else data := data.push x
    let mut body := mkAndList hyps.toList
    for x in data.reverse do
      let t ← inferType x
      let u ← getLevel t
      body := mkApp2 (mkConst ``Exists [u]) t (← mkLambdaFVars #[x] body)
    if body.hasFVar then
      throwError "a data binder depends on a hypothesis; no canonical witness type"
    return body

def report (checker : String) (fields : List (String × Json)) : Json :=
  Json.mkObj ([("checker", Json.str checker), ("version", toJson (1 : Nat))] ++ fields)

/-- A nonce the host sent: 32 lowercase hexadecimal digits. -/
def isNonce (s : String) : Bool :=
  s.length == 32 && s.all fun c => c.isDigit || ('a' ≤ c && c ≤ 'f')

/-- The shared `main` (issue 32's report channel): read the nonce from stdin before anything
else (the request, every import), then read the request file, run, and write one JSON
object to `<out>/report-<nonce>.json` with `IO.FS.writeFile`, which opens its own handle
after the imports; exit 0 when the check ran (its findings are data), 1 when it could not.
Nothing is printed: a module's code that wrote to stdout, or replaced the stdout stream,
reaches no report the host reads. Usage: `lean --run <Checker>.lean request.json <out>`
with the nonce on stdin. -/
def mainWith (checker : String) (run : Json → IO Json) (args : List String) : IO UInt32 := do
  let nonce := (← (← IO.getStdin).getLine).trim
  match args with
  | [path, outDir] =>
    unless isNonce nonce do
      IO.eprintln "no nonce on stdin"
      return 1
    let file := System.FilePath.mk outDir / s!"report-{nonce}.json"
    try
      let req ← IO.ofExcept (Json.parse (← IO.FS.readFile path))
      let out ← run req
      IO.FS.writeFile file (out.compress ++ "\n")
      return 0
    catch e =>
      IO.FS.writeFile file ((report checker [("error", Json.str (toString e))]).compress ++ "\n")
      return 1
  | _ =>
    IO.eprintln "usage: lean --run <Checker>.lean request.json <out> (nonce on stdin)"
    return 1

end LemmataGate

/-! ## Holes of a partial proof (shared by ExtractHoles and DefEq) -/

namespace LemmataGate

def binderInfoStr : BinderInfo → String
  | .default => "default"
  | .implicit => "implicit"
  | .strictImplicit => "strictImplicit"
  | .instImplicit => "instImplicit"

/-- One hole: its `have` name (or `hole<k>`), its statement (the goal closed over the
local context it sits in; `mkForallFVars` leaves out let-bound locals the goal does not
use), its context (the goal closed over every local, `binderCount` binders: `∀` for a
local, `let` for a let-bound one; what its goal and binders are printed in), and the source
position a labelled sorry carries (Lean.Meta.isLabeledSorry?). No text here: ExtractHoles
prints them in `printEnv` (`holeRow`). -/
structure HoleData where
  name : Name
  statement : Expr
  context : Expr
  binderCount : Nat
  line : Option Nat
  column : Option Nat

def recordHole (acc : IO.Ref (Array HoleData)) (e : Expr) (hname : Option Name) :
    MetaM Unit := do
  let goal ← instantiateMVars (← inferType e)
  let fvars := (← getLCtx).getFVars
  let stmt ← mkForallFVars fvars goal
  let context ← mkForallFVars fvars goal (usedLetOnly := false)
  let k := (← acc.get).size + 1
  let (line, column) := match isLabeledSorry? e with
    | some { module? := some (_, pos, _) } => (some pos.line, some pos.column)
    | _ => (none, none)
  acc.modify (·.push {
    name := hname.getD (Name.mkSimple s!"hole{k}"), statement := stmt, context,
    binderCount := fvars.size, line, column })

/-- Open the first `n` binders of `e` (`∀` as a local, `let` as a let-bound local, as
`mkForallFVars` closed them) and hand the locals and the rest to `k`. -/
def openBinders (k : Array Expr → Expr → MetaM α) : Nat → Expr → Array Expr → MetaM α
  | n + 1, .forallE nm t b bi, acc =>
    withLocalDecl nm bi t fun x => openBinders k n (b.instantiate1 x) (acc.push x)
  | n + 1, .letE nm t v b _, acc =>
    withLetDecl nm t v fun x => openBinders k n (b.instantiate1 x) (acc.push x)
  | _, e, acc => k acc e

/-- Where a checker's terms come from (`data`, from `loadEnv`) and where they are printed
(`penv`, from `printEnv`). -/
structure PrintCtx where
  data : Environment
  penv : Environment

/-- `e`, a term of `pc.data` in the current MetaM local context, printed in `pc.penv`: closed
over every local in scope, the constants it needs added there as axioms
(`addForPrinting`), reopened under the same binder names and printed. The text is what
`ppExpr e` gives in the current context, with notation from trusted modules only. -/
def ppHere (pc : PrintCtx) (e : Expr) : MetaM String := do
  let fvars := (← getLCtx).getFVars
  let closed ← mkForallFVars fvars (← instantiateMVars e) (usedLetOnly := false)
  let out ← (runMeta pc.penv do
      addForPrinting pc.data closed
      openBinders (fun _ body => do return toString (← ppExpr body)) fvars.size closed #[]
    : IO String)
  return out

/-- A hole of `data`'s partial as ExtractHoles reports it, printed in `penv`
(`printEnv`): its goal and binders in the reopened local context, and its statement. -/
def holeRow (data penv : Environment) (index : Nat) (h : HoleData) : IO Json :=
  runMeta penv do
    addForPrinting data h.context
    let statementPP := toString (← ppExpr h.statement)
    openBinders (fun xs goal => do
      let mut binders := #[]
      for x in xs do
        let d ← x.fvarId!.getDecl
        binders := binders.push (Json.mkObj [
          ("name", Json.str d.userName.toString),
          ("type", Json.str (toString (← ppExpr d.type))),
          ("binder_info", Json.str (binderInfoStr d.binderInfo))])
      return Json.mkObj [
        ("index", toJson index), ("name", nameJson h.name),
        ("goal", Json.str (toString (← ppExpr goal))), ("binders", Json.arr binders),
        ("statement", Json.str statementPP), ("line", toJson h.line),
        ("column", toJson h.column)]) h.binderCount h.context #[]

/-- Walk a term left to right, outside in, entering binders with their locals in scope;
every `sorryAx` application is a hole. `have h : T := sorry` (a `letFun` application or a
non-dependent `letE`, depending on the Lean version) names the hole `h`. -/
partial def visitHoles (acc : IO.Ref (Array HoleData)) (e : Expr) (hname : Option Name) :
    MetaM Unit := do
  match e with
  | .mdata _ b => visitHoles acc b hname
  | .lam n t b bi =>
    visitHoles acc t none
    withLocalDecl n bi t fun x => visitHoles acc (b.instantiate1 x) none
  | .forallE n t b bi =>
    visitHoles acc t none
    withLocalDecl n bi t fun x => visitHoles acc (b.instantiate1 x) none
  | .letE n t v b _ =>
    visitHoles acc t none
    visitHoles acc v (some n)
    withLetDecl n t v fun x => visitHoles acc (b.instantiate1 x) none
  | .app .. =>
    if e.isAppOf ``sorryAx then
      recordHole acc e hname
    else if e.isAppOfArity `letFun 4 then
      let args := e.getAppArgs
      let n := match args[3]! with
        | .lam n .. => some n
        | _ => none
      visitHoles acc args[2]! n
      visitHoles acc args[3]! none
    else
      visitHoles acc e.getAppFn none
      for a in e.getAppArgs do
        visitHoles acc a none
  | .proj _ _ s => visitHoles acc s none
  | _ => pure ()

/-- The holes of declaration `decl`'s value in `env`, or none when it has no value. -/
def holesOf (env : Environment) (decl : Name) : IO (Option (Array HoleData)) := do
  let some ci := env.find? decl | return none
  let some v := ci.value? | return none
  runMeta env do
    let acc ← IO.mkRef #[]
    visitHoles acc v none
    acc.get

end LemmataGate
