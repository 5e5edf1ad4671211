"""``python -m bundler`` is the same as the ``bundler`` command."""

from bundler.cli import main

if __name__ == "__main__":
    main()
