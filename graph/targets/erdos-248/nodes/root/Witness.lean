import FormalConjecturesUtil

/-!
non-vacuity witness for `Erdos248.erdos_248` (D-4 step 7): its hypotheses are satisfiable;
it has none
-/

open scoped ArithmeticFunction.omega

namespace Erdos248

theorem erdos_248.witness : True :=
  trivial

end Erdos248
