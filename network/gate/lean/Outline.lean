/-
Outline (D-3 v3.30). Body only: run after Common.lean.

Request: {"module": [..], "decls": [[..], ..], "source": "<path of the module's .lean file>"}
Report:  {"checker": "Outline", "version": 1, "missing": [..], "term_matches": bool,
          "steps": [{"kind", "name", "line", "column", "end_line", "end_column",
                     "lean_only", "in_kernel_term", "reads_back", "claim", "goal",
                     "constants": [..], "automation": [..]}]}

The named steps of a merged proof: every `have`, `show`, `suffices`, `obtain` and `calc`
tactic of the module's source, each with the claim it establishes, the goal it leaves,
the constants its term uses and the automation tactics (simp, omega, ...) run inside it.

It asserts nothing the kernel did not check (D-3 v3.30):
1. Before anything of the contributor's runs, the compiled module (the olean the gate
   built and replayed) is imported with no initializer (Common.loadEnv) and every binder,
   `let` and `have` type of each requested declaration's kernel term is keyed (Common's
   `exprKey`, closed over the locals it mentions), with the declaration's own conclusion.
2. The source is then elaborated by Lean's own frontend, as `lean` does (imports'
   initializers enabled, the run sandboxed like the step-3 build), collecting the info
   trees. The re-elaborated declarations must equal the compiled ones (`term_matches`).
3. A step's claim is printed only when (a) its key is among the kernel term's keys and
   (b) its printed text parses and elaborates back, in the step's context, to the same
   term ("reads back"). Any other step is `lean_only`: its position and nothing else, and
   the Python side shows its source text. No claim is ever guessed.
Only steps at positions in the source are reported (synthetic macro steps are not).

