"""Structural checks beyond the JSON Schema, one small module per concern.

`local` checks look at one document alone (their findings are cached with the parsed file);
`tree` checks look across documents through the `Index`.
"""
