import FormalConjecturesUtil

/-!
non-vacuity witness for `Erdos196.erdos_196` (D-4 step 7): its hypotheses are satisfiable;
it has none
-/

namespace Erdos196

theorem erdos_196.witness : True :=
  trivial

end Erdos196
