"""How the engine reaches things: the control plane over HTTP, hosts over SSH or locally.

A transport knows how to talk, bound in time and size, and nothing about what to
collect; the tasks in :mod:`bundler.collect.tasks` decide that.
"""
