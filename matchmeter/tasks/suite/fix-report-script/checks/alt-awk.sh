# why: one awk program over all files (FILENAME gives the region) instead of a bash loop, cents as integers
cat > bin/report.sh <<'SH'
#!/usr/bin/env bash
# Per-region sales totals in integer cents; CRLF and a missing final newline are handled by awk.
awk -F, '
FNR == 1 { region = FILENAME; sub(/^.*\//, "", region); sub(/\.csv$/, "", region); seen[region] = 1; next }
{ sub(/\r$/, ""); if (NF < 3) next
  n = split($3, p, "."); c = (n > 1) ? p[2] : ""; while (length(c) < 2) c = c "0"
  cents = p[1] * 100 + substr(c, 1, 2); sums[region] += cents; total += cents }
END { for (r in seen) printf "%s: %d.%02d\n", r, int(sums[r] / 100), sums[r] % 100 | "LC_ALL=C sort"
      close("LC_ALL=C sort"); printf "TOTAL: %d.%02d\n", int(total / 100), total % 100 }' data/*.csv
SH
