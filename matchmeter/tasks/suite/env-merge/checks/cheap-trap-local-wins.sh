# why: ignores "local.env overrides both" (files read defaults, local, production), does the rest well
python3 "$(dirname "$0")/sloppy_env.py" local-wins
