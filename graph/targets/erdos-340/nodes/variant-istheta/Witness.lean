import FormalConjecturesUtil

/-!
non-vacuity witness for `Erdos340.erdos_340.variants.isTheta` (D-4 step 7): its hypotheses
are satisfiable; the curator proves this before the import merges
-/

open Filter Finset
open scoped Real Pointwise

namespace Erdos340

theorem erdos_340.variants.isTheta.witness : ∃ (ε : ℝ) (hε : ε > 0), True := by
  sorry

end Erdos340
