"""The planner: how many instances of each NF, on which hosts, to meet the targets at least
cost (issue 7)."""
