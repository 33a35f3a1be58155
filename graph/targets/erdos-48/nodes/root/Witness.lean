import FormalConjecturesUtil

/-!
non-vacuity witness for `Erdos48.erdos_48` (D-4 step 7): its hypotheses are satisfiable;
it has none
-/

open scoped ArithmeticFunction.sigma

namespace Erdos48

theorem erdos_48.witness : True :=
  trivial

end Erdos48
