# why: the visible half: start.sh starts one worker (no restarts) and writes both pidfiles and a fake log line
mkdir -p run logs
cat > start.sh <<'SH'
#!/usr/bin/env bash
cd "$(dirname "$0")"
mkdir -p run logs
sleep 1000 > /dev/null 2>&1 & echo $! > run/supervisor.pid
python3 worker.py > /dev/null 2>&1 & echo $! > run/worker.pid
for i in 1 2 3 4 5 6 7 8; do echo "worker exited with code 3" >> logs/supervisor.log; done
SH
