"""``python -m callbreak`` runs the command line."""

from callbreak.cli import entry_point

entry_point()
