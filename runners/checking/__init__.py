"""Checking answers: the replay gate, certificates, the DRUP checker, the trust policy and grading."""
