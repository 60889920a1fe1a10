"""The lexicon service: the games' word lists (fr, en, ar) in memory, checked in batches."""
