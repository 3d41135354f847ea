"""fdlimit LIMIT OPEN: a tree whose worst member's descriptor headroom is known.

The root forks one child, which lowers its soft RLIMIT_NOFILE to LIMIT (what
`ulimit -n LIMIT` does in a shell) and opens /dev/null until OPEN
descriptors are open, then prints "ready PID" (its own pid). The root keeps
its few descriptors and the limit it was given, far from them. Both read
stdin until end of file: closing it stops the tree.
"""

import os
import resource
import sys


def open_count():
    # listdir's own descriptor on the directory is listed too
    return len(os.listdir("/proc/self/fd")) - 1


def child(limit, want):
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (limit, hard))
    while open_count() < want:
        os.open("/dev/null", os.O_RDONLY)
    if open_count() != want:
        sys.exit(f"fdlimit: {open_count()} descriptors open, not {want}")
    sys.stdout.write(f"ready {os.getpid()}\n")
    sys.stdout.flush()
    sys.stdin.buffer.read()


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: fdlimit LIMIT OPEN")
    limit, want = int(sys.argv[1]), int(sys.argv[2])
    pid = os.fork()
    if pid == 0:
        try:
            child(limit, want)
        finally:
            os._exit(0)
    sys.stdin.buffer.read()
    os.waitpid(pid, 0)


if __name__ == "__main__":
    main()
