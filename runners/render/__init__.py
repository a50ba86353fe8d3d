"""Rendering results: SVG, HTML pages and the bench report, plots, terminal tables, SPEC §4 JSON, BenchExec XML."""
