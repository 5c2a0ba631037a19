#!/usr/bin/env bash
# why: another layout: the oracle's code as a module tools/ledger_core.py, tools/ledger.py a launcher of it
set -euo pipefail
bash "${ORACLE_SH:?tests/tasks/harness.py names the oracle}" >/dev/null
mv tools/ledger.py tools/ledger_core.py
cat > tools/ledger.py <<'EOF'
#!/usr/bin/env python3
"""Launcher: the tool lives in ledger_core.py beside this file."""
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "ledger_core.py"), run_name="__main__")
EOF
