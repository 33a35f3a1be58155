import FormalConjecturesUtil

/-!
non-vacuity witness for `Erdos249.erdos_249` (D-4 step 7): its hypotheses are satisfiable;
it has none
-/

open scoped Nat

namespace Erdos249

theorem erdos_249.witness : True :=
  trivial

end Erdos249
