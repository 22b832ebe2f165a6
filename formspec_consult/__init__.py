"""formspec-consult: the AI consultation layer of FormSpec."""

__version__ = "0.1.0"
