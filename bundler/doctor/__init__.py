"""``bundler doctor`` as a library: the application layer over collect, products, archive, analyze.

:func:`run.run_doctor` validates a :class:`request.DoctorRequest` before the first connection
(:mod:`.request`), opens the sink (:mod:`.sinks`: a bundle or a throw-away live spool),
runs the collection engine (:mod:`bundler.collect`), normalizes and analyzes what was
collected (:mod:`.afterwards`), seals the bundle and sums the run up (:mod:`.summary`,
:mod:`.progress`). The CLI (:mod:`bundler.cli.doctor`) only turns flags into a request.
"""
