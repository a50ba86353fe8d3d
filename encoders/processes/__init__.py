"""Process plumbing for outside solvers: the guard that ties a solver's process tree to its starter."""
