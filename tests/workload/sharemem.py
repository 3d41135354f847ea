"""sharemem: memory whose PSS changes without the process's own statm moving.

    python3 sharemem.py share MIB
        maps MIB of shared anonymous memory and writes every page of it,
        then says "ready PID"; each "fork" line on stdin forks a child that
        reads every page of the region (so the parent's share of it shrinks)
        and says "ready PID". At EOF the children are ended and waited for.
    python3 sharemem.py exec MIB HOLD_MIB
        writes MIB of private memory, says "ready PID", and at the first line
        on stdin execs "sharemem.py hold HOLD_MIB" (same pid, a new memory map).
    python3 sharemem.py hold MIB
        writes MIB of private memory, says "ready PID", and waits for EOF.
"""

import mmap
import os
import signal
import sys

PAGE = mmap.PAGESIZE
MIB = 1 << 20


def ready():
    sys.stdout.write(f"ready {os.getpid()}\n")
    sys.stdout.flush()


def write_pages(region):
    for offset in range(0, len(region), PAGE):
        region[offset] = 1


def share(mib):
    region = mmap.mmap(-1, mib * MIB, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS)
    write_pages(region)
    ready()
    children = []
    for line in sys.stdin:
        if line.strip() != "fork":
            continue
        pid = os.fork()
        if pid == 0:
            total = 0
            for offset in range(0, len(region), PAGE):
                total += region[offset]
            ready()
            signal.pause()
            os._exit(0)
        children.append(pid)
    for pid in children:
        os.kill(pid, signal.SIGTERM)
        os.waitpid(pid, 0)


def hold(mib):
    region = mmap.mmap(-1, mib * MIB, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    write_pages(region)
    ready()
    return region


def main():
    mode, mib = sys.argv[1], int(sys.argv[2])
    if mode == "share":
        share(mib)
    elif mode == "exec":
        region = hold(mib)
        sys.stdin.readline()
        del region
        os.execv(sys.executable, [sys.executable, os.path.abspath(__file__), "hold", sys.argv[3]])
    elif mode == "hold":
        region = hold(mib)
        sys.stdin.read()
        del region
    else:
        sys.exit(f"sharemem: unknown mode {mode!r}")


if __name__ == "__main__":
    main()
