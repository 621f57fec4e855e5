"""Analytic complexity: FLOPs, MACs, parameters, activations and bytes per layer (torch needed)."""

from generator.complexity.analyze import Complexity, analyze

__all__ = ["Complexity", "analyze"]
