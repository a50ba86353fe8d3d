"""What users run: the CLI and the runners (race, crosscheck, bench, prove)."""
