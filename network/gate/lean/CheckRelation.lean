/-
CheckRelation (D-12 #2 counterexample, #3 vacuity; D-30 relation labels; D-12 v3.42/v3.46
closure through a variant). Body only: run after Common.lean.

Mode "check" (steps 4-5 of a Refutation.lean, Vacuity.lean or Relation.lean):
  Request: {"mode": "check", "kind": "negation" | "vacuity" | "implies" | "implies-not",
            "left": {"module": [..], "decl": [..]}, "right": null | {"module", "decl"},
            "solution_module": [..], "theorem": [..]}
  The expected type is built here from the statements' declarations, never from their
  text (LEAN_NOTES "Never re-elaborate the statement's text"):
    negation     ¬ L                       (L is a theorem type: closed over its binders)
    vacuity      ¬ ∃ x₁ … xₙ, P₁ ∧ … ∧ Pₘ  (hypothesesExists, exactly as Witness builds it)
    implies      L → R                     (resolves: variant → root; partial: root → variant)
    implies-not  L → ¬ R                   (refutes: variant → ¬root)
  Its universe parameters are L's followed by R's new ones. The solution's theorem must
  have as many; its type, with them renamed positionally to the expected ones, must be
  `==` (alpha-equivalence) to the expected type, and every constant the expected type
  means through must be identical in the solution's environment (Comparator's rule, as
  CheckStatement). The statements are imported into one environment, the solution into
  another.

