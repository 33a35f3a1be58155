/-
UsedConstants (D-4 step 8, v3.25). Body only: run after Common.lean.

Request: {"module": [..], "decls": [[..], ..], "prefix": ["Lemmata"]}
Report:  {"checker": "UsedConstants", "version": 1, "constants": [..], "modules": [..],
          "missing": [..]}

The graph constants (defined in modules whose name starts with `prefix`) each
declaration's kernel term uses, and what they mean through: the closure that expands every
constant of the artifact's own `module` by its whole term (type and value, a proof
included, so auxiliary lemmas the elaborator split off count), and every other graph
constant by its meaning only (its type, a definition's value, an inductive's constructors;
`meaningDeps`), never by another node's proof. A use of a merged proof is a use of that
node (D-4 step 8, v3.25: a use is held to what the artifact's term touches); what that
proof itself used is its own declared business, and circularity through it is step 8's
graph walk (`ancestors_of`), not this term walk. Constants of non-graph modules (Lean,
Mathlib) cannot reach graph modules, so the walk does not expand them. The declarations
themselves are not reported.

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
  let deps := fun (ci : ConstantInfo) =>
    if moduleOf env ci.name == some mod then termDeps ci else meaningDeps ci
  let names := closure env deps inGraph (decls.filter fun d => (env.find? d).isSome)
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
