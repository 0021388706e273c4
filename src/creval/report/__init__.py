"""Reports: Markdown files in the run directory and tables on the terminal."""
