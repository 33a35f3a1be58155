import FormalConjecturesUtil

/-!
non-vacuity witness for `Erdos60.erdos_60` (D-4 step 7): its hypotheses are satisfiable;
it has none
-/

namespace Erdos60

open SimpleGraph Filter
open scoped Real

theorem erdos_60.witness : True :=
  trivial

end Erdos60
