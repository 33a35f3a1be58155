import FormalConjecturesUtil

/-!
non-vacuity witness for `Erdos340.erdos_340.variants._22_mem_sub` (D-4 step 7): its
hypotheses are satisfiable; it has none
-/

open Filter Finset
open scoped Real Pointwise

namespace Erdos340

theorem erdos_340.variants._22_mem_sub.witness : True :=
  trivial

end Erdos340
