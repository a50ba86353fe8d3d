"""Cube-and-conquer (``prove --cubes N``): one hard board's refutation split into cubes refuted side by side.

- :mod:`sigmar.runners.cubes.split` grows the split and puts its certificate together (``CubeProver``);
- :mod:`sigmar.runners.cubes.node` works one node (and checks its proof) where a worker runs it;
- :mod:`sigmar.runners.cubes.pools` says where nodes run: this machine's processes or a Dask cluster.
"""
