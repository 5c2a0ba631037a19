#!/usr/bin/env bash
# Seeds queue/ with 12-25 jobs (whitespace-separated integers) and worker.py, a queue worker that
# turns queue/<id>.job into done/<id>.out (the sum) and deliberately exits with code 3 after a
# seeded number (3-5) of jobs. Nothing is started here.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
max_jobs = rng.randint(3, 5)
Path("queue").mkdir()
for i in range(rng.randint(12, 25)):
    numbers = [rng.randint(-500, 5000) for _ in range(rng.randint(2, 9))]
    Path("queue", f"{rng.choice(['inv', 'ord', 'pay'])}-{i:03d}-{rng.randint(1000, 9999)}.job").write_text(" ".join(map(str, numbers)) + "\n")
Path("worker.py").write_text(f'''"""Queue worker: turns queue/<id>.job (integers) into done/<id>.out (their sum).

It leaks memory in production, so until that is fixed it stops on purpose after MAX_JOBS jobs
(exit code 3) and has to be started again. Run it from the directory that holds queue/.
"""

import sys
import time
from pathlib import Path

MAX_JOBS = {max_jobs}


def main():
    done = Path("done")
    done.mkdir(exist_ok=True)
    handled = 0
    while True:
        jobs = sorted(Path("queue").glob("*.job"))
        if not jobs:
            time.sleep(0.2)
            continue
        job = jobs[0]
        total = sum(int(x) for x in job.read_text().split())
        tmp = done / (job.stem + ".tmp")
        tmp.write_text(f"{{total}}\\n")
        tmp.rename(done / (job.stem + ".out"))
        job.unlink()
        handled += 1
        if handled >= MAX_JOBS:
            print(f"worker: handled {{handled}} jobs, memory limit reached, exiting", file=sys.stderr)
            sys.exit(3)


if __name__ == "__main__":
    main()
''')
PY
