/-
Witness (D-4 step 7, D-29 v3.22). Body only: run after Common.lean.

Request: {"statement_module": [..], "decl": [..], "witness_module": [..],
          "witness_decl": [..], "keep": null | ["hn", ..]}
Report:  {"checker": "Witness", "version": 1, "found": bool, "type_matches": bool,
          "expected_type": str, "witness_type": str|null, "mismatched_constants": [..],
          "axioms": [..], "axiom_info": [{"name", "module", "type_key"}, ..]}

The expected witness type is built from the statement's type, never from its text: for
`∀ (x₁ : A₁) … (h₁ : P₁) …, C`, it is `∃ x₁ … xₙ, P₁ ∧ … ∧ Pₘ` over the data binders in
order with the conjunction of the hypotheses (`True` when there is none), the graph's
convention (graph/targets/*/nodes/*/Witness.lean). `keep` narrows the hypotheses to those
named (D-29 v3.22: the rest are discharged by the merged assembly). The witness
declaration's type must be definitionally equal to it in the witness's environment, after
every constant the expected type uses is checked identical there; the witness proof's
axioms are reported for the allowlist.

Checked against leanprover/lean4: src/Lean/Meta/Basic.lean (forallTelescope, isDefEq, mkLambdaFVars),
src/Lean/Meta/InferType.lean (inferType, getLevel, isProp), src/Lean/Environment.lean;
the binder once named `matches` (a term keyword: `e matches p`) is `typeOk`.
-/
namespace LemmataGate.Witness
open Lean Meta LemmataGate

/-- The expected witness type: `LemmataGate.hypothesesExists` (Common.lean), shared with
CheckRelation's vacuity kind so both read a statement's hypotheses the same way. -/
def expectedType (type : Expr) (keep : Option (Array String)) : MetaM Expr :=
  hypothesesExists type keep

end LemmataGate.Witness

open Lean Meta LemmataGate LemmataGate.Witness in
def runWitness (req : Json) : IO Json := do
  let stmtMod ← nameField req "statement_module"
  let decl ← nameField req "decl"
  let witMod ← nameField req "witness_module"
  let witDecl ← nameField req "witness_decl"
  let keepJ ← field req "keep"
  let keep ← match keepJ with
    | .null => pure none
    | j => pure (some (← IO.ofExcept (j.getArr? >>= (·.mapM (·.getStr?)))))
  let graphPrefix := (stmtMod.components.head?).getD `Lemmata
  let stmtEnv ← loadEnv #[stmtMod]
  let some s := stmtEnv.find? decl
    | throw (IO.userError s!"statement module does not declare {decl}")
  requireNoNativeReduction stmtEnv s.type.getUsedConstants
  let expected ← runMeta stmtEnv (expectedType s.type keep)
  let witEnv ← if witMod == stmtMod then pure stmtEnv else loadEnv #[witMod]
  let penv ← printEnv #[stmtEnv, witEnv]
  let expectedPP ← ppClosed stmtEnv penv expected
  let some w := witEnv.find? witDecl
    | return report "Witness" [("found", Json.bool false), ("type_matches", Json.bool false),
        ("expected_type", Json.str expectedPP), ("witness_type", Json.null),
        ("mismatched_constants", Json.arr #[]), ("axioms", Json.arr #[]),
        ("axiom_info", Json.arr #[])]
  let bad := mismatches stmtEnv witEnv graphPrefix expected.getUsedConstants
  requireNoNativeReduction witEnv (expected.getUsedConstants ++ w.type.getUsedConstants)
  let typeOk ← if bad.isEmpty then runMeta witEnv (isDefEq expected w.type) else pure false
  let axs := axiomsOf witEnv witDecl
  return report "Witness" [("found", Json.bool true), ("type_matches", Json.bool typeOk),
    ("expected_type", Json.str expectedPP), ("witness_type", Json.str (← ppClosed witEnv penv w.type)),
    ("mismatched_constants", namesJson bad), ("axioms", namesJson axs),
    ("axiom_info", axiomRows witEnv axs)]

def main (args : List String) : IO UInt32 :=
  LemmataGate.mainWith "Witness" runWitness args
