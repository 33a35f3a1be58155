import FormalConjecturesUtil
import Lemmata.«erdos-236».Defs.Erdos236

/-!
non-vacuity witness for `Erdos236.erdos_236` (D-4 step 7): its hypotheses are satisfiable;
it has none
-/

open Filter Asymptotics

namespace Erdos236

theorem erdos_236.witness : True :=
  trivial

end Erdos236
