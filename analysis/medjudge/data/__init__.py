"""Data model, loaders, verdict parsing and the demo simulator."""