Mode "join" (the post-merge job's closure of a root through a proved variant):
  Request: {"mode": "join", "kind": "implies" | "implies-not",
            "premise": {"module", "decl"}, "relation": {"module", "decl"},
            "conclusion": {"module", "decl"}}
  In the environment of the premise's and relation's modules the theorem
  `relation premise` is added with the conclusion's statement (kind implies) or its
  negation (implies-not) as its type: `Lean.addDecl` runs the kernel, so "type_equal"
  means the kernel accepted the conclusion's own statement. Universe-polymorphic
  declarations are refused (an error: fail closed).

Report (both): {"checker": "CheckRelation", "version": 1, "expected_type": str,
  "actual_type": str | null, "detail": str,
  "theorems": [{"name", "found", "type_equal", "mismatched_constants", "axioms",
                "axiom_info"}]}

Checked against leanprover/lean4: src/Lean/AddDecl.lean (addDecl : Declaration → CoreM Unit, synchronous
when Elab.async is false), src/Lean/Declaration.lean (Declaration.thmDecl, TheoremVal
{name, levelParams, type, value, all}), src/Lean/Util/InstantiateLevelParams.lean
(ConstantInfo.instantiateTypeLevelParams), src/Lean/Log.lean (MonadLog.hasErrors).
-/
namespace LemmataGate.Relation
open Lean Meta LemmataGate

def notOf (p : Expr) : Expr := mkApp (mkConst ``Not) p

/-- `a → b` for closed `a`, `b` (no loose bound variables to lift). -/
def arrow (a b : Expr) : Expr := .forallE `h a b .default

def sideRef (j : Json) : IO (Name × Name) := do
  return (← nameField j "module", ← nameField j "decl")

def findDecl (env : Environment) (n : Name) (what : String) : IO ConstantInfo := do
  let some ci := env.find? n | throw (IO.userError s!"{what} module does not declare {n}")
  pure ci

/-- The expected type and its universe parameters, built from the declarations. -/
def expected (env : Environment) (kind : String) (l : ConstantInfo) (r : Option ConstantInfo) :
    IO (Expr × List Name) := do
  let lps := l.levelParams
  match kind, r with
  | "negation", _ => pure (notOf l.type, lps)
  | "vacuity", _ =>
    let e ← runMeta env (hypothesesExists l.type none)
    pure (notOf e, lps)
  | "implies", some r =>
    pure (arrow l.type r.type, lps ++ r.levelParams.filter (!lps.contains ·))
  | "implies-not", some r =>
    pure (arrow l.type (notOf r.type), lps ++ r.levelParams.filter (!lps.contains ·))
  | k, _ => throw (IO.userError s!"unknown relation kind {k}, or no right side for it")

def row (env : Environment) (n : Name) (found typeEqual : Bool) (bad axioms : Array Name) :
    Json :=
  Json.mkObj [("name", nameJson n), ("found", Json.bool found),
    ("type_equal", Json.bool typeEqual), ("mismatched_constants", namesJson bad),
    ("axioms", namesJson axioms), ("axiom_info", axiomRows env axioms)]

def runCheck (req : Json) : IO Json := do
  let kind ← IO.ofExcept ((← field req "kind").getStr?)
  let (lMod, lDecl) ← sideRef (← field req "left")
  let rightJ ← field req "right"
  let right ← match rightJ with
    | .null => pure none
    | j => pure (some (← sideRef j))
  let solMod ← nameField req "solution_module"
  let thm ← nameField req "theorem"
  let graphPrefix := (lMod.components.head?).getD `Lemmata
  let stmtMods := match right with
    | some (rMod, _) => if rMod == lMod then #[lMod] else #[lMod, rMod]
    | none => #[lMod]
  let stmtEnv ← loadEnv stmtMods
  let l ← findDecl stmtEnv lDecl "statement"
  let r ← match right with
    | some (_, rDecl) => pure (some (← findDecl stmtEnv rDecl "statement"))
    | none => pure none
  requireNoNativeReduction stmtEnv (l.type.getUsedConstants ++
    (r.map (·.type.getUsedConstants)).getD #[])
  let (exp, lps) ← expected stmtEnv kind l r
  let solEnv ← loadEnv #[solMod]
  let penv ← printEnv #[stmtEnv, solEnv]
  let expPP ← ppClosed stmtEnv penv exp
  match solEnv.find? thm with
  | some c@(.thmInfo _) =>
    let sameArity := c.levelParams.length == lps.length
    let actual := if sameArity then c.instantiateTypeLevelParams (lps.map Level.param) else c.type
    let eq := sameArity && actual == exp
    let bad := mismatches stmtEnv solEnv graphPrefix exp.getUsedConstants #[thm]
    return report "CheckRelation" [("expected_type", Json.str expPP),
      ("actual_type", Json.str (← ppClosed solEnv penv c.type)), ("detail", Json.str ""),
      ("theorems", Json.arr #[row solEnv thm true eq bad (axiomsOf solEnv thm)])]
  | _ =>
    return report "CheckRelation" [("expected_type", Json.str expPP),
      ("actual_type", Json.null), ("detail", Json.str s!"no theorem {thm} in {solMod}"),
      ("theorems", Json.arr #[row solEnv thm false false #[] #[]])]

def joinName : Name := `LemmataGate.RelationJoin.join

def runJoin (req : Json) : IO Json := do
  let kind ← IO.ofExcept ((← field req "kind").getStr?)
  let (pMod, pDecl) ← sideRef (← field req "premise")
  let (rMod, rDecl) ← sideRef (← field req "relation")
  let (cMod, cDecl) ← sideRef (← field req "conclusion")
  let graphPrefix := (cMod.components.head?).getD `Lemmata
  let stmtEnv ← loadEnv #[cMod]
  let c ← findDecl stmtEnv cDecl "conclusion's statement"
  let solEnv ← loadEnv (if pMod == rMod then #[pMod] else #[pMod, rMod])
  let p ← findDecl solEnv pDecl "premise's"
  let r ← findDecl solEnv rDecl "relation's"
  unless c.levelParams.isEmpty && p.levelParams.isEmpty && r.levelParams.isEmpty do
    throw (IO.userError "universe-polymorphic declarations are not joined")
  let exp ← match kind with
    | "implies" => pure c.type
    | "implies-not" => pure (notOf c.type)
    | k => throw (IO.userError s!"unknown join kind {k}")
  let expPP ← ppClosed stmtEnv (← printEnv #[stmtEnv, solEnv]) exp
  let bad := mismatches stmtEnv solEnv graphPrefix exp.getUsedConstants
  requireNoNativeReduction solEnv (exp.getUsedConstants ++ p.type.getUsedConstants ++
    r.type.getUsedConstants)
  let value := mkApp (mkConst rDecl) (mkConst pDecl)
  let decl := Declaration.thmDecl
    { name := joinName, levelParams := [], type := exp, value, all := [joinName] }
  -- the kernel decides: addDecl typechecks `value : exp` in the proofs' environment
  let (accepted, joinEnv, err) ← runMeta solEnv do
    try
      addDecl decl  -- synchronous: Elab.async is false in runMeta's empty options
      if ← MonadLog.hasErrors then
        return (false, solEnv, "the kernel logged an error while adding the join")
      return (true, ← getEnv, "")
    catch e =>
      return (false, solEnv, toString (← e.toMessageData.toString))
  let axioms := if accepted then axiomsOf joinEnv joinName else #[]
  return report "CheckRelation" [("expected_type", Json.str expPP),
    ("actual_type", Json.null), ("detail", Json.str err),
    ("theorems", Json.arr #[row joinEnv joinName true accepted bad axioms])]

end LemmataGate.Relation

open Lean LemmataGate LemmataGate.Relation in
def runCheckRelation (req : Json) : IO Json := do
  match (← field req "mode").getStr? with
  | .ok "check" => runCheck req
  | .ok "join" => runJoin req
  | _ => throw (IO.userError "mode must be \"check\" or \"join\"")

def main (args : List String) : IO UInt32 :=
  LemmataGate.mainWith "CheckRelation" runCheckRelation args
