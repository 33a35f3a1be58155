import FormalConjecturesUtil

/-!
non-vacuity witness for `Erdos617.erdos_617` (D-4 step 7): its hypotheses are satisfiable;
the curator proves this before the import merges
-/

namespace Erdos617

theorem erdos_617.witness : ∃ (r : ℕ) (hr : r ≥ 3) (V : Type) (_ : Fintype V) (_ : DecidableEq V) (hV : Fintype.card V = r^2 + 1) (coloring : Sym2 V → Fin r), True := by
  sorry

end Erdos617
