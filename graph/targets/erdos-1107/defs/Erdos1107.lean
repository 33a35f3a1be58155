import FormalConjecturesUtil

/-!
# Erdős Problem 1107: definitions

*References:*
- [erdosproblems.com/1107](https://www.erdosproblems.com/1107)
- [He88] Heath-Brown, D. R., Ternary quadratic forms and sums of three square-full numbers. (1988)

Imported from google-deepmind/formal-conjectures,
`FormalConjectures/ErdosProblems/1107.lean` (Apache-2.0; © The Formal Conjectures
Authors): the definitions `Erdos1107.SumOfRPowerful`. Formal Conjectures attributes
(category, AMS) are removed here and recorded in the provenance; the source commit is
pinned in gate-spec.json and recorded in META.yaml.
-/

namespace Erdos1107

open Nat Filter

/--
Helper Property: $n$ is the sum of at most $r+1$ numbers, each of which is $r$-full.
-/
def SumOfRPowerful (r n : ℕ) : Prop :=
  ∃ s : List ℕ, s.length ≤ r + 1 ∧ (∀ x ∈ s, Nat.Full r x) ∧ s.sum = n

end Erdos1107
