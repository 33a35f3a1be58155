import FormalConjecturesUtil

/-!
non-vacuity witness for `Erdos250.erdos_250` (D-4 step 7): its hypotheses are satisfiable;
it has none
-/

open scoped ArithmeticFunction.sigma

namespace Erdos250

theorem erdos_250.witness : True :=
  trivial

end Erdos250
