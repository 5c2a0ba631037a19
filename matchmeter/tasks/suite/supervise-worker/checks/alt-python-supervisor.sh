# why: a Python supervisor (subprocess.Popen + wait) started detached with setsid -f instead of a bash loop
mkdir -p run logs
cat > supervisor.py <<'PY'
import os, subprocess, sys, time
os.chdir(os.path.dirname(os.path.abspath(__file__)))
os.makedirs("run", exist_ok=True); os.makedirs("logs", exist_ok=True)
with open("run/supervisor.pid", "w") as f:
    f.write(f"{os.getpid()}\n")
while True:
    worker = subprocess.Popen([sys.executable, "worker.py"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open("run/worker.pid.new", "w") as f:
        f.write(f"{worker.pid}\n")
    os.replace("run/worker.pid.new", "run/worker.pid")
    code = worker.wait()
    with open("logs/supervisor.log", "a") as log:
        log.write(f"{time.strftime('%FT%T')} worker {worker.pid} exit code {code}\n")
    time.sleep(0.1)
PY
cat > start.sh <<'SH'
#!/usr/bin/env bash
cd "$(dirname "$0")"
setsid -f python3 supervisor.py < /dev/null > /dev/null 2>&1
SH
