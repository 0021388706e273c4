"""One invocation: the plan, the roles, presets, the run itself, grids and their cost."""
