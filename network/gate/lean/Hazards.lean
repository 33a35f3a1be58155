/-
Hazards (D-4 step 6). Body only: run after Common.lean.

Request: {"module": [..], "decls": [[..], ..], "checkers": ["nat-subtraction", ..]}
Report:  {"checker": "Hazards", "version": 1, "missing": [..], "findings": [
           {"checker", "decl", "location", "subterm", "proposition", "message", "line"}]}

Static checks over each declaration's type (the statement, which cannot change after
admission), walked inside a telescope so subterms print with their binder names:
* nat-subtraction:   `a - b` at type ℕ (truncates at zero);
* division-by-zero:  `a / b`, `a % b` whose divisor is not a nonzero numeral, and `x⁻¹`
                     (all return a junk value at zero);
* junk-values:       functions with junk values outside their domain (Real.log, Real.sqrt,
                     Nat.pred, tsum, deriv, integrals, sSup/sInf, cardinalities, ...);
* int-truncation:    `/` at ℕ or ℤ (rounds), Int.toNat (clips negatives);
* unused-binders:    a data binder nothing later depends on (hypotheses and instances are
                     exempt: proofs never occur in a statement's body);
* off-by-one-ranges: ranges with an open end (Finset.range, Ico, Ioc, Ioo, List.range).
A finding's location is "<decl>: <subterm>", what META.yaml's acknowledged_hazards name.
The module is read as data (`loadEnv`: no extension entry evaluated, issue 32), so its
declaration ranges (`declRangeExt`, extension data) are not read: `line` is always null and
the gate finds the declaration's line in the statement's own source (step6_hazards.py).
Subterms print in `printEnv` (Common.ppHere).

Checked against leanprover/lean4: src/Lean/Expr.lean (isAppOfArity, getAppFn, consumeMData, rawNatLit?, containsFVar),
src/Lean/Meta/Basic.lean (forallTelescope, withLocalDecl, withLetDecl).
-/
namespace LemmataGate.Hazards
open Lean Meta LemmataGate

def junkFns : List Name :=
  [`Real.log, `Real.logb, `Real.sqrt, `Real.arcsin, `Real.arccos, `Real.rpow, `Nat.pred,
   `Nat.log, `Nat.clog, `ENNReal.toReal, `ENNReal.toNNReal, `EReal.toReal, `tsum, `deriv,
   `fderiv, `derivWithin, `MeasureTheory.integral, `intervalIntegral, `SupSet.sSup,
   `InfSet.sInf, `iSup, `iInf, `Nat.card, `Set.ncard, `Finset.max', `Polynomial.natDegree,
   `Polynomial.leadingCoeff, `limUnder, `Filter.limsup, `Filter.liminf, `Nat.factorization,
   `Classical.choose, `Real.Gamma]

def rangeFns : List Name :=
  [`Finset.range, `List.range, `Finset.Ico, `Finset.Ioc, `Finset.Ioo, `Set.Ico, `Set.Ioc,
   `Set.Ioo, `List.range']

def isNonzeroNumeral (e : Expr) : Bool :=
  let e := e.consumeMData
  if e.isAppOfArity ``OfNat.ofNat 3 then
    match (e.getArg! 1).rawNatLit? with
    | some n => n != 0
    | none => false
  else match e.rawNatLit? with
    | some n => n != 0
    | none => false

def isConstOf' (e : Expr) (n : Name) : Bool := e.consumeMData.isConstOf n

structure Ctx where
  pc : PrintCtx
  decl : Name
  checkers : Array String
  acc : IO.Ref (Array Json)
  line : Option Nat

def emit (c : Ctx) (checker : String) (sub prop : Expr) (msg : String) : MetaM Unit := do
  unless c.checkers.contains checker do return
  let s ← ppHere c.pc sub
  let p ← ppHere c.pc prop
  let loc := s!"{c.decl}: {s}"
  c.acc.modify (·.push (Json.mkObj [
    ("checker", Json.str checker), ("decl", nameJson c.decl),
    ("location", Json.str loc),  -- cut to 200 characters by the Python side
    ("subterm", Json.str s), ("proposition", Json.str p), ("message", Json.str msg),
    ("line", toJson c.line)]))

def isPropSafe (e : Expr) : MetaM Bool := do
  try isProp e catch _ => pure false

def checkApp (c : Ctx) (e prop : Expr) : MetaM Unit := do
  let fn := e.getAppFn.consumeMData
  let args := e.getAppArgs
  if e.isAppOfArity ``HSub.hSub 6 && isConstOf' args[0]! ``Nat then
    emit c "nat-subtraction" e prop "natural-number subtraction truncates at zero"
  if (e.isAppOfArity ``HDiv.hDiv 6 || e.isAppOfArity ``HMod.hMod 6) &&
      !isNonzeroNumeral args[5]! then
    emit c "division-by-zero" e prop "division by zero returns a junk value; is the divisor nonzero?"
  if e.isAppOfArity ``Inv.inv 3 then
    emit c "division-by-zero" e prop "the inverse of zero is zero"
  if e.isAppOfArity ``HDiv.hDiv 6 && (isConstOf' args[0]! ``Nat || isConstOf' args[0]! ``Int) then
    emit c "int-truncation" e prop "integer division rounds"
  if let .const n _ := fn then
    if n == `Int.toNat then
      emit c "int-truncation" e prop "Int.toNat clips negative values to 0"
    if junkFns.contains n then
      emit c "junk-values" e prop s!"{n} returns a junk value outside its domain"
    if rangeFns.contains n then
      emit c "off-by-one-ranges" e prop s!"{n} excludes an endpoint; is that intended?"

/-- Walk `e`, entering binders; `prop` is the smallest enclosing proposition. -/
partial def visit (c : Ctx) (e prop : Expr) : MetaM Unit := do
  let prop ← if e.hasLooseBVars then pure prop
    else if (← isPropSafe e) then pure e else pure prop
  match e with
  | .mdata _ b => visit c b prop
  | .forallE n t b bi =>
    visit c t prop
    withLocalDecl n bi t fun x => visit c (b.instantiate1 x) prop
  | .lam n t b bi =>
    visit c t prop
    withLocalDecl n bi t fun x => visit c (b.instantiate1 x) prop
  | .letE n t v b _ =>
    visit c t prop
    visit c v prop
    withLetDecl n t v fun x => visit c (b.instantiate1 x) prop
  | .app .. =>
    checkApp c e prop
    visit c e.getAppFn prop
    for a in e.getAppArgs do visit c a prop
  | .proj _ _ s => visit c s prop
  | _ => pure ()

/-- Data binders of the statement's telescope that nothing after them mentions. -/
def unusedBinders (c : Ctx) (type : Expr) : MetaM Unit :=
  forallTelescope type fun xs body => do
    for i in [0:xs.size] do
      let x := xs[i]!
      let d ← x.fvarId!.getDecl
      if d.binderInfo.isInstImplicit then continue
      if ← isPropSafe d.type then continue
      let later := (xs.extract (i+1) xs.size).toList
      let mut used := body.containsFVar x.fvarId!
      for y in later do
        if (← y.fvarId!.getDecl).type.containsFVar x.fvarId! then used := true
      unless used do
        emit c "unused-binders" x body s!"binder {d.userName} is not used by the statement"

end LemmataGate.Hazards

open Lean Meta LemmataGate LemmataGate.Hazards in
def runHazards (req : Json) : IO Json := do
  let mod ← nameField req "module"
  let decls ← namesField req "decls"
  let checkers ← IO.ofExcept ((← field req "checkers").getArr? >>= (·.mapM (·.getStr?)))
  let env ← loadEnv #[mod]
  requireNoNativeReduction env (decls.filter fun d => (env.find? d).isSome)
  let pc : PrintCtx := { data := env, penv := ← printEnv #[env] }
  let acc ← IO.mkRef #[]
  let mut missing := #[]
  for d in decls do
    match env.find? d with
    | none => missing := missing.push d
    | some ci =>
      runMeta env do
        let line : Option Nat := none  -- declaration ranges are extension data (issue 32)
        let c : Ctx := { pc, decl := d, checkers, acc, line }
        visit c ci.type ci.type
        unusedBinders c ci.type
  return report "Hazards" [("missing", namesJson missing), ("findings", Json.arr (← acc.get))]

def main (args : List String) : IO UInt32 :=
  LemmataGate.mainWith "Hazards" runHazards args
