"""Measuring steps on this machine: timing, profiler ops, ceilings, provenance, ncu."""
