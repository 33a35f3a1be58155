/-
Outline (D-3 v3.30, D-35 v3.30). Body only: run after Common.lean.

Request: {"module": [..], "decls": [[..], ..]}
Report:  {"checker": "Outline", "version": 1, "missing": [..],
          "steps": [{"decl", "index", "name", "kind", "depth", "reads_back", "why",
                     "claim", "goal", "constants": [..], "automation": [..], "hole"}]}

The named steps of a merged proof, read from the compiled, kernel-checked term and from
nothing else. The module is imported from the check workspace's hash-checked oleans with
no initializer (Common.loadEnv, as UsedConstants and ExtractHoles do); the contributor's
source is never read or elaborated, so none of the contributor's code runs here and no
claim can come from the source's text (a `have` whose name or comment says one thing and
whose type says another is shown with the kernel's type).

Each declaration's value is walked outside in, entering binders with their locals in scope
(as Common.visitHoles does). Every `have`/`let` whose type is a proposition is a step:
* in the pinned toolchains (v4.27.0, v4.34.0) `have x : T := v; b` is a non-dependent
  `Expr.letE x T v b (nonDep := true)` (Common.lean's note on `letFun`); an older term's
  `letFun {α} {β} v (fun x => b)` (`isAppOfArity `letFun 4`) is read the same way;
  a `let` is `Expr.letE … (nonDep := false)`;
* `name`: the binder name (the claim's label);
* `claim`: `T`, the kernel-checked type, pretty-printed in the step's local context;
* `goal`: the goal left with `x` in scope: the expected type the enclosing binders give
  (the declaration's type, opened by each `fun`), else the body's inferred type;
* `constants`: `v.getUsedConstants`, sorted;
* `automation`: the tactics whose marks (the table `olAutomationOf`) are among the
  constants of `v` or of the declaration's own auxiliary lemmas `v` uses
  (`<decl>._proof_k`, …); a constant not in the table marks nothing, so a proof closed by
  a tactic that leaves no mark is reported with no automation, never a guessed one;
* `hole`: `v` is a `sorryAx` application (a partial's open step, D-12 #5).
A declaration with no such step is one step: the whole theorem (kind "theorem").

A step reads back (`reads_back`) when its label is a name a reader can write (not
anonymous, no macro scopes, not the name of a constant), no local in scope has the name of
a constant (`shadowing-name`: `delabFVar` prints a local by its user name, so a local
called `False` would read as the constant), and its claim and goal print without failing, without
`sorryAx` in the claim, and with none of the printer's marks that do not parse back as the
same term (`✝` for an inaccessible local, `⋯` for an elided proof). Otherwise it is Lean
only: `claim` and `goal` are null and `why` says which test failed.

Checked against leanprover/lean4 (the v4.2x-v4.3x versions the index holds):
* src/Lean/Expr.lean: `Expr.letE (declName type value body) (nonDep : Bool)`,
  `Expr.lam`, `Expr.mdata`, `Expr.proj`, `Expr.instantiate1`, `isAppOf`, `isAppOfArity`,
  `getAppArgs`, `getAppFn`, `consumeMData`;
* src/Lean/Util/FoldConsts.lean: `Expr.getUsedConstants`;
* src/Lean/Meta/Basic.lean: `withLocalDecl`, `withLetDecl`, `isProp`;
  src/Lean/Meta/InferType.lean: `inferType`; src/Lean/MetavarContext.lean:
  `instantiateMVars`;
* src/Lean/PrettyPrinter.lean: `Lean.Meta.ppExpr : Expr → MetaM Format` (run in CoreM
  from IO by Common.runMeta: `MetaM.run'`, `CoreM.toIO`);
* src/Lean/LocalContext.lean: `LocalContext.any`, `LocalDecl.userName`, `getLCtx`
  (`MonadLCtx`); src/Lean/Environment.lean: `Environment.contains`; `getEnv`;
* src/Init/Prelude.lean: `Name.hasMacroScopes`, `Name.isAnonymous`, `sorryAx`;
  src/Lean/Data/Name.lean: `Name.isPrefixOf`;
* src/Init/Prelude.lean and src/Init/Core.lean: `of_decide_eq_true`, `Lean.ofReduceBool`,
  `Lean.ofReduceNat` (native_decide before v4.29; from v4.29 one axiom per computation
  with a `_native` name component, lean4 PR #12217, LEAN_NOTES); src/Init/SimpLemmas.lean:
  `of_eq_true`, `eq_self`; src/Init/Omega/*.lean: namespace `Lean.Omega`; Mathlib's
  `Mathlib.Meta.NormNum`, `Mathlib.Tactic.Ring`, `Mathlib.Meta.Positivity`, `Linarith`;
  src/Init/Grind: `Lean.Grind`; src/Std/Tactic/BVDecide: `Std.Tactic.BVDecide`.
No `enableInitializersExecution`, no frontend, no `evalConst`: nothing here runs code of
the module read.
-/
section Outline
open Lean Meta LemmataGate

/-- Whether some string component of `n` is `s`. -/
partial def olHasComponent (s : String) : Name → Bool
  | .str p t => t == s || olHasComponent s p
  | .num p _ => olHasComponent s p
  | .anonymous => false

/-- The automation a constant marks, if the table knows it (the file header). -/
def olAutomationOf (n : Name) : Option String :=
  if n == `of_decide_eq_true then some "decide"
  else if n == `Lean.ofReduceBool || n == `Lean.ofReduceNat || olHasComponent "_native" n then
    some "native_decide"
  else if n == `of_eq_true || n == `eq_self then some "simp"
  else if (`Lean.Omega).isPrefixOf n then some "omega"
  else if (`Mathlib.Meta.NormNum).isPrefixOf n then some "norm_num"
  else if (`Mathlib.Tactic.Ring).isPrefixOf n then some "ring"
  else if (`Mathlib.Meta.Positivity).isPrefixOf n then some "positivity"
  else if (`Linarith).isPrefixOf n || (`Mathlib.Tactic.Linarith).isPrefixOf n then
    some "linarith"
  else if (`Lean.Grind).isPrefixOf n then some "grind"
  else if (`Std.Tactic.BVDecide).isPrefixOf n then some "bv_decide"
  else none

/-- The automation marked by `consts` and by the constants of the declaration's own
auxiliary lemmas they reach (names under `decl`, expanded by their whole term), sorted. -/
def olAutomation (env : Environment) (decl : Name) (consts : Array Name) : Array String :=
  Id.run do
    let names := closure env termDeps (fun c => decl.isPrefixOf c && c != decl) consts
    let mut out : Array String := #[]
    for c in names.toList do
      if let some a := olAutomationOf c then
        unless out.contains a do out := out.push a
    return out.qsort (fun a b => decide (a < b))

/-- Why a printed text does not read back as the same term, if it does not. -/
def olTextProblem (s : String) : Option String :=
  if s.contains '✝' then some "inaccessible-local"
  else if s.contains '⋯' then some "elided-proof"
  else if (s.splitOn "sorry").length > 1 then some "sorry-in-claim"
  else none

/-- `e` pretty-printed in the current local context (in `pc.penv`, `ppHere`), none when
the printer fails. -/
def olPP (pc : PrintCtx) (e : Expr) : MetaM (Option String) := do
  try
    return some (← ppHere pc e)
  catch _ =>
    return none

/-- Whether a local of the current context has a user name that is a constant of the
environment: the printer shows a local by its user name (`delabFVar`) and a constant by
its own, so `fun False h => …` would print the local `False : p` as the constant False. -/
def olShadowing : MetaM Bool := do
  let env ← getEnv
  return (← getLCtx).any fun d => env.contains d.userName

/-- `e` pretty-printed in the current local context, or the reason it cannot be shown. -/
def olPrint (pc : PrintCtx) (e : Expr) : MetaM (Except String String) := do
  if (← olShadowing) then return .error "shadowing-name"
  let some s ← olPP pc e | return .error "print-failed"
  return match olTextProblem s with
    | some why => .error why
    | none => .ok s

structure OlState where
  rows : Array Json := #[]
  index : Nat := 0

/-- Record one step: label `n`, claim `t`, value `v`, and the goal it leaves, computed by
`goal` with the step's local in scope (none: the step closes its goal). -/
def olRecord (pc : PrintCtx) (decl : Name) (acc : IO.Ref OlState) (n : Name)
    (kind : String) (depth : Nat) (t v : Expr) (goal : MetaM (Option (Except String String))) :
    MetaM Unit := do
  let consts := v.getUsedConstants.qsort Name.lt
  let hole := v.consumeMData.isAppOf ``sorryAx
  let claim ← olPrint pc t
  let goalR ← goal
  let why : Option String :=
    if n.isAnonymous then some "anonymous-name"
    else if n.hasMacroScopes then some "inaccessible-name"
    else if kind != "theorem" && pc.data.contains n then some "shadowing-name"
    else if t.getUsedConstants.contains ``sorryAx then some "sorry-in-claim"
    else match claim, goalR with
      | .error w, _ => some w
      | .ok _, some (.error w) => some ("goal: " ++ w)
      | .ok _, _ => none
  let ok := why.isNone
  let claimJ : Json := match ok, claim with
    | true, .ok s => Json.str s
    | _, _ => Json.null
  let goalJ : Json := match ok, goalR with
    | true, some (.ok s) => Json.str s
    | _, _ => Json.null
  let whyJ : Json := match why with
    | some w => Json.str w
    | none => Json.null
  let autos := (olAutomation pc.data decl consts).map Json.str
  let st ← acc.get
  let k := st.index + 1
  let row := Json.mkObj [
    ("decl", nameJson decl), ("index", toJson k),
    ("name", if n.isAnonymous then Json.null else nameJson n),
    ("kind", Json.str kind), ("depth", toJson depth), ("reads_back", Json.bool ok),
    ("why", whyJ), ("claim", claimJ), ("goal", goalJ), ("constants", namesJson consts),
    ("automation", Json.arr autos), ("hole", Json.bool hole)]
  acc.set { rows := st.rows.push row, index := k }

/-- The expected type `exp` opened by one `fun` binder bound to `x`, when it is a ∀. -/
def olOpen (exp : Option Expr) (x : Expr) : Option Expr :=
  match exp.map Expr.consumeMData with
  | some (.forallE _ _ b _) => some (b.instantiate1 x)
  | _ => none

/-- The goal left after a step: `exp` when the enclosing binders give it, else the body's
inferred type; printed in the current context. -/
def olGoal (pc : PrintCtx) (exp : Option Expr) (body : Expr) :
    MetaM (Except String String) := do
  match exp with
  | some g => olPrint pc g
  | none =>
    try
      let ty ← inferType body
      olPrint pc ty
    catch _ =>
      return .error "goal-not-inferred"

/-- Whether `t` is a proposition (a failure reads as not one). -/
def olIsProp (t : Expr) : MetaM Bool := do
  try
    isProp t
  catch _ =>
    return false

/-- `letFun {α} {β} v (fun n => b)` (how `have` was elaborated before letFun's deprecation)
as (n, α, v, b); none for any other term. -/
def olLetFun? (e : Expr) : Option (Name × Expr × Expr × Expr) :=
  if e.isAppOfArity `letFun 4 then
    let args := e.getAppArgs
    match args[3]! with
    | .lam n _ b _ => some (n, args[0]!, args[2]!, b)
    | _ => none
  else none

mutual
/-- Walk `e` (expected type `exp` where known), recording each propositional `have`/`let`
step. `depth` counts the steps enclosing this one's value. -/
partial def olVisit (pc : PrintCtx) (decl : Name) (acc : IO.Ref OlState) (depth : Nat)
    (exp : Option Expr) (e : Expr) : MetaM Unit := do
  match e with
  | .mdata _ b => olVisit pc decl acc depth exp b
  | .lam n t b bi =>
    withLocalDecl n bi t fun x => olVisit pc decl acc depth (olOpen exp x) (b.instantiate1 x)
  | .letE n t v b nonDep =>
    olStep pc decl acc depth exp n (if nonDep then "have" else "let") t v b
  | .app .. =>
    if e.isAppOf ``sorryAx then return
    if let some (n, t, v, b) := olLetFun? e then
      olStep pc decl acc depth exp n "have" t v b
    else
      olVisit pc decl acc depth none e.getAppFn
      for a in e.getAppArgs do
        olVisit pc decl acc depth none a
  | .proj _ _ s => olVisit pc decl acc depth none s
  | _ => pure ()

/-- One `have`/`let` binding `n : t := v` with body `b` (bound variable 0 is `n`). -/
partial def olStep (pc : PrintCtx) (decl : Name) (acc : IO.Ref OlState) (depth : Nat)
    (exp : Option Expr) (n : Name) (kind : String) (t v b : Expr) : MetaM Unit := do
  if (← olIsProp t) then
    olRecord pc decl acc n kind depth t v
      (withLetDecl n t v fun x => do return some (← olGoal pc exp (b.instantiate1 x)))
    olVisit pc decl acc (depth + 1) (some t) v
  else
    olVisit pc decl acc depth none v
  withLetDecl n t v fun x => olVisit pc decl acc depth exp (b.instantiate1 x)
end

/-- The steps of `decl` in `env`: its named steps, or the whole theorem as one. -/
def olStepsOf (pc : PrintCtx) (decl : Name) (ci : ConstantInfo) : IO (Array Json) := do
  let some v := ci.value? | return #[]
  runMeta pc.data do
    let acc ← IO.mkRef ({} : OlState)
    olVisit pc decl acc 0 (some ci.type) v
    if (← acc.get).rows.isEmpty then
      -- no named step: the whole theorem is one, and it closes its goal
      olRecord pc decl acc decl "theorem" 0 ci.type v (pure none)
    return (← acc.get).rows

def runOutline (req : Json) : IO Json := do
  let mod ← nameField req "module"
  let decls ← namesField req "decls"
  let env ← loadEnv #[mod]
  requireNoNativeReduction env (decls.filter fun d => (env.find? d).isSome)
  let pc : PrintCtx := { data := env, penv := ← printEnv #[env] }
  let missing := decls.filter fun d => (env.find? d).isNone
  let mut steps : Array Json := #[]
  for d in decls do
    if let some ci := env.find? d then
      steps := steps ++ (← olStepsOf pc d ci)
  return report "Outline" [("missing", namesJson missing), ("steps", Json.arr steps)]

end Outline

def main (args : List String) : IO UInt32 :=
  LemmataGate.mainWith "Outline" runOutline args
