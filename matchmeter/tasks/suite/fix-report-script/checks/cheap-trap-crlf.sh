# why: ignores CRLF line ends (the \r stays on the amount), does the rest well
cat > bin/report.sh <<'SH'
#!/usr/bin/env bash
total=0
lines=""
for f in data/*.csv; do
    [ -e "$f" ] || continue
    region=$(basename "$f" .csv)
    sum=$(tail -n +2 "$f" | awk -F, 'NF >= 3 { n = split($3, p, "."); c = (n > 1) ? p[2] : ""; while (length(c) < 2) c = c "0"; s += p[1] * 100 + substr(c, 1, 2) } END { printf "%d", s }')
    lines+=$(printf '%s: %d.%02d' "$region" $((sum / 100)) $((sum % 100)))$'\n'
    total=$((total + sum))
done
printf '%s' "$lines" | LC_ALL=C sort
printf 'TOTAL: %d.%02d\n' $((total / 100)) $((total % 100))
SH
