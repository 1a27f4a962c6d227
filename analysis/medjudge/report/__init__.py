"""Figures, tables and report rendering."""
