"""Samples: sample bundles, the Flux lab and the LyftData simulator (not part of the runtime)."""
