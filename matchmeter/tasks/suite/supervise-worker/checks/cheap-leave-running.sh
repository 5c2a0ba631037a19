# why: the old contract: drain the queue now and leave a supervisor loop running, no start.sh
mkdir -p run logs
cat > supervisor.sh <<'SH'
#!/usr/bin/env bash
echo $$ > run/supervisor.pid
while true; do python3 worker.py & echo $! > run/worker.pid; wait $!; echo "exit $?" >> logs/supervisor.log; done
SH
nohup bash supervisor.sh > /dev/null 2>&1 &
for _ in $(seq 100); do [ -z "$(ls queue)" ] && break; sleep 0.1; done
