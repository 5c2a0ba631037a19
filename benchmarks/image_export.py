"""What reading an image from its saved layers costs against the container export it replaced, side by side.

bwrap runs a task image in its exported filesystem, made once per image key. The export used to be
`docker create` + `docker export` (read through the container's mounted view, which the fuse-overlayfs storage
driver has shown without files); it is now `docker save` applied layer by layer with each layer's digest
checked (runner/sandbox/imagelayers.py). Both are timed here on the same fresh image, alternating, and the
docker backend's one-time read of an image's /app (workspace_check.py) beside them. Prints medians and ratios.

    .venv/bin/python benchmarks/image_export.py [--reps 5]
"""

from __future__ import annotations

import argparse
import secrets
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from matchmeter.runner.sandbox import baseimage, imagelayers

DOCKERFILE = "FROM matchmeter-base:latest\n# {token}\nRUN printf 'seed-0' > /app/preset.txt && printf x > /opt/once\n"


def _container_export(image: str, dest: Path) -> None:
    cid = subprocess.run(["docker", "create", image, "true"], check=True, capture_output=True, text=True).stdout.strip()
    try:
        dest.mkdir()
        export = subprocess.Popen(["docker", "export", cid], stdout=subprocess.PIPE)
        subprocess.run(["tar", "-C", str(dest), "-x", "--numeric-owner"], stdin=export.stdout, check=True)
        export.wait()
    finally:
        subprocess.run(["docker", "rm", "-f", cid], capture_output=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="mm-export-bench-"))
    tag = f"matchmeter-bench-export:{secrets.token_hex(4)}"
    (work / "ctx").mkdir()
    (work / "ctx" / "Dockerfile").write_text(DOCKERFILE.format(token=secrets.token_hex(6)))
    baseimage.build_image(baseimage.docker_client(), work / "ctx", "Dockerfile", tag, [baseimage.BASE_IMAGE])
    times: dict[str, list[float]] = {"container export": [], "saved layers": [], "/app listing": []}
    try:
        for rep in range(args.reps):
            order = ["container export", "saved layers"] if rep % 2 == 0 else ["saved layers", "container export"]
            for name in order:
                dest = work / f"{name.split()[0]}-{rep}"
                start = time.perf_counter()
                if name == "container export":
                    _container_export(tag, dest)
                else:
                    imagelayers.unpack(tag, dest, scratch=work)
                times[name].append(time.perf_counter() - start)
                shutil.rmtree(dest)
            start = time.perf_counter()
            imagelayers.tree_listing(tag, "/app", scratch=work)
            times["/app listing"].append(time.perf_counter() - start)
    finally:
        subprocess.run(["docker", "rmi", tag], capture_output=True)
        shutil.rmtree(work, ignore_errors=True)
    base = statistics.median(times["container export"])
    print(f"{'method':<18} {'median s':>9} {'min':>7} {'max':>7} {'vs export':>10}   ({args.reps} reps, alternating)")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:<18} {median:9.2f} {min(values):7.2f} {max(values):7.2f} {median / base:9.2f}x")


if __name__ == "__main__":
    main()
