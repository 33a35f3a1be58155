import FormalConjecturesUtil
import Lemmata.«erdos-1107».Defs.Erdos1107

/-!
# Erdős Problem 1107

*References:*
- [erdosproblems.com/1107](https://www.erdosproblems.com/1107)
- [He88] Heath-Brown, D. R., Ternary quadratic forms and sums of three square-full numbers. (1988)

Imported from google-deepmind/formal-conjectures,
`FormalConjectures/ErdosProblems/1107.lean` (Apache-2.0; © The Formal Conjectures
Authors): declaration `Erdos1107.erdos_1107.variants.two`, statement only. Formal
Conjectures attributes (category, AMS) are removed here and recorded in the provenance;
the source commit is pinned in gate-spec.json and recorded in META.yaml.
-/

namespace Erdos1107

open Nat Filter

/--
Heath-Brown [He88] proved every large integer the sum of at most three $2$-powerful numbers.
-/
theorem erdos_1107.variants.two : ∀ᶠ n in atTop, SumOfRPowerful 2 n := by
  sorry

end Erdos1107
