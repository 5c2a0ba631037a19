"""Metrics over stored results tables (never the runner): AMS and its frozen calibration (`ams`,
`calibration`, `scoring`), the efficiency card (`efficiency`), harness-fairness scores (`fairness`),
transport damage (`transport`), statistics (`stats`) and description conditions (`conditions`).
`table.load_results` / `table.validate_results` are the only way in."""
