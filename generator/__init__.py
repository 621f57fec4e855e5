"""Roofline Atlas: Nsight Compute exports and measured training steps to a roofline report."""

__version__ = "0.1.0"
