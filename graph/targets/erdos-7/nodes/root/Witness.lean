import FormalConjecturesUtil

/-!
non-vacuity witness for `Erdos7.erdos_7` (D-4 step 7): its hypotheses are satisfiable; it
has none
-/

namespace Erdos7

open Set

theorem erdos_7.witness : True :=
  trivial

end Erdos7
