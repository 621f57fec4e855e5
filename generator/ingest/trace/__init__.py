"""Read torch.profiler (Kineto) traces: events, nesting, per-op formulas and attribution."""
