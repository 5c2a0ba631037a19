"""Benchmark: `matchmeter view` page-load time on a generated run directory of 10,000 executions.

Run: `.venv/bin/python benchmarks/view.py [--executions 10000] [--repeats 5] [--keep DIR]`.
Writes a run directory the way the run store does (executions/<key>/result.json + trajectory.json,
results.parquet rebuilt from the results), then, for each repeat, starts a fresh server (so the first
request pays the results-table load) and times full HTTP GETs of the overview, the grid, the
executions list and one execution page from a real socket. Prints the median of each page.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from matchmeter.schema import (  # noqa: E402
    AgentSpec,
    Configuration,
    Cost,
    ExecutionResult,
    Step,
    TokenUsage,
    Trajectory,
    utcnow,
)


def generate_run(root: Path, n: int, n_configs: int = 10, seed: int = 0) -> Path:
    """A run directory of `n` executions: n_configs configurations × n/n_configs tasks, 3 steps each."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    run = root / "big-run"
    exe_root = run / "executions"
    exe_root.mkdir(parents=True)
    configs = [Configuration(id=f"bash:sim/model-{i:02d}", model=f"sim/model-{i:02d}", agent=AgentSpec(name="bash"))
               for i in range(n_configs)]
    rows = []
    t0 = utcnow()
    for i in range(n):
        cfg, task = configs[i % n_configs], f"task{i // n_configs:04d}"
        reward = float(rng.choice([0.0, 0.5, 1.0]))
        steps = [Step(index=j, command=f"ls -la /work/{j}", output="x" * int(rng.integers(10, 4000)), exit_code=0,
                      started_at=t0, ended_at=t0 + timedelta(seconds=1), tokens=TokenUsage(input=500, output=40),
                      cost=Cost(usd=0.0004)) for j in range(3)]
        key = f"{i:024x}"
        result = ExecutionResult(execution_key=key, run_id="big-run", configuration_id=cfg.id, configuration=cfg,
                                 task_id=task, task_digest="d", description_sha256=f"sha-{task}", seed=0, attempt=0,
                                 backend="local", reward=reward, cost=Cost(usd=0.0012), n_steps=3,
                                 tokens=TokenUsage(input=1500, output=120), trust_flags={"tests_absent_during_agent": True},
                                 simulated=True)
        d = exe_root / key
        d.mkdir()
        (d / "result.json").write_text(result.model_dump_json())
        (d / "trajectory.json").write_text(Trajectory(agent="bash", steps=steps, simulated=True).model_dump_json())
        rows.append(result.to_row())
    pd.DataFrame(rows).to_parquet(run / "results.parquet", index=False)
    (run / "manifest.json").write_text(json.dumps({"run_id": "big-run", "backend": "local", "simulated": True}))
    return run


def time_pages(run: Path, repeats: int) -> dict[str, list[float]]:
    from matchmeter.report.view import make_server

    first_key = sorted(p.name for p in (run / "executions").iterdir())[0]
    pages = {"overview /": "/", "grid /run/big-run": "/run/big-run",
             "executions list": "/run/big-run/executions?cfg=bash%3Asim%2Fmodel-03",
             "one execution": f"/run/big-run/x/{first_key}", "grid page 20": "/run/big-run?page=20"}
    times: dict[str, list[float]] = {name: [] for name in pages}
    for _ in range(repeats):
        server = make_server([run], 0)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            for name, path in pages.items():  # in order: the overview is the cold first request
                start = time.perf_counter()
                with urllib.request.urlopen(f"http://127.0.0.1:{server.port}{path}", timeout=30) as resp:
                    body = resp.read()
                    assert resp.status == 200, (path, resp.status)
                times[name].append(time.perf_counter() - start)
                assert b"matchmeter view" in body
        finally:
            server.shutdown()
            server.server_close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--executions", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--keep", type=Path, default=None, help="Write the run here and keep it.")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp)
        start = time.perf_counter()
        run = generate_run(root, args.executions)
        print(f"generated {args.executions} executions in {time.perf_counter() - start:.1f} s: {run}")
        for name, values in time_pages(run, args.repeats).items():
            print(f"{name:20s} median {statistics.median(values) * 1e3:7.1f} ms  "
                  f"(min {min(values) * 1e3:.1f}, max {max(values) * 1e3:.1f}, {len(values)} fresh servers)")


if __name__ == "__main__":
    main()
