"""forkshare: a parent's private memory shared by the workers it forks.

The shape of every prefork server and of a DataLoader's workers: a parent
touches MIB of private anonymous memory (a bytearray), then forks workers
that read it. Each fork shares every page of it with one more process, so
the parent's PSS and every earlier worker's fall, while no process's statm
(size, resident, shared) moves: the pages are resident and anonymous in
each of them, before and after.

    python3 forkshare.py MIB
        touches MIB, says "ready PID"; at each "fork" line on stdin forks a
        worker that reads every page of the memory, and once the worker has
        read it says "ready WORKER_PID" (the parent says it: the tree holds
        still from then until the next line). At EOF the workers are ended
        and waited for.
    python3 forkshare.py MIB N GAP
        the same without being told: N workers forked GAP seconds apart, each
        reading the memory, then "ready PID" once all have read it; holds
        until EOF.
"""

import os
import signal
import sys
import time

PAGE = os.sysconf("SC_PAGE_SIZE")
MIB = 1 << 20


def worker(memory, told):
    # Reads, never writes: the pages stay shared with the parent.
    total = memory.count(b"\x01")
    os.write(told, b"x" if total else b"0")
    os.close(told)
    signal.pause()
    os._exit(0)


def fork_worker(memory):
    """Fork a worker; return its pid once it has read every page."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        worker(memory, w)
    os.close(w)
    if os.read(r, 1) != b"x":
        sys.exit("forkshare: a worker read no touched page")
    os.close(r)
    return pid


def main():
    mib = int(sys.argv[1])
    memory = bytearray(mib * MIB)
    memory[::PAGE] = b"\x01" * len(range(0, len(memory), PAGE))  # every page resident
    workers = []
    if len(sys.argv) > 2:
        for k in range(int(sys.argv[2])):
            if k:
                time.sleep(float(sys.argv[3]))
            workers.append(fork_worker(memory))
        print(f"ready {os.getpid()}", flush=True)
        sys.stdin.read()
    else:
        print(f"ready {os.getpid()}", flush=True)
        for line in sys.stdin:
            if line.strip() == "fork":
                workers.append(fork_worker(memory))
                print(f"ready {workers[-1]}", flush=True)
    for pid in workers:
        os.kill(pid, signal.SIGTERM)
        os.waitpid(pid, 0)


if __name__ == "__main__":
    main()
