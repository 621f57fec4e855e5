"""Every on-disk format of measurements/ as a typed record with one versioned loader."""
