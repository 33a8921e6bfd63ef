"""Before the first trick, and the table's incidents beside the tricks.

This package owns what a hand record says about everything that is not a play of a trick: the
draw (who shuffles, cuts and draws first, and in which direction), each declaration and 炒
(叫主/反主/炒底, placed face down or shown, and when revealed), the kitty's pick-ups and
re-burials, a no-bid kitty flip, redeals, and the cards exposed or taken back (悔牌) during the
hand — the record's fields (:mod:`engine.preplay.fields`), their audit under a rule profile
(:mod:`engine.preplay.declarations`: declarations, 炒, the kitty's moves, and the trump and
dealer they give; :mod:`engine.preplay.table`: the draw, re-burial times, redeals, exposed
cards and takebacks), the findings as data with the English sentences of their proofs
(:mod:`engine.preplay.proofs`), what the auditor calls (:mod:`engine.preplay.referee`:
:func:`~engine.preplay.referee.check_before_play`, and the result of a hand a false declaration
ends) and the simulator's draw and bidding (:mod:`engine.preplay.bidding`).

It sits in a sub-package so that ``engine/`` keeps to sixteen modules side by side. Its modules
import the engine's cards, profiles, order, record and scoring, never :mod:`engine.audit`
(which imports them); :mod:`engine.preplay.fields` imports neither record nor audit, since
:mod:`engine.record` builds on it. This file imports nothing, so importing the fields alone
pulls in no more.
"""
