"""HTML reports of sweep results (issue 7)."""
