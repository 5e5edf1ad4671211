"""The one-command demo: a real fleet breaks, bundler collects, analyzes and reviews it.

``scripts/demo.sh`` (or ``python -m samples.demo``) starts a real Flux server
and two workers, runs a workflow, hangs a worker until Flux evicts it, runs
``bundler doctor --bundle``, stops the fleet, then ``bundler analyze`` and
``bundler review`` on the bundle, narrating each step. Without Flux it says
why in one line and does the same against the LyftData simulator. Every
process it starts is stopped, also on Ctrl-C or failure, and checked.
"""
