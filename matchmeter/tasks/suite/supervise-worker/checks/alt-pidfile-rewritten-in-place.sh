# why: worker.pid rewritten in place, and slowly: it stays empty for 0.4 s after each start, which a verifier reading it then must wait out
mkdir -p run logs
cat > supervisor.sh <<'SH'
#!/usr/bin/env bash
cd "$(dirname "$0")"
echo $$ > run/supervisor.pid
while true; do
    python3 worker.py 2>> logs/worker.err &
    pid=$!
    : > run/worker.pid
    sleep 0.4
    echo "$pid" > run/worker.pid
    wait "$pid"
    echo "worker $pid exited with code $?" >> logs/supervisor.log
done
SH
chmod +x supervisor.sh
printf '#!/usr/bin/env bash\ncd "$(dirname "$0")"\nnohup ./supervisor.sh > /dev/null 2>&1 < /dev/null &\n' > start.sh
