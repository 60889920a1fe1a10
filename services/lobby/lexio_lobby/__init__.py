"""The lobby service: game-agnostic tables, invite codes, seats, host and start."""
