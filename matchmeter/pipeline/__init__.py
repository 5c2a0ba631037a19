"""Whole-pipeline orchestration: `evaluate` (targets under description conditions) and `demo`.

This layer sits between the CLI and the optimizer/metrics/report layer (cli → pipeline → optimizer,
metrics, report → runner, gate → llm, tasks → schema): it is the only place that joins running,
optimizing and scoring, so none of those modules needs to import another of its own layer.
"""
