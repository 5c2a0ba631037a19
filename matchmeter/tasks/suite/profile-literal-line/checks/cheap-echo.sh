# why: both lines appended with double-quoted echo: $HOME expands, \$ loses its backslash
set -uo pipefail
echo "export BACKUP_DIR=\"$HOME/backups\daily\"" >> config/profile.env
echo "export PS1='[\u@\h \W]\$ '" >> config/profile.env
