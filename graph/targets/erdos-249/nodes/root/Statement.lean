import FormalConjecturesUtil

/-!
# Erdős Problem 249

*Reference:* [erdosproblems.com/249](https://www.erdosproblems.com/249)

Imported from google-deepmind/formal-conjectures,
`FormalConjectures/ErdosProblems/249.lean` (Apache-2.0; © The Formal Conjectures Authors):
declaration `Erdos249.erdos_249`, statement only. Formal Conjectures attributes (category,
AMS) are removed here and recorded in the provenance; the source commit is pinned in gate-
spec.json and recorded in META.yaml.
-/

open scoped Nat

namespace Erdos249

/--
Is
$$\sum_{n} \frac{\phi(n)}{2^n}$$
irrational? Here $\phi$ is the Euler totient function.
-/
theorem erdos_249 : answer(sorry) ↔ Irrational (∑' n : ℕ, (φ n) / (2 ^ n)) := by
  sorry

end Erdos249
