"""Replaying recorded sessions through the app (`replay`, `demo`) and checking them (`--check`)."""
