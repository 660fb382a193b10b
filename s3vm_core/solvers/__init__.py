"""One module per paper."""
