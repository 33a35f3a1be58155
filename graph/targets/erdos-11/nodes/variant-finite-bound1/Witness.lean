import FormalConjecturesUtil

/-!
non-vacuity witness for `Erdos11.erdos_11.variants.finite_bound1` (D-4 step 7): its
hypotheses are satisfiable; the curator proves this before the import merges
-/

namespace Erdos11

theorem erdos_11.variants.finite_bound1.witness : ∃ (n : ℕ) (hn : Odd n) (h : n < 10^7) (hn' : 1 < n), True := by
  sorry

end Erdos11
