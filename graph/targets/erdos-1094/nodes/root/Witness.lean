import FormalConjecturesUtil

/-!
non-vacuity witness for `Erdos1094.erdos_1094` (D-4 step 7): its hypotheses are
satisfiable; it has none
-/

namespace Erdos1094

open scoped Nat

theorem erdos_1094.witness : True :=
  trivial

end Erdos1094
