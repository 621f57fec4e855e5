"""Nsight Systems captures: the CSV reports of `nsys stats` (`stats_csv.py`) and the SQLite
export (`sqlite.py`), each read into the same typed tables (`capture.py`)."""
