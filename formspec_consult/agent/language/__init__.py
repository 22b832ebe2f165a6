"""The session's reply language: detecting it (`detect`), keeping it (`lock`)."""
