"""The publishing layer: the standard splits' registry and downloads, dataset cards, Croissant."""
