import FormalConjecturesUtil

/-!
non-vacuity witness for `Erdos243.erdos_243` (D-4 step 7): its hypotheses are satisfiable;
the curator proves this before the import merges
-/

open Filter
open scoped Topology

namespace Erdos243

theorem erdos_243.witness : ∃ (a : ℕ → ℕ) (ha₀ : StrictMono a) (ha₁ : Tendsto (fun n ↦ (a n : ℝ) / a (n - 1) ^ 2) atTop (𝓝 1)) (ha₂ : Summable ((1 : ℚ) / a ·)), True := by
  sorry

end Erdos243
