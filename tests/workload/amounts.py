"""amounts: a service whose amounts are known to the byte and the fork,
for the totals' test (--counters total).

    python3 amounts.py PIDFILE DIR

Prints "ready PID", then writes its pid to PIDFILE as daemons do (a new
file renamed over the old): after that, nothing it does writes a byte but
the work below, so a tree that joins it by its pid file (without its past)
has its write(2) bytes exactly. Then, for each line on stdin

    work BYTES CHILDREN SECONDS

it writes BYTES to DIR/data (write(2), 64 KiB calls at most), forks
CHILDREN children one after the other, each alive 0.3 s (long enough for
a poll or a discovery to see it) and ending with _exit(0), reaped, burns
SECONDS of its own CPU, and makes the directory DIR/done-PID-N, N the
works it has done so far (mkdir(2): no byte written). At EOF on stdin it
exits at once (_exit: no interpreter teardown's CPU after the last read).
"""

import os
import sys
import time

CHUNK = 64 * 1024


def write_bytes(path, count):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    block = b"x" * CHUNK
    try:
        while count > 0:
            count -= os.write(fd, block[:min(count, CHUNK)])
    finally:
        os.close(fd)


def fork_children(count):
    for _ in range(count):
        pid = os.fork()
        if pid == 0:
            time.sleep(0.3)
            os._exit(0)
        os.waitpid(pid, 0)


def burn(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def main():
    pidfile, where = sys.argv[1], sys.argv[2]
    os.write(1, f"ready {os.getpid()}\n".encode())
    tmp = f"{pidfile}.{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(f"{os.getpid()}\n")
    os.rename(tmp, pidfile)
    done = 0
    for line in sys.stdin:
        words = line.split()
        if not words or words[0] != "work":
            continue
        write_bytes(os.path.join(where, "data"), int(words[1]))
        fork_children(int(words[2]))
        burn(float(words[3]))
        done += 1
        os.mkdir(os.path.join(where, f"done-{os.getpid()}-{done}"))
    os._exit(0)


if __name__ == "__main__":
    main()
