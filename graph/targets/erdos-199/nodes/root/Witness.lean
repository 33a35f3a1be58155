import FormalConjecturesUtil

/-!
non-vacuity witness for `Erdos199.erdos_199` (D-4 step 7): its hypotheses are satisfiable;
it has none
-/

namespace Erdos199

theorem erdos_199.witness : True :=
  trivial

end Erdos199
