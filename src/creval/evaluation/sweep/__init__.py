"""Runs at several values of one option, and what a sweep says."""
