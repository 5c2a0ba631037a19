#!/usr/bin/env bash
# why: sqlite3 CLI imports the CSV and sums units*unit_price per region in SQL; no top.txt scratch file
set -euo pipefail
mkdir -p answer
sqlite3 -batch :memory: <<'SQL_END' > answer/.top
.mode csv
.import data/sales.csv sales
.mode list
.separator |
SELECT region, printf('%.2f', SUM(CAST(units AS REAL) * CAST(unit_price AS REAL))) AS rev
FROM sales GROUP BY region ORDER BY SUM(CAST(units AS REAL) * CAST(unit_price AS REAL)) DESC LIMIT 1;
SQL_END
cut -d'|' -f1 answer/.top > answer/region.txt
cut -d'|' -f2 answer/.top > answer/revenue.txt
rm answer/.top
