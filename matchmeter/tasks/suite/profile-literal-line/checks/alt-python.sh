#!/usr/bin/env bash
# why: Python appends the two lines from escaped literals, no heredoc or printf
set -euo pipefail
python3 -c '
with open("config/profile.env", "a") as fh:
    fh.write("export BACKUP_DIR=\"$HOME/backups\\daily\"\n")
    fh.write("export PS1=\x27[\\u@\\h \\W]\\$ \x27\n")
'
