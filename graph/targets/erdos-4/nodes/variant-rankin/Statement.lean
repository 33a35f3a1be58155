import FormalConjecturesUtil
import Lemmata.«erdos-4».Defs.Erdos4

/-!
# Erdős Problem 4

*Reference:* [erdosproblems.com/4](https://www.erdosproblems.com/4)

Imported from google-deepmind/formal-conjectures, `FormalConjectures/ErdosProblems/4.lean`
(Apache-2.0; © The Formal Conjectures Authors): declaration
`Erdos4.erdos_4.variants.rankin`, statement only. Formal Conjectures attributes (category,
AMS) are removed here and recorded in the provenance; the source commit is pinned in gate-
spec.json and recorded in META.yaml.
-/

open Real

namespace Erdos4

/-- Rankin's theorem: there exists a positive constant $C$ such that `Erdos4For C` holds. -/
theorem erdos_4.variants.rankin :
    ∃ C > 0, Erdos4For C := by
  sorry

end Erdos4
