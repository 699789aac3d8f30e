"""What a run leaves: typed records and their files, the known-divergence registry,
the SQLite store, the aggregation that reports and the dashboard share, and reports."""
