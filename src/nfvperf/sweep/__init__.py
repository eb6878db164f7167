"""Parameter studies over a model, the simulator or the planner, on Dask."""
