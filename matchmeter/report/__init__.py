"""The paper's tables and the self-contained HTML report, built from stored results tables and files
(never the runner): `tables` / `condition_tables` build DataFrames, `render` prints and writes them,
`svg` draws the plots and `html` assembles `matchmeter report`."""
