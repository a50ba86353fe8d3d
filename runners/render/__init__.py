"""Rendering results: SVG, HTML pages and the bench report, plots, terminal tables, the answer JSON, BenchExec XML."""
