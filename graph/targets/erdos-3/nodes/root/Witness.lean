import FormalConjecturesUtil

/-!
non-vacuity witness for `Erdos3.erdos_3` (D-4 step 7): its hypotheses are satisfiable; it
has none
-/

namespace Erdos3

theorem erdos_3.witness : True :=
  trivial

end Erdos3
