"""The profile battery, a profile's runs, and what a profile says."""
