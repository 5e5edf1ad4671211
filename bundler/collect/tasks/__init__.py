"""What the engine collects: HTTP steps and fan-outs, host facts, commands, files and logs.

Each task runs over a transport (:mod:`bundler.collect.transports`) and hands its
output to the recorder; none opens a connection of its own.
"""
