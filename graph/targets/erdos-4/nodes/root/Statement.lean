import FormalConjecturesUtil
import Lemmata.«erdos-4».Defs.Erdos4

/-!
# Erdős Problem 4

*Reference:* [erdosproblems.com/4](https://www.erdosproblems.com/4)

Imported from google-deepmind/formal-conjectures, `FormalConjectures/ErdosProblems/4.lean`
(Apache-2.0; © The Formal Conjectures Authors): declaration `Erdos4.erdos_4`, statement
only. Formal Conjectures attributes (category, AMS) are removed here and recorded in the
provenance; the source commit is pinned in gate-spec.json and recorded in META.yaml.
-/

open Real

namespace Erdos4

/--
Is it true that, for any $C > 0$, there infinitely many $n$ such that:
$$
  p_{n + 1} - p_n > C \frac{\log\log n\log\log\log\log n}{(\log\log\log n) ^ 2}\log n
$$
-/
theorem erdos_4 : answer(True) ↔ (∀ C > 0, Erdos4For C) := by
  sorry

end Erdos4
