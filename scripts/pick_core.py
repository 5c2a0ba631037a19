"""Choose the suite's Core subset with the seeded stratified picker and write it into index.toml.

    python scripts/pick_core.py --calibration calibration.json [--n 30] [--quoting 4] [--seed 0]

Strata come from a calibration over the Full suite (reference runs on Original descriptions). The
three benchmark families (terminal, skills, data-analysis) get n − quoting tasks and the quoting family
`quoting` tasks, each by `metrics.conditions.pick_core`, so the 56 generated quoting variants cannot
crowd the Core by sheer number while every family and stratum stays represented.
"""

from __future__ import annotations

import argparse
import re

import pandas as pd

from matchmeter.metrics.calibration import read_calibration
from matchmeter.metrics.conditions import pick_core
from matchmeter.tasks.loader import builtin_suite_dir, load_tasks


def choose(calibration_path: str, n: int, quoting: int, seed: int) -> tuple[list[str], str]:
    cal = read_calibration(calibration_path)
    strata = {t.task_id: t.stratum for t in cal.tasks}
    tasks = load_tasks([])
    missing = [t.id for t in tasks if t.id not in strata]
    if missing:
        raise SystemExit(f"the calibration does not cover {len(missing)} suite tasks (e.g. {missing[0]}): "
                         "calibrate on a Full-suite run")
    frame = pd.DataFrame([{"task_id": t.id, "source_family": t.source_family, "stratum": strata[t.id]} for t in tasks])
    bench = frame.loc[frame["source_family"] != "quoting"]
    quote = frame.loc[frame["source_family"] == "quoting"]
    core = sorted(pick_core(bench, n - quoting, seed) + pick_core(quote, quoting, seed))
    note = (f"picked by metrics.conditions.pick_core (seed {seed}): {n - quoting} from terminal/skills/data-analysis "
            f"and {quoting} from quoting, stratified by family × stratum of calibration {cal.reference_digest[:12]} "
            f"(scripts/pick_core.py)")
    return core, note


def write_core(core: list[str], note: str) -> None:
    index = builtin_suite_dir() / "index.toml"
    text = index.read_text()
    block = "core = [\n" + "".join(f'  "{t}",\n' for t in core) + "]\n" + f'core_note = "{note}"\n'
    text = re.sub(r"(#[^\n]*\n)?core = \[.*?\]\ncore_note = \"[^\"]*\"\n", "# The Core subset.\n" + block, text,
                  flags=re.S)
    index.write_text(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calibration", required=True)
    parser.add_argument("--n", type=int, default=30)
    parser.add_argument("--quoting", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    core, note = choose(args.calibration, args.n, args.quoting, args.seed)
    write_core(core, note)
    print(f"Core ({len(core)}): {', '.join(core)}")


if __name__ == "__main__":
    main()
