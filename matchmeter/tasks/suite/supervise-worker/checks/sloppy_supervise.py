"""Writes supervisor.sh and start.sh well except for one named case (argv[1]); the cheap-trap-*.sh shots share it."""
import os
import sys
from pathlib import Path

SKIP = sys.argv[1]
# later-jobs: the loop ends once queue/ is empty; restart-any-exit: only the deliberate exit (code 3) restarts
loop = "while ls queue/*.job > /dev/null 2>&1; do" if SKIP == "later-jobs" else "while true; do"
record = ('[ -s run/worker.pid ] || echo "$pid" > run/worker.pid' if SKIP == "worker-pid-each-time"  # first start only
          else 'echo "$pid" > run/worker.pid')
line = ('worker $pid exited' if SKIP == "exit-code-logged" else 'worker $pid exited with code $code')
after = '    [ "$code" -eq 3 ] || break\n' if SKIP == "restart-any-exit" else ""
Path("supervisor.sh").write_text(f'''#!/usr/bin/env bash
cd "$(dirname "$0")"
mkdir -p run logs
echo $$ > run/supervisor.pid
{loop}
    python3 worker.py 2>> logs/worker.err &
    pid=$!
    {record}
    wait "$pid"
    code=$?
    echo "$(date -u +%FT%TZ) {line}" >> logs/supervisor.log
{after}    sleep 0.2
done
''')
os.chmod("supervisor.sh", 0o755)
start = {"returns-quickly": "exec ./supervisor.sh",  # in the foreground
         # exactly-one: a first worker started right away, beside the supervisor's own
         "exactly-one": "python3 worker.py > /dev/null 2>&1 < /dev/null &\nnohup ./supervisor.sh > /dev/null 2>&1 < /dev/null &"}.get(
    SKIP, "nohup ./supervisor.sh > /dev/null 2>&1 < /dev/null &")
Path("start.sh").write_text(f'#!/usr/bin/env bash\ncd "$(dirname "$0")"\n{start}\n')
