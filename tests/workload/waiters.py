"""waiters cpu N | waiters blkio DIR: a tree whose threads wait.

cpu N: the root forks N children that spin in user mode; with more of them
than the CPUs this process may run on, some are always runnable but waiting
for a CPU (schedstat's run_delay grows).

blkio DIR: the root forks one child that writes one 4 KiB block again and
again to a file in DIR opened O_DIRECT|O_SYNC (O_SYNC alone where the file
system refuses O_DIRECT): each write waits for the device, which the
kernel counts as block-I/O delay while kernel.task_delayacct is 1.

Each child prints "ready PID" once it runs and exits when the root is gone.
The root reads stdin until end of file, then kills and reaps its children
(and removes the file): closing its stdin stops the tree.
"""

import mmap
import os
import signal
import sys


def ready():
    os.write(1, f"ready {os.getpid()}\n".encode())  # one write: the children print side by side


def orphaned(parent):
    return os.getppid() != parent


def spin(parent):
    ready()
    n = 0
    while True:
        n += 1
        if n % 200000 == 0 and orphaned(parent):
            return


def write(parent, path):
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_DIRECT | os.O_SYNC, 0o600)
    except OSError:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_SYNC, 0o600)
    block = mmap.mmap(-1, 4096)  # page-aligned, as O_DIRECT wants
    block.write(b"w" * 4096)
    ready()
    while not orphaned(parent):
        os.pwrite(fd, block, 0)


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("cpu", "blkio"):
        sys.exit("usage: waiters cpu N | waiters blkio DIR")
    parent = os.getpid()
    path = os.path.join(sys.argv[2], f"waiters-{parent}") if sys.argv[1] == "blkio" else None
    kids = []
    for _ in range(int(sys.argv[2]) if path is None else 1):
        pid = os.fork()
        if pid == 0:
            try:
                spin(parent) if path is None else write(parent, path)
            finally:
                os._exit(0)
        kids.append(pid)
    sys.stdin.buffer.read()
    for pid in kids:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    if path is not None:
        os.unlink(path)


if __name__ == "__main__":
    main()
