"""Replay: a split's parts as the scorer sees them, the judge of generated notifications, rewards."""
