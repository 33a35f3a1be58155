import FormalConjecturesUtil
import Lemmata.«erdos-139».Defs.Erdos139

/-!
non-vacuity witness for `Erdos139.erdos_139` (D-4 step 7): its hypotheses are satisfiable;
the curator proves this before the import merges
-/

open scoped Topology

namespace Erdos139

theorem erdos_139.witness : ∃ (k : ℕ) (hk : 1 < k), True := by
  sorry

end Erdos139
