/-
DefEq (D-12 offload rule; v3.21 offload-restates-ancestor). Body only: after Common.lean.

Request: {"left": {"module": [..], "decl": [..], "hole": null | k},
          "right": {"module": [..], "decl": [..], "hole": null | k}}
Report:  {"checker": "DefEq", "version": 1, "comparable": bool, "defeq": bool | null,
          "detail": str}

Each side is a declaration's type, or the k-th hole's statement (closed over its locals).
The right side's constants must be identical in the left side's environment (else
"comparable": false); then `isDefEq` at default transparency decides: the same term after
renaming bound variables, unfolding definitions and computing, with no theorem used.

Checked against leanprover/lean4: src/Lean/Meta/ExprDefEq.lean (isDefEq), src/Lean/Data/Json/Basic.lean
(getNat?), Common.lean's list for the rest.
-/
open Lean Meta LemmataGate in
def sideTerm (env : Environment) (side : Json) : IO Expr := do
  let decl ← nameField side "decl"
  let some ci := env.find? decl | throw (IO.userError s!"{decl} not found")
  match (← field side "hole") with
  | .null => pure ci.type
  | j =>
    let k ← IO.ofExcept j.getNat?
    let some holes ← holesOf env decl | throw (IO.userError s!"{decl} has no value")
    let some h := holes[k - 1]? | throw (IO.userError s!"{decl} has no hole {k}")
    pure h.statement

open Lean Meta LemmataGate in
def runDefEq (req : Json) : IO Json := do
  let left ← field req "left"
  let right ← field req "right"
  let lMod ← nameField left "module"
  let rMod ← nameField right "module"
  let lEnv ← loadEnv #[lMod]
  let rEnv ← if rMod == lMod then pure lEnv else loadEnv #[rMod]
  let l ← sideTerm lEnv left
  let r ← sideTerm rEnv right
  let graphPrefix := (lMod.components.head?).getD `Lemmata
  let bad := mismatches rEnv lEnv graphPrefix r.getUsedConstants
  unless bad.isEmpty do
    return report "DefEq" [("comparable", Json.bool false), ("defeq", Json.null),
      ("detail", Json.str s!"constants differ or are missing on the left: {bad.toList}")]
  requireNoNativeReduction lEnv (l.getUsedConstants ++ r.getUsedConstants)
  let d ← runMeta lEnv (isDefEq l r)
  return report "DefEq" [("comparable", Json.bool true), ("defeq", Json.bool d),
    ("detail", Json.str "")]

def main (args : List String) : IO UInt32 :=
  LemmataGate.mainWith "DefEq" runDefEq args
