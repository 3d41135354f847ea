"""forkserver: a server that forks one short-lived process per connection.

    python3 forkserver.py PORTFILE

Listens on 127.0.0.1 (a free port, written to PORTFILE once it listens).
For each connection it forks a child that writes "N\\n" (the number of
forks so far, 1, 2, ...) and exits at once; the server reaps it before it
accepts the next. So a client that made N connections and read N last
knows the server forked exactly N processes, each living a few
milliseconds. Runs until it is killed.
"""

import os
import socket
import sys


def main():
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        tmp = sys.argv[1] + ".tmp"
        with open(tmp, "w") as f:
            f.write(f"{listener.getsockname()[1]}\n")
        os.rename(tmp, sys.argv[1])
        forks = 0
        while True:
            conn, _ = listener.accept()
            forks += 1
            pid = os.fork()
            if pid == 0:
                conn.sendall(f"{forks}\n".encode())
                os._exit(0)
            conn.close()
            os.waitpid(pid, 0)


main()
