/-
CheckStatement (D-4 steps 4-5, v3.25, v3.27). Body only: run after Common.lean.

Request: {"statement_module": [..], "solution_module": [..], "theorems": [[..], ..],
          "permitted_axioms": [[..], ..]}
Report:  {"checker": "CheckStatement", "version": 1, "theorems": [
           {"name", "found", "type_equal", "mismatched_constants": [..], "axioms": [..],
            "axiom_info": [{"name", "module", "type_key"}, ..]}]}

The statement and the solution are imported into two separate environments (their
theorems share a name), never one; the statement's text is never re-elaborated in the
solution's environment. For each theorem: the solution holds a theorem of that name whose
type and universe parameters equal the statement's (alpha-equivalence, `==`), and every
constant the statement's type means through is identical in the solution's environment
(Comparator's rule). The axioms of the solution's proof come from `axiomsOf` (a walk of the
kernel terms, Common.lean), each with its declaring module and identity key
(`axiom_info`); the Python side judges them against the allowlist and the pinned axiom
table (sorryAx, native axioms included).

Checked against leanprover/lean4: src/Lean/Environment.lean (find?, ConstantInfo.thmInfo), src/Lean/Declaration.lean
(ConstantInfo.type/levelParams), Common.lean's list for the rest.
-/
open Lean LemmataGate in
def runCheckStatement (req : Json) : IO Json := do
  let stmtMod ← nameField req "statement_module"
  let solMod ← nameField req "solution_module"
  let theorems ← namesField req "theorems"
  let graphPrefix := match stmtMod.components.head? with
    | some p => p
    | none => `Lemmata
  let stmtEnv ← loadEnv #[stmtMod]
  let solEnv ← loadEnv #[solMod]
  let mut rows : Array Json := #[]
  for n in theorems do
    let some s := stmtEnv.find? n
      | throw (IO.userError s!"statement module does not declare {n}")
    let (found, typeEqual, axioms) ← match solEnv.find? n with
      | some c@(.thmInfo _) =>
          let eq := c.type == s.type && c.levelParams == s.levelParams
          pure (true, eq, axiomsOf solEnv n)
      | _ => pure (false, false, #[])
    let bad := if found then mismatches stmtEnv solEnv graphPrefix #[n] #[n] else #[]
    rows := rows.push (Json.mkObj [
      ("name", nameJson n), ("found", Json.bool found), ("type_equal", Json.bool typeEqual),
      ("mismatched_constants", namesJson bad), ("axioms", namesJson axioms),
      ("axiom_info", axiomRows solEnv axioms)])
  return report "CheckStatement" [("theorems", Json.arr rows)]

def main (args : List String) : IO UInt32 :=
  LemmataGate.mainWith "CheckStatement" runCheckStatement args
