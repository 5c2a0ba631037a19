"""Did a docker container's workspace arrive whole? The engine copies the image's /app into the container's
workspace volume at create, reading it through the container's mounted view; with the fuse-overlayfs storage
driver that view has missed files while other containers came and went (a task's RUN-baked /app/preset.txt
absent, and its oracle scored 0). What the image holds under /app is read once per image from its saved
layers (imagelayers.py) and kept on disk by image id; a container whose /app differs is made again.

    $MATCHMETER_ROOTFS_DIR/listings/<image id>.json   the image's /app: {path: [find type, size]}
"""

from __future__ import annotations

import fcntl
import json
from typing import Any

from matchmeter.atomicfile import atomic_write_text
from matchmeter.runner.sandbox import imagelayers, policy, rootfs

# Every entry below /app, NUL-ended: type, size, path (`find -printf %y %s %P`).
LIST_APP = f"find {policy.APP_DIR} -mindepth 1 -printf '%y %s %P\\0'"

Listing = dict[str, tuple[str, int]]


def expected_app(client: Any, image: str) -> Listing:
    """What a container of `image` must find under /app at start ({} when nothing, or /app is not a directory).

    Raises:
        imagelayers.BadSave: the image could not be saved whole twice.
    """
    image_id = str(client.images.get(image).id).replace("sha256:", "")
    cache = rootfs.rootfs_parent() / "listings" / f"{image_id}.json"
    cache.parent.mkdir(parents=True, exist_ok=True)
    # One reader per image on the machine: the first trials of a run (and other processes) wait for it rather
    # than each saving the image at once.
    with open(cache.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            return {path: (str(kind), int(size)) for path, (kind, size) in json.loads(cache.read_text()).items()}
        except (OSError, ValueError, TypeError):
            pass
        for attempt in (1, 2):
            try:
                listing = imagelayers.tree_listing(image, policy.APP_DIR, rootfs.rootfs_parent()) or {}
                break
            except imagelayers.BadSave:
                if attempt == 2:
                    raise
        atomic_write_text(cache, json.dumps(listing))
    return listing


def differences(expected: Listing, found_output: str) -> list[str]:
    """What differs between the image's /app and the container's (`LIST_APP` output): '- path' missing,
    '+ path' extra, '~ path' of another type or size; [] when they agree."""
    found: Listing = {}
    for entry in found_output.split("\0"):
        kind, _, rest = entry.partition(" ")
        size, _, path = rest.partition(" ")
        if path:
            found[path] = (kind, int(size) if kind == "f" and size.isdigit() else 0)
    expected = {path: (kind, size if kind == "f" else 0) for path, (kind, size) in expected.items()}
    out = [f"- {p}" for p in sorted(expected.keys() - found.keys())]
    out += [f"+ {p}" for p in sorted(found.keys() - expected.keys())]
    out += [f"~ {p}" for p in sorted(expected.keys() & found.keys()) if expected[p] != found[p]]
    return out
