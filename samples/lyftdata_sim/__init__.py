"""A LyftData control-plane simulator: a real HTTP server driven by scenario files.

``python -m samples.lyftdata_sim --scenario healthy --port 0`` serves the API
contract in ``bundler/products/lyftdata/openapi.yaml`` from the state a
scenario (``scenarios/*.yaml``) declares, and can prepare the scenario's
worker hosts (state directories, logs, stand-in tools) for SSH tests.
See docs/lyftdata-contract.md.
"""
