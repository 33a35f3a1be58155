/-
ExtractHoles (D-12 #5, D-29). Body only: run after Common.lean.

Request: {"module": [..], "decl": [..]}
Report:  {"checker": "ExtractHoles", "version": 1, "found": bool, "holes": [
           {"index", "name", "goal", "binders": [{"name", "type", "binder_info"}],
            "statement", "line", "column"}]}

Every `sorry` in the declaration's proof term is a hole; its expected type may mention the
locals of enclosing binders, and the hole's statement is the goal closed over every local in
scope (D-29 v3.22). The module is read as data (`loadEnv`, no extension entry evaluated);
goal, binders and statement are printed in `printEnv` (the toolchain's and pinned
packages' modules, the partial's constants added as axioms), the goal and binders inside
the statement's reopened binders (Common.holeRow, issue 32).

Checked against leanprover/lean4: src/Lean/Meta/Sorry.lean (isLabeledSorry?), src/Lean/LocalContext.lean
(getFVars), src/Lean/Meta/Basic.lean (withLocalDecl, withLetDecl, mkForallFVars).
-/
open Lean LemmataGate in
def runExtractHoles (req : Json) : IO Json := do
  let mod ← nameField req "module"
  let decl ← nameField req "decl"
  let env ← loadEnv #[mod]
  requireNoNativeReduction env #[decl]
  let some holes ← holesOf env decl
    | return report "ExtractHoles" [("found", Json.bool false), ("holes", Json.arr #[])]
  let penv ← printEnv #[env]
  let mut rows := #[]
  let mut k := 0
  for h in holes do
    k := k + 1
    rows := rows.push (← holeRow env penv k h)
  return report "ExtractHoles" [("found", Json.bool true), ("holes", Json.arr rows)]

def main (args : List String) : IO UInt32 :=
  LemmataGate.mainWith "ExtractHoles" runExtractHoles args
