import FormalConjecturesUtil

/-!
# Erdős Problem 4: definitions

*Reference:* [erdosproblems.com/4](https://www.erdosproblems.com/4)

Imported from google-deepmind/formal-conjectures, `FormalConjectures/ErdosProblems/4.lean`
(Apache-2.0; © The Formal Conjectures Authors): the definitions `Erdos4.Erdos4For`. Formal
Conjectures attributes (category, AMS) are removed here and recorded in the provenance;
the source commit is pinned in gate-spec.json and recorded in META.yaml.
-/

open Real

namespace Erdos4

def Erdos4For (C : ℝ) : Prop :=
  {n : ℕ | (n + 1).nth Nat.Prime - n.nth Nat.Prime >
    C * log (log n) * log (log (log (log n))) / (log (log (log n))) ^ 2 * log n}.Infinite

end Erdos4
