"""Widgets of the consultation app: one public widget per module."""
