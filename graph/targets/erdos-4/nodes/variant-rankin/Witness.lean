import FormalConjecturesUtil
import Lemmata.«erdos-4».Defs.Erdos4

/-!
non-vacuity witness for `Erdos4.erdos_4.variants.rankin` (D-4 step 7): its hypotheses are
satisfiable; it has none
-/

open Real

namespace Erdos4

theorem erdos_4.variants.rankin.witness : True :=
  trivial

end Erdos4
