"""Pure analysis: no file I/O; frames and records in, results out."""
