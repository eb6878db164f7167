"""HTML reports of sweep results."""
