"""``python -m semaprax``: the same command line as the ``semaprax`` script."""

from semaprax.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
