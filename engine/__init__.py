"""The 炒地皮 rules engine: cards, trump order, combinations, tricks, scoring, levels, match,
rule profiles, infractions and hand records — pure Python with no I/O and no dependencies.

Entry points: :func:`engine.record.load_record` turns a hand record (JSON) into a
:class:`~engine.record.HandRecord`; :func:`engine.audit.audit` reads it the way a referee does and
returns every trick, point, infraction with its proof, and the hand's result;
:func:`engine.profiles.get_profile` gives a regulation's knobs; :mod:`engine.simulate` deals and
plays legal hands (with planted infractions on request). See ``engine/README.md``.
"""
