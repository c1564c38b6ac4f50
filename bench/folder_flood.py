"""Shared-folder flood benchmark: what 100,000 junk packet names cost one fetch.

    .venv/bin/python bench/folder_flood.py [--files 100000] [--repeat 3]

Someone with write access to the shared folder fills it with files whose names look like
packets. Every later fetch must list them and `lstat` each (a file is remembered by name,
size and mtime, `mail.folder.file_ref`), but open none it already read, and read at most
`MAX_FILES_PER_FETCH` new ones. Times, in the same run, best of ``--repeat``:

  (a) the floor: listing the folder (`os.scandir`) and matching every name;
  (b) a fetch when every file was already read (what each later sync pays);
  (c) the first fetch, when none was read (lists, stats, sorts, reads the first batch).

Prints each and the ratios b/a and c/a. Nearly all of (b) beyond the floor is the one `lstat`
per name (b/a was about 6 when this was written): linear, and no file is opened.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.machine import describe  # noqa: E402
from mail.folder import _NAME, MAX_FILES_PER_FETCH, FolderTransport, file_ref  # noqa: E402


def _fill(folder: Path, count: int) -> None:
    for i in range(count):
        name = f"hexpost-{i:032x}-{i:08d}-{i:016x}.hxp"
        (folder / name).write_bytes(b"junk %d" % i)


def _floor(folder: Path) -> float:
    start = time.perf_counter()
    matched = sum(1 for e in os.scandir(folder) if _NAME.fullmatch(e.name))
    assert matched
    return time.perf_counter() - start


def _fetch(transport: FolderTransport, seen: set[str]) -> tuple[float, int]:
    start = time.perf_counter()
    found = asyncio.run(transport.fetch("", seen)).packets
    return time.perf_counter() - start, len(found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(describe())
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        _fill(folder, args.files)
        transport = FolderTransport(folder)
        seen = set()
        for entry in os.scandir(folder):
            info = entry.stat(follow_symlinks=False)
            seen.add(file_ref(entry.name, info.st_size, info.st_mtime_ns))
        floor, all_seen, first = [], [], []
        for _ in range(args.repeat):
            floor.append(_floor(folder))
            elapsed, read = _fetch(transport, seen)
            assert read == 0
            all_seen.append(elapsed)
            elapsed, read = _fetch(transport, set())
            assert read == min(args.files, MAX_FILES_PER_FETCH)
            first.append(elapsed)
    a, b, c = min(floor), min(all_seen), min(first)
    print(f"{args.files} junk packet names in the folder")
    print(f"(a) floor, list and match names:  {a * 1000:8.1f} ms")
    print(f"(b) fetch, every file already read: {b * 1000:8.1f} ms  b/a = {b / a:.2f}")
    reads = f"reads {MAX_FILES_PER_FETCH} files"
    print(f"(c) first fetch, {reads}:  {c * 1000:8.1f} ms  c/a = {c / a:.2f}")


if __name__ == "__main__":
    main()
