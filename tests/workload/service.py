"""service: a service as proctree follows one through its pid file, whose
memory, descriptors, I/O and children's exits are known.

    python3 service.py PIDFILE MIB NFDS

Writes MIB of private memory, holds NFDS more descriptors on /dev/null,
forks one worker that does the same, and writes its pid to PIDFILE as
daemons do (a new file renamed over the old: a new inode). Then prints
"ready PID WORKER" and obeys one command per line on stdin:

    io BYTES   reads BYTES from /dev/zero and writes them to /dev/null
               (read(2)/write(2), in 1 MiB calls), then prints "done io"
    fates      forks three children one after the other: one exits 1, one
               is killed by SIGKILL, one exits 0; prints "done fates" once
               all are reaped

At EOF on stdin it ends its worker and exits.
"""

import mmap
import os
import signal
import sys

MIB = 1 << 20


def hold(mib, nfds):
    """Touched private memory and open descriptors, kept until exit."""
    memory = mmap.mmap(-1, mib * MIB, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    for offset in range(0, mib * MIB, mmap.PAGESIZE):
        memory[offset] = 1
    return memory, [os.open("/dev/null", os.O_RDONLY) for _ in range(nfds)]


def start(pidfile, mib, nfds):
    """Become the service: hold, fork the worker, publish the pid file."""
    kept = hold(mib, nfds)
    worker = os.fork()
    if worker == 0:
        kept += hold(mib, nfds)
        signal.pause()
        os._exit(0)
    tmp = f"{pidfile}.{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(f"{os.getpid()}\n")
    os.rename(tmp, pidfile)
    os.write(1, f"ready {os.getpid()} {worker}\n".encode())
    return worker, kept


def pump(nbytes):
    zero, null = os.open("/dev/zero", os.O_RDONLY), os.open("/dev/null", os.O_WRONLY)
    left = nbytes
    while left:
        chunk = os.read(zero, min(left, MIB))
        os.write(null, chunk)
        left -= len(chunk)
    os.close(zero)
    os.close(null)


def fates():
    for fate in ("fail", "kill", "ok"):
        child = os.fork()
        if child == 0:
            if fate == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
            os._exit(1 if fate == "fail" else 0)
        os.waitpid(child, 0)


def main():
    pidfile, mib, nfds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    worker, kept = start(pidfile, mib, nfds)
    for line in sys.stdin:
        words = line.split()
        if words[:1] == ["io"]:
            pump(int(words[1]))
            os.write(1, b"done io\n")
        elif words == ["fates"]:
            fates()
            os.write(1, b"done fates\n")
    os.kill(worker, signal.SIGTERM)


main()
