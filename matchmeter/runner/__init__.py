"""Execution: sandboxes, agents, transports, the trial lifecycle, the run store and the executor."""
