"""One module per report page; each declares itself once in the registry."""
