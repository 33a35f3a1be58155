import FormalConjecturesUtil

/-!
non-vacuity witness for `Erdos218.erdos_218.variants.le` (D-4 step 7): its hypotheses are
satisfiable; it has none
-/

namespace Erdos218

theorem erdos_218.variants.le.witness : True :=
  trivial

end Erdos218
