"""Sample bundles and the live labs that produce them (the Flux lab, the LyftData simulator).

Not part of the installed ``bundler`` package: run from a checkout
(``python -m samples.flux_lab``) or imported by the test suite.
"""
