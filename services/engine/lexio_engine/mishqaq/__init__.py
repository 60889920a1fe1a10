"""al-Mishqaq's engine service: its codec and its servicer, beside Lexio's in one process."""
