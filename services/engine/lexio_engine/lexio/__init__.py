"""Lexio's engine service: its codec and its servicer, beside al-Mishqaq's in one process."""
