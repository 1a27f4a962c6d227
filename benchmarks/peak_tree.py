"""Run a command and measure its whole process tree: wall time, peak summed RSS, peak disk use.

``/usr/bin/time -v`` reports the largest single process; a Spark run is a JVM and a Python
driver (and, with ``spark-submit``, a launcher), so this samples every descendant's resident
memory from ``/proc`` each ``--every`` seconds and reports the peak of their sum, the peak of
each process, and the peak growth of the used space of the file system holding ``--disk``
(Spark's shuffle and spill files, DuckDB's temporary directory). Above ``--kill-gb`` of summed
RSS the tree is killed and the run reported as stopped.

    python benchmarks/peak_tree.py --disk /tmp -- spark-submit --master "local[2]" ... compare ...
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time


def _tree(root: int) -> dict[int, tuple[str, int]]:
    """{pid: (command name, RSS bytes)} of ``root`` and its descendants."""
    children: dict[int, list[int]] = {}
    info: dict[int, tuple[str, int]] = {}
    page = os.sysconf("SC_PAGE_SIZE")
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as fh:
                stat = fh.read()
            with open(f"/proc/{d}/statm") as fh:
                rss = int(fh.read().split()[1]) * page
        except OSError:
            continue
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
        children.setdefault(ppid, []).append(int(d))
        info[int(d)] = (name, rss)
    out, todo = {}, [root]
    while todo:
        p = todo.pop()
        if p in info:
            out[p] = info[p]
        todo.extend(children.get(p, []))
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--disk", default="/tmp")
    ap.add_argument("--every", type=float, default=0.5)
    ap.add_argument("--kill-gb", type=float, default=16.0)
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    used0 = shutil.disk_usage(a.disk).used
    load0 = os.getloadavg()[0]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, start_new_session=True)
    peak, per, disk, killed = 0, {}, 0, False
    while proc.poll() is None:
        tree = _tree(proc.pid)
        total = sum(r for _, r in tree.values())
        peak = max(peak, total)
        for pid, (name, r) in tree.items():
            key = f"{name}[{pid}]"
            per[key] = max(per.get(key, 0), r)
        disk = max(disk, shutil.disk_usage(a.disk).used - used0)
        if total > a.kill_gb * 2**30 and not killed:
            os.killpg(proc.pid, signal.SIGKILL)
            killed = True
        time.sleep(a.every)
    out = {
        "exit": proc.returncode,
        "killed_above_gb": a.kill_gb if killed else None,
        "wall_s": round(time.perf_counter() - t0, 1),
        "peak_rss_sum_gb": round(peak / 2**30, 2),
        "peak_rss_per_process_gb": {k: round(v / 2**30, 2) for k, v in per.items() if v > 2**26},
        "peak_disk_growth_gb": round(disk / 2**30, 2),
        "load": [round(load0, 1), round(os.getloadavg()[0], 1)],
        "cpu_s_children": round(sum(os.times()[2:4]), 1),
    }
    print(json.dumps(out), file=sys.stderr)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
