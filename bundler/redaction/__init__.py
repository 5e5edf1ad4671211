"""``bundler redact`` and ``bundler review``: the I/O around the ``redactors`` engine.

* :mod:`.tree` walks a source file or directory (never following symlinks),
  redacts every file in two passes (a process pool when there are several
  files) and writes a redacted directory or an encrypted bundle.
* :mod:`.reviewing` opens a directory or a bundle and runs the independent
  residual-secret scan.
* :mod:`.request` is a ``bundler redact`` run as a library call (:class:`~.request.RedactRequest`,
  checked and its secrets settled before any file is read).
* :mod:`.mapfile` writes and reads the optional reversible map (token ->
  original), encrypted, kept by the customer outside the bundle.
"""
