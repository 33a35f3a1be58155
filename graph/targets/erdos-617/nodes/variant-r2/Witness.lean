import FormalConjecturesUtil

/-!
non-vacuity witness for `Erdos617.erdos_617.variants.r2` (D-4 step 7): its hypotheses are
satisfiable; it has none
-/

namespace Erdos617

theorem erdos_617.variants.r2.witness : True :=
  trivial

end Erdos617
