"""AMD's rocprofv3 output read into the Nsight Systems capture's timeline tables
(`nsys/sqlite.py`'s `SqliteExport`), so it is analysed, summarized, imported and shown as an
nsys capture is: its JSON (`json_export.py`) and its kernel trace CSV (`kernel_trace.py`)."""

from generator.ingest.rocprof.json_export import looks_like_rocprofv3, read_rocprofv3
from generator.ingest.rocprof.kernel_trace import looks_like_rocprofv3_csv, read_rocprofv3_csv
from generator.ingest.rocprof.records import RocprofExport

__all__ = [
    "RocprofExport",
    "looks_like_rocprofv3",
    "looks_like_rocprofv3_csv",
    "read_rocprofv3",
    "read_rocprofv3_csv",
]
