"""``bundler redact`` and ``bundler review``: the I/O around the ``redactors`` engine.

* :mod:`.tree` walks a source file or directory (never following symlinks)
  and redacts every file in two passes (a process pool when there are several
  files: :mod:`.workers`, :mod:`.pool`); :mod:`.outputs` writes what they give
  as a redacted directory or an encrypted bundle; :mod:`.config` is what a run
  is given and returns, :mod:`.naming` the names of its outputs.
* :mod:`.reviewing` opens a directory or a bundle and runs the independent
  residual-secret scan.
* :mod:`.request` is a ``bundler redact`` run as a library call (:class:`~.request.RedactRequest`,
  checked and its secrets settled before any file is read).
* :mod:`.mapfile` writes and reads the optional reversible map (token ->
  original), encrypted, kept by the customer outside the bundle.
"""
