import FormalConjecturesUtil

/-!
# Erdős Problem 236: definitions

*Reference:* [erdosproblems.com/236](https://www.erdosproblems.com/236)

Imported from google-deepmind/formal-conjectures,
`FormalConjectures/ErdosProblems/236.lean` (Apache-2.0; © The Formal Conjectures Authors):
the definitions `Erdos236.f`. Formal Conjectures attributes (category, AMS) are removed
here and recorded in the provenance; the source commit is pinned in gate-spec.json and
recorded in META.yaml.
-/

open Filter Asymptotics

namespace Erdos236

/--
$f(n)$ counts the number of solutions to $n=p+2^k$ for prime $p$ and $k\geq 0$.
-/
def f (n : ℕ) : ℕ :=
  ((List.range (Nat.log2 n + 1)).filter (fun k => Nat.Prime (n - 2^k))).length

end Erdos236
