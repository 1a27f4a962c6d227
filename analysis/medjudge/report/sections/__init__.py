"""Report sections: one small module each, returning tables, figures and text from results."""
