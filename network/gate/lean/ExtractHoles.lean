/-
ExtractHoles (D-12 #5, D-29). Body only: run after Common.lean.

Request: {"module": [..], "decl": [..]}
Report:  {"checker": "ExtractHoles", "version": 1, "found": bool, "holes": [
           {"index", "name", "goal", "binders": [{"name", "type", "binder_info"}],
            "statement", "line", "column"}]}

Every `sorry` in the declaration's proof term is a hole; its expected type may mention the
locals of enclosing binders, so it is printed inside a MetaM telescope, and the hole's
statement is the goal closed over every local in scope (D-29 v3.22).

Checked against leanprover/lean4: src/Lean/Meta/Sorry.lean (isLabeledSorry?), src/Lean/LocalContext.lean
(getFVars), src/Lean/Meta/Basic.lean (withLocalDecl, withLetDecl, mkForallFVars).
-/
open Lean LemmataGate in
def runExtractHoles (req : Json) : IO Json := do
  let mod ← nameField req "module"
  let decl ← nameField req "decl"
  let env ← loadEnv #[mod]
  let some holes ← holesOf env decl
    | return report "ExtractHoles" [("found", Json.bool false), ("holes", Json.arr #[])]
  let mut rows := #[]
  let mut k := 0
  for h in holes do
    k := k + 1
    rows := rows.push (Json.mkObj [
      ("index", toJson k), ("name", nameJson h.name), ("goal", Json.str h.goal),
      ("binders", Json.arr h.binders), ("statement", Json.str h.statementPP),
      ("line", toJson h.line), ("column", toJson h.column)])
  return report "ExtractHoles" [("found", Json.bool true), ("holes", Json.arr rows)]

def main (args : List String) : IO UInt32 :=
  LemmataGate.mainWith "ExtractHoles" runExtractHoles args
