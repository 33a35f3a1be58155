import FormalConjecturesUtil

/-!
non-vacuity witness for `Erdos109.erdos_109` (D-4 step 7): its hypotheses are satisfiable;
the curator proves this before the import merges
-/

open Pointwise

namespace Erdos109

theorem erdos_109.witness : ∃ (A : Set ℕ) (h : A.upperDensity > 0), True := by
  sorry

end Erdos109
