"""Coverage-guided fuzzing of the decoders (issue 13): harnesses, the oracle, a
digest-fixing mutator, the seed corpus and the token dictionary. See
docs/robustness.md for how to run a campaign."""
