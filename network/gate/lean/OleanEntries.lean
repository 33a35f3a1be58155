/-
OleanEntries (issue 32: the carried olean screened as data, D-4 step 4, v3.27). Body only:
run after Common.lean.

Request: {"modules": [[..], ..], "inert": [[..], ..]}
Report:  {"checker": "OleanEntries", "version": 1, "modules": [
           {"module": "A.B", "outside": [{"name": "Lean.Ext", "entries": 3}, ..]}, ..]}

For each contributor module it is given, the compiled files `importModules` would read are
read as data, with Lean's own reader, and never imported into an environment: no extension
state is built, no entry is evaluated, no initializer runs. The report lists, per module in
request order, every environment extension that holds at least one entry and is not named
in `inert` (the host's inert set, network/gate/olean_screen.py), with its entry count (the
largest count over the module's parts), sorted by name. The host refuses the module when
that list is not empty (`olean-extension-entry`).

Checked against leanprover/lean4 (no compiler has run this file):
* src/Lean/Environment.lean: `structure ModuleData` with `entries : Array (Name × Array
  EnvExtensionEntry)` (one pair per registered persistent extension, written by
  `mkModuleData` whether or not it is empty, so only non-empty ones are reported);
  `readModuleDataParts (fnames : @& Array System.FilePath) : IO (Array (ModuleData ×
  CompactedRegion))` ("The files must be (a prefix of) the result of a
  `saveModuleDataParts` call"); `writeModule` saves one `.olean` for a file outside the
  module system and `.olean`, `.olean.server`, `.olean.private` for a `module` file;
  `findOLeanParts` (private there, mirrored by `oleanParts` here) reads `findOLean m`, then
  `<olean>.server` when present and `<olean>.private` when both are present, the names
  `OLeanLevel.adjustFileName` builds with `FilePath.addExtension`;
* src/Lean/Util/Path.lean: `initSearchPath`, `findOLean (mod : Name) : IO FilePath` (the
  search path `lake env` sets, the carried folder included, as for every import);
* src/Init/System/FilePath.lean, src/Init/System/IO.lean: `FilePath.addExtension`,
  `FilePath.pathExists`.
The regions are never freed (`CompactedRegion.free` is `unsafe`): the process ends after the
report.
-/
open Lean LemmataGate in
/-- The compiled files of `m` that an import reads, in `saveModuleDataParts` order. -/
def oleanParts (m : Name) : IO (Array System.FilePath) := do
  let f ← findOLean m
  unless (← f.pathExists) do
    throw (IO.userError s!"no .olean for {m} at {f}")
  let mut out := #[f]
  let s := f.addExtension "server"
  if (← s.pathExists) then
    out := out.push s
    let p := f.addExtension "private"
    if (← p.pathExists) then
      out := out.push p
  return out

open Lean LemmataGate in
def runOleanEntries (req : Json) : IO Json := do
  let mods ← namesField req "modules"
  let inert ← namesField req "inert"
  initSearchPath (← findSysroot)
  let mut rows : Array Json := #[]
  for m in mods do
    let parts ← readModuleDataParts (← oleanParts m)
    let mut counts : Array (Name × Nat) := #[]
    for (data, _) in parts do
      for (ext, entries) in data.entries do
        if entries.size > 0 && !inert.contains ext then
          let prev := ((counts.find? (·.1 == ext)).map (·.2)).getD 0
          counts := (counts.filter (·.1 != ext)).push (ext, max prev entries.size)
    let sorted := counts.qsort (fun a b => Name.lt a.1 b.1)
    let outside := sorted.map fun (n, k) =>
      Json.mkObj [("name", nameJson n), ("entries", toJson k)]
    rows := rows.push (Json.mkObj [("module", nameJson m), ("outside", Json.arr outside)])
  return report "OleanEntries" [("modules", Json.arr rows)]

def main (args : List String) : IO UInt32 :=
  LemmataGate.mainWith "OleanEntries" runOleanEntries args
