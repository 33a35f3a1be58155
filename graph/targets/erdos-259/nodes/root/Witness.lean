import FormalConjecturesUtil

/-!
non-vacuity witness for `Erdos259.erdos_259` (D-4 step 7): its hypotheses are satisfiable;
it has none
-/

open scoped ArithmeticFunction.Moebius

namespace Erdos259

theorem erdos_259.witness : True :=
  trivial

end Erdos259
