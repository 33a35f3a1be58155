/-
UsedConstants (D-4 step 8, v3.25). Body only: run after Common.lean.

Request: {"module": [..], "decls": [[..], ..], "prefix": ["Lemmata"]}
Report:  {"checker": "UsedConstants", "version": 1, "constants": [..], "modules": [..],
          "missing": [..]}

The transitive closure of the constants each declaration's kernel term uses (type and
value, a theorem's proof included), restricted to constants defined in graph modules (those
whose module name starts with `prefix`). Constants of non-graph modules (Lean, Mathlib)
cannot reach graph modules, so the walk does not expand them. The declarations themselves
are not reported.

Checked against leanprover/lean4: src/Lean/Util/FoldConsts.lean (getUsedConstants), src/Lean/Environment.lean
(getModuleIdxFor?, allImportedModuleNames), src/Lean/Data/Name.lean (isPrefixOf, lt).
-/
open Lean LemmataGate in
def runUsedConstants (req : Json) : IO Json := do
  let mod ← nameField req "module"
  let decls ← namesField req "decls"
  let pfx ← nameField req "prefix"
  let env ← loadEnv #[mod]
  let inGraph := fun (n : Name) => match moduleOf env n with
    | some m => pfx.isPrefixOf m
    | none => false
  let missing := decls.filter fun d => (env.find? d).isNone
  let names := closure env termDeps inGraph (decls.filter fun d => (env.find? d).isSome)
  let mut consts : Array Name := #[]
  let mut mods : Array Name := #[]
  for n in names.toList do
    if decls.contains n then continue
    if let some m := moduleOf env n then
      if pfx.isPrefixOf m then
        consts := consts.push n
        unless mods.contains m do mods := mods.push m
  return report "UsedConstants" [
    ("constants", namesJson (consts.qsort Name.lt)), ("modules", namesJson (mods.qsort Name.lt)),
    ("missing", namesJson missing)]

def main (args : List String) : IO UInt32 :=
  LemmataGate.mainWith "UsedConstants" runUsedConstants args
