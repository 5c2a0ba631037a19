# why: ignores a last line without a newline (a plain while-read loop drops it), does the rest well
cat > bin/report.sh <<'SH'
#!/usr/bin/env bash
total=0
lines=""
for f in data/*.csv; do
    region=$(basename "$f" .csv)
    sum=0
    {
        read -r _header
        while IFS=, read -r _date _customer amount; do
            amount=${amount%$'\r'}
            whole=${amount%%.*}; frac=""; [[ $amount == *.* ]] && frac=${amount#*.}; frac="${frac}00"; cents=$((10#$whole * 100 + 10#${frac:0:2}))
            sum=$((sum + cents))
        done
    } < "$f"
    lines+=$(printf '%s: %d.%02d' "$region" $((sum / 100)) $((sum % 100)))$'\n'
    total=$((total + sum))
done
printf '%s' "$lines" | LC_ALL=C sort
printf 'TOTAL: %d.%02d\n' $((total / 100)) $((total % 100))
SH
