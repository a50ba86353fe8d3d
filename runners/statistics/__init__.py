"""The numbers a benchmark is judged by (PAR-2, VBS, the percentile, paired comparisons).

Below both the engines and the renderers: ``bench`` and the race compute with them,
``render`` shows them, and neither has to import the other for it.
"""
