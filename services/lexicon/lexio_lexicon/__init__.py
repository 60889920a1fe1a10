"""The lexicon service: the French word list in memory, checked in batches."""
