"""Open-ended benchmarks of seed 001: MacGyver, HypoGen and BookMIA."""
