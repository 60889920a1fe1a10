"""Issue 41: a blind player plays both games to the end with a real screen reader (Orca)."""