Checked against leanprover/lean4 (versions of 4.9-4.3x held by the index; the graph pins
v4.27.0 and v4.34.0):
* src/Lean/Elab/Frontend.lean: `Frontend.processCommand : FrontendM Bool`,
  `Frontend.getCommandState`, `Frontend.Context {inputCtx}`, `Frontend.State
  {commandState, parserState, cmdPos, commands}`; from v4.28 `elabCommandTopLevel` resets
  `infoState` per command, so trees are collected after each command (as leanprover-
  community/repl's processCommandsWithInfoTrees does); duplicates from older versions are
  removed by position;
* src/Lean/Elab/Import.lean: `processHeader header opts messages inputCtx` (the first four
  arguments in every version), `Parser.parseHeader`, `Parser.mkInputContext`;
* src/Lean/Elab/Command.lean: `Command.mkState env messages opts`, `infoState.enabled`;
  `Elab.async` defaults to false with empty options (src/Lean/CoreM.lean), so theorem
  bodies elaborate synchronously and their trees land in the command state;
* src/Lean/Elab/InfoTree/Types.lean: `TacticInfo extends ElabInfo` {stx, mctxBefore,
  goalsBefore, mctxAfter, goalsAfter}, `Info.ofTacticInfo`;
* src/Lean/Elab/InfoTree/Main.lean: `InfoTree.foldInfo (f : ContextInfo → Info → α → α)`,
  `ContextInfo.runMetaM (info) (lctx) (x : MetaM α) : IO α` (runs in `info.mctx`);
* src/Lean/Syntax.lean: `Syntax.getPos?`, `getTailPos?`; src/Lean/Data/Position.lean:
  `FileMap.toPosition`; src/Lean/Parser/Extension.lean: `Parser.runParserCategory env cat
  input : Except String Syntax`;
* src/Lean/Elab/Term.lean: `Term.elabType`, `Term.synthesizeSyntheticMVarsNoPostponing`,
  `TermElabM.run'`; src/Lean/Expr.lean: `Expr.containsFVar`; src/Lean/LocalContext.lean:
  `getFVars`, `LocalDecl.isImplementationDetail`, `LocalDecl.value?`;
* src/Lean/Util/Path.lean / Environment.lean: `enableInitializersExecution` (unsafe),
  `Environment.setMainModule`; src/Lean/Util/FoldConsts.lean: `Expr.getUsedConstants`.
-/
section Outline
open Lean Elab LemmataGate

/-- The first atom of a piece of syntax: the keyword a tactic starts with. -/
partial def olFirstAtom : Syntax → Option String
  | .atom _ v => some v
  | .node _ _ args => args.findSome? olFirstAtom
  | _ => none

def olStepKeywords : List String := ["have", "show", "suffices", "obtain", "calc"]

def olAutomationKeywords : List String :=
  ["simp", "simp_all", "simpa", "dsimp", "omega", "linarith", "nlinarith", "decide",
   "native_decide", "aesop", "norm_num", "positivity", "ring", "ring_nf", "field_simp",
   "tauto", "polyrith", "gcongr", "grind", "bv_decide", "exact?", "apply?", "trivial"]

/-- The locals `e` mentions, and those their types and values mention, in context order. -/
def olUsedLocals (e : Expr) : MetaM (Array Expr) := do
  let mut keep : Array Expr := #[]
  let mut need : Array Expr := #[e]
  for x in (← getLCtx).getFVars.reverse do
    let id := x.fvarId!
    if need.any (·.containsFVar id) then
      let d ← id.getDecl
      keep := keep.push x
      need := need.push d.type
      if let some v := d.value? then need := need.push v
  return keep.reverse

/-- `e` closed over the locals it mentions, keyed structurally (Common.exprKey). -/
def olClosedKey (e : Expr) : MetaM String := do
  let e ← instantiateMVars e
  return exprKey (← mkForallFVars (← olUsedLocals e) e)

/-- The keys of every binder, `let` and `have` type in a kernel term, walking it with its
locals in scope (as Common.visitHoles does). -/
partial def olTermKeys (acc : IO.Ref (Array String)) (e : Expr) : MetaM Unit := do
  match e with
  | .mdata _ b => olTermKeys acc b
  | .lam n t b bi =>
    let k ← olClosedKey t
    acc.modify (·.push k)
    olTermKeys acc t
    withLocalDecl n bi t fun x => olTermKeys acc (b.instantiate1 x)
  | .forallE n t b bi =>
    let k ← olClosedKey t
    acc.modify (·.push k)
    olTermKeys acc t
    withLocalDecl n bi t fun x => olTermKeys acc (b.instantiate1 x)
  | .letE n t v b _ =>
    let k ← olClosedKey t
    acc.modify (·.push k)
    olTermKeys acc t
    olTermKeys acc v
    withLetDecl n t v fun x => olTermKeys acc (b.instantiate1 x)
  | .app .. =>
    olTermKeys acc e.getAppFn
    for a in e.getAppArgs do
      olTermKeys acc a
  | .proj _ _ s => olTermKeys acc s
  | _ => pure ()

/-- The kernel keys of a compiled declaration: its term's binder types and its type's
conclusion, each closed over what it mentions. -/
def olKernelKeys (env : Environment) (decl : Name) : IO (Option (Array String)) := do
  let some ci := env.find? decl | return none
  runMeta env do
    let acc ← IO.mkRef #[]
    if let some v := ci.value? then olTermKeys acc v
    forallTelescope ci.type fun _ body => do
      let k ← olClosedKey body
      acc.modify (·.push k)
    acc.get

/-- Whether `s`, parsed as a term and elaborated here, is `e` again (D-3 v3.30 "printed so
that it reads back as the same Lean"). Any failure is false. -/
def olReadsBack (s : String) (e : Expr) : MetaM Bool := do
  try
    let some stx := (Parser.runParserCategory (← getEnv) `term s).toOption | return false
    let back ← Term.TermElabM.run' (do
        let t ← Term.elabType stx
        Term.synthesizeSyntheticMVarsNoPostponing
        instantiateMVars t)
    return exprKey back == exprKey (← instantiateMVars e)
  catch _ => return false

structure olStepData where
  kind : String
  start : Nat
  stop : Nat
  ctx : ContextInfo
  info : TacticInfo

def olStepPos (fm : FileMap) (b : Nat) : Position :=
  fm.toPosition ⟨b⟩

/-- The first goal after a step and the new locals it has over the first goal before. -/
def olNewLocals (ti : TacticInfo) : MetaM (Array Expr) := do
  let some g0 := ti.goalsBefore.head? | return #[]
  let some g1 := ti.goalsAfter.head? | return #[]
  let before := (← g0.getDecl).lctx
  let mut out := #[]
  for x in (← g1.getDecl).lctx.getFVars do
    let d ← x.fvarId!.getDecl
    if d.isImplementationDetail then continue
    if (before.find? x.fvarId!).isNone then out := out.push x
  return out

/-- One step's JSON row; the claim only when the kernel term holds it and it reads back. -/
def olStepRow (fm : FileMap) (keys : Array String) (termOk : Bool) (autos : Array String)
    (s : olStepData) : IO Json := do
  let p := olStepPos fm s.start
  let q := olStepPos fm s.stop
  let ci := { s.ctx with mctx := s.info.mctxAfter }
  let some g0 := s.info.goalsBefore.head?
    | return leanOnly s.kind p q
  let row : Bool × Json ← ci.runMetaM {} do
    let d0 ← g0.getDecl
    -- what the step establishes: its new hypotheses (have, obtain), else its goal after
    -- (show, suffices), else the goal it closed (calc)
    let fresh ← match s.info.goalsAfter.head? with
      | some g1 => do
        let d1 ← g1.getDecl
        withLCtx d1.lctx d1.localInstances (olNewLocals s.info)
      | none => pure #[]
    let picked : LocalContext × LocalInstances × Option Name × Expr ←
      match fresh.back?, s.info.goalsAfter.head? with
      | some x, some g1 => do
        let d1 ← g1.getDecl
        let ld ← withLCtx d1.lctx d1.localInstances x.fvarId!.getDecl
        pure (d1.lctx, d1.localInstances, some ld.userName, ld.type)
      | none, some g1 => do
        let d1 ← g1.getDecl
        pure (d1.lctx, d1.localInstances, none, d1.type)
      | _, none => pure (d0.lctx, d0.localInstances, none, d0.type)
    let (lctx, insts, name, claim) := picked
    withLCtx lctx insts do
      let claim ← instantiateMVars claim
      let inKernel := keys.contains (← olClosedKey claim)
      let text := toString (← ppExpr claim)
      let back ← olReadsBack text claim
      let goal ← match s.info.goalsAfter.head? with
        | some g1 => do
          let d1 ← g1.getDecl
          withLCtx d1.lctx d1.localInstances do
            pure (Json.str (toString (← ppExpr (← instantiateMVars d1.type))))
        | none => pure Json.null
      let term ← instantiateMVars (mkMVar g0)
      let consts := (term.getUsedConstants.qsort Name.lt)
      let ok := termOk && inKernel && back
      return (ok, Json.mkObj [
        ("kind", Json.str s.kind),
        ("name", match name with | some n => Json.str n.toString | none => Json.null),
        ("line", toJson p.line), ("column", toJson p.column),
        ("end_line", toJson q.line), ("end_column", toJson q.column),
        ("lean_only", Json.bool (!ok)), ("in_kernel_term", Json.bool inKernel),
        ("reads_back", Json.bool back),
        ("claim", if ok then Json.str text else Json.null),
        ("goal", if ok then goal else Json.null),
        ("constants", if ok then namesJson consts else Json.arr #[]),
        ("automation", if ok then Json.arr (autos.map Json.str) else Json.arr #[])])
  return row.2
where
  leanOnly (kind : String) (p q : Position) : Json := Json.mkObj [
    ("kind", Json.str kind), ("name", Json.null),
    ("line", toJson p.line), ("column", toJson p.column),
    ("end_line", toJson q.line), ("end_column", toJson q.column),
    ("lean_only", Json.bool true), ("in_kernel_term", Json.bool false),
    ("reads_back", Json.bool false), ("claim", Json.null), ("goal", Json.null),
    ("constants", Json.arr #[]), ("automation", Json.arr #[])]

/-- Run the command loop, collecting every command's info trees (v4.28+ resets them per
command; older versions accumulate, and duplicates are removed by position later). -/
partial def olCollectTrees (acc : Array InfoTree) (errors : Bool) :
    Frontend.FrontendM (Array InfoTree × Bool) := do
  let done ← Frontend.processCommand
  let st ← Frontend.getCommandState
  let acc := acc ++ st.infoState.trees.toArray
  let errors := errors || st.messages.hasErrors
  if done then return (acc, errors) else olCollectTrees acc errors

def runOutline (req : Json) : IO Json := do
  let mod ← nameField req "module"
  let decls ← namesField req "decls"
  let path ← IO.ofExcept ((← field req "source").getStr?)
  -- 1. the kernel-checked terms, before any of the contributor's code can run
  let kenv ← loadEnv #[mod]
  let missing := decls.filter fun d => (kenv.find? d).isNone
  let mut keys : Array String := #[]
  let mut compiled : Array (Name × String) := #[]
  for d in decls do
    if let some ks := (← olKernelKeys kenv d) then keys := keys ++ ks
    if let some ci := kenv.find? d then
      compiled := compiled.push (d, exprKey ci.type ++ "|" ++ (ci.value?.map exprKey).getD "")
  -- 2. the source, elaborated by Lean's frontend as `lean` would
  let input ← IO.FS.readFile path
  unsafe enableInitializersExecution
  let inputCtx := Parser.mkInputContext input path
  let (header, parserState, messages) ← Parser.parseHeader inputCtx
  let (env, messages) ← Elab.processHeader header {} messages inputCtx
  let env := env.setMainModule mod
  let cmdState := { Command.mkState env messages {} with infoState.enabled := true }
  let ((trees, errors), st) ← (olCollectTrees #[] false { inputCtx }).run
    { commandState := cmdState, parserState, cmdPos := parserState.pos }
  if errors || messages.hasErrors then
    throw (IO.userError "the source did not elaborate without errors")
  let fenv := st.commandState.env
  let termOk := compiled.all fun (d, k) => match fenv.find? d with
    | some ci => exprKey ci.type ++ "|" ++ (ci.value?.map exprKey).getD "" == k
    | none => false
  -- 3. the steps, by source position, each once
  let mut tactics : Array (Nat × Nat × String × ContextInfo × TacticInfo) := #[]
  for t in trees do
    tactics := t.foldInfo (init := tactics) fun ci i acc => match i with
      | .ofTacticInfo ti =>
        match ti.stx.getPos? (canonicalOnly := true), ti.stx.getTailPos? (canonicalOnly := true),
            olFirstAtom ti.stx with
        | some a, some b, some kw => acc.push (a.byteIdx, b.byteIdx, kw, ci, ti)
        | _, _, _ => acc
      | _ => acc
  let mut seen : Array (Nat × Nat × String) := #[]
  let mut rows : Array ((Nat × Nat) × Json) := #[]
  for (a, b, kw, ci, ti) in tactics do
    unless olStepKeywords.contains kw do continue
    if seen.contains (a, b, kw) then continue
    seen := seen.push (a, b, kw)
    let mut autos : Array String := #[]
    for (a', b', kw', _, _) in tactics do
      if a ≤ a' && b' ≤ b && olAutomationKeywords.contains kw' && !autos.contains kw' then
        autos := autos.push kw'
    rows := rows.push ((a, b), ← olStepRow inputCtx.fileMap keys termOk autos
      { kind := kw, start := a, stop := b, ctx := ci, info := ti })
  let rows := rows.qsort fun x y => x.1.1 < y.1.1 || (x.1.1 == y.1.1 && x.1.2 > y.1.2)
  return report "Outline" [
    ("missing", namesJson missing), ("term_matches", Json.bool termOk),
    ("steps", Json.arr (rows.map (·.2)))]

end Outline

def main (args : List String) : IO UInt32 :=
  LemmataGate.mainWith "Outline" runOutline args
