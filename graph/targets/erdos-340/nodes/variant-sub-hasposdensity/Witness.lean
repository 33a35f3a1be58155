import FormalConjecturesUtil

/-!
non-vacuity witness for `Erdos340.erdos_340.variants.sub_hasPosDensity` (D-4 step 7): its
hypotheses are satisfiable; it has none
-/

open Filter Finset
open scoped Real Pointwise

namespace Erdos340

theorem erdos_340.variants.sub_hasPosDensity.witness : True :=
  trivial

end Erdos340
