"""Deck enrolment: a table learns a tournament's deck design from one photograph of its cards.

The cards are laid face up on a printed mat, one in each numbered slot, and the calibrated
camera photographs them. :mod:`~vision.enrolment.mat` owns the mat: where each card's slot lies
on the table (the one layout both the printed sheet and the capture use) and the printable
sheet itself. :mod:`~vision.enrolment.capture` reads a deck from photographs of the mat: each
slot's card is found, checked (empty, two cards, off its slot, covered, blurred) and rectified
into an upright face, and the faces are written as a deck folder in the format of
:mod:`vision.synth.decks` (``DECK/AS.png`` … ``deck.toml``), all at once or not at all.
:mod:`~vision.enrolment.adapt` fine-tunes the localiser and the classifier on synthetic scenes of
that deck and
writes the deck's own pair to ``DECK/model/`` when it reads the deck better than the bundled
one (needs the ``train`` extra); :mod:`~vision.enrolment.deck_model` says which model reads a
deck (``--deck DIR`` on the table commands).

Offline work, like :mod:`vision.calibration`'s marker page: the table-time reader never imports
it; the mat and the capture need only OpenCV and numpy, and ``deck_model`` nothing more.
"""
