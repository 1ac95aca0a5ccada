#!/usr/bin/env python3
"""Summarise a py-spy ``--format raw`` profile (collapsed stacks, as written by
``bench/live.py --py-spy PREFIX``): top functions by self time and by inclusive time.

    .venv/bin/python bench/profile_top.py /tmp/prof-12345.txt [--top 25] [--match app/]
"""
from __future__ import annotations

import argparse
import collections
import re


def frame_name(frame: str) -> str:
    # py-spy raw frames look like "func (path/to/file.py:123)"; drop the line number.
    m = re.match(r"(.*) \((.*?)(?::\d+)?\)$", frame.strip())
    if not m:
        return frame.strip()
    func, path = m.groups()
    for marker in ("site-packages/", "/work/main/", "lib/python3"):
        if marker in path:
            path = path.split(marker, 1)[1]
    return f"{func} ({path})"


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("files", nargs="+")
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--match", default=None, help="inclusive table: only frames whose name contains this")
    p.add_argument("--owners", action="store_true",
                   help="also attribute each sample to its nearest app/ or games/ frame")
    a = p.parse_args()
    self_t: collections.Counter = collections.Counter()
    incl: collections.Counter = collections.Counter()
    owner_file: collections.Counter = collections.Counter()
    owner_func: collections.Counter = collections.Counter()
    total = 0
    for path in a.files:
        with open(path) as f:
            for line in f:
                line = line.rstrip("\n")
                if not line:
                    continue
                stack, _, n = line.rpartition(" ")
                try:
                    n = int(n)
                except ValueError:
                    continue
                frames = [frame_name(x) for x in stack.split(";") if x]
                # Skip the thread/process header frame py-spy puts first.
                frames = [x for x in frames if not x.startswith("process ") and not x.startswith("thread ")]
                if not frames:
                    continue
                total += n
                self_t[frames[-1]] += n
                for fr in set(frames):
                    incl[fr] += n
                owner = next((fr for fr in reversed(frames)
                              if "(app/" in fr or "(games/" in fr or "(echo.py" in fr), None)
                if owner is None:
                    lib = next((fr for fr in frames if "(" in fr and "runpy" not in fr
                                and "uvicorn/main.py" not in fr and "click/" not in fr), frames[0])
                    pkg = lib.split("(", 1)[1].split("/", 1)[0].rstrip(")")
                    owner = f"[no app frame: {pkg}] ({pkg})"
                owner_file[owner.rsplit("(", 1)[1].rstrip(")")] += n
                owner_func[owner] += n
    print(f"{total} samples")
    print(f"\nTop {a.top} by self time:")
    for fr, n in self_t.most_common(a.top):
        print(f"  {100 * n / total:5.1f}%  {fr}")
    if a.owners:
        print("\nBy owner (nearest app/ or games/ frame above the sample), per file:")
        for fr, n in owner_file.most_common(a.top):
            print(f"  {100 * n / total:5.1f}%  {fr}")
        print("\nBy owner, per function:")
        for fr, n in owner_func.most_common(a.top):
            print(f"  {100 * n / total:5.1f}%  {fr}")
    print(f"\nTop {a.top} by inclusive time" + (f" (frames matching {a.match!r})" if a.match else "") + ":")
    shown = 0
    for fr, n in incl.most_common():
        if a.match and a.match not in fr:
            continue
        print(f"  {100 * n / total:5.1f}%  {fr}")
        shown += 1
        if shown >= a.top:
            break


if __name__ == "__main__":
    main()
