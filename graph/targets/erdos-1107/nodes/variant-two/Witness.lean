import FormalConjecturesUtil
import Lemmata.«erdos-1107».Defs.Erdos1107

/-!
non-vacuity witness for `Erdos1107.erdos_1107.variants.two` (D-4 step 7): its hypotheses
are satisfiable; it has none
-/

namespace Erdos1107

open Nat Filter

theorem erdos_1107.variants.two.witness : True :=
  trivial

end Erdos1107
