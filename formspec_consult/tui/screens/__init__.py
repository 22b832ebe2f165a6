"""Modal screens of the consultation app."""
