"""Parse Nsight Compute CSV exports into typed Polars frames."""

from generator.ingest.ncu_csv import KERNEL_SCHEMA, METRIC_SCHEMA, NcuExport, read_ncu_csv

__all__ = ["KERNEL_SCHEMA", "METRIC_SCHEMA", "NcuExport", "read_ncu_csv"]
