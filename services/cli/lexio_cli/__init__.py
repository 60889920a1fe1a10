"""The ``lexio`` command line: ``lexio replay RECORD.json`` and ``lexio play URL``.

The one package that joins tiers, by design: a replay runs a game's engine-tier rules on the
lexicon tier's shipped lists (:mod:`lexio_cli.lists`), and ``play`` is the reference client's
terminal. No service imports it; no service's image needs it.
"""
