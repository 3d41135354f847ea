"""--pidfile on a real pid file: PostgreSQL's postmaster.pid.

Why: pid files in the wild are not always a bare pid. PostgreSQL writes the
postmaster's pid on the first line, then its data directory, start time,
port, socket directory, listen address and state. proctree reads a pid file
as systemd's PIDFile= does (the first line; the rest is ignored), so it
must follow the postmaster and all its children (checkpointer, walwriter,
autovacuum launcher, ...) from that file.

The test starts its own PostgreSQL (Debian's postgresql package) with
initdb and pg_ctl in a temp dir, listening on a unix socket there only.
initdb and postgres refuse to run as root, so as root (CI) they run as the
package's postgres user, which owns the temp dir. The server is stopped by
pg_ctl, or killed by its pid as a last resort.
"""

import os
import pwd
import signal
import subprocess
import tempfile
import unittest

import harness as h

PG_BIN = "/usr/lib/postgresql/15/bin"
INTERVAL = 0.3
DISCOVERY = 0.2


class PostgreSQL:
    """A private PostgreSQL server in dir (which it owns), on a unix socket in dir."""

    def __init__(self, dir):
        self.dir = dir
        self.data = os.path.join(dir, "data")
        self.log = os.path.join(dir, "postgres.log")
        self.pidfile = os.path.join(self.data, "postmaster.pid")
        self.as_user = []
        if os.geteuid() == 0:
            pw = pwd.getpwnam("postgres")
            os.chown(dir, pw.pw_uid, pw.pw_gid)
            self.as_user = ["runuser", "-u", "postgres", "--"]
        self.pid = None

    def run(self, program, *args):
        command = self.as_user + [os.path.join(PG_BIN, program), *args]
        done = subprocess.run(command, cwd=self.dir, stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=h.START_TIMEOUT * 2)
        if done.returncode != 0:
            raise AssertionError(f"{command} exited {done.returncode}:\n{done.stdout}{done.stderr}\n"
                                 f"{self.log_tail()}")

    def start(self):
        self.run("initdb", "-D", self.data, "--auth=trust", "--no-sync", "--no-instructions")
        options = f"-c listen_addresses='' -c unix_socket_directories='{self.dir}'"
        self.run("pg_ctl", "start", "-w", "-D", self.data, "-l", self.log, "-o", options)
        self.pid = self.postmaster_pid()
        return self

    def postmaster_pid(self):
        with open(self.pidfile) as f:
            return int(f.readline())

    def stop(self):
        """pg_ctl stop -m immediate; SIGKILL to the postmaster by its pid if that fails."""
        if self.pid is None:
            return
        try:
            self.run("pg_ctl", "stop", "-w", "-m", "immediate", "-D", self.data)
        except (AssertionError, subprocess.TimeoutExpired):
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.pid = None

    def create_bench(self, user):
        """A role user (trust: no password), a database of its own named
        alike, and pgbench's tables in it (scale 1)."""
        self.run("createuser", "-h", self.dir, user)
        self.run("createdb", "-h", self.dir, "-O", user, user)
        self.run("pgbench", "-i", "-q", "-s", "1", "-h", self.dir, "-U", user, user)

    def pgbench(self, user, *args):
        """pgbench as user on its database, started (the caller waits for
        it), its output kept in the server's dir, at its log_path."""
        path = os.path.join(self.dir, f"pgbench-{len(os.listdir(self.dir))}.log")
        with open(path, "wb") as out:
            run = subprocess.Popen(self.as_user + [os.path.join(PG_BIN, "pgbench"), "-h", self.dir, "-U", user,
                                                   *args, user],
                                   cwd=self.dir, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
        run.log_path = path
        return run

    def log_tail(self, size=2000):
        try:
            with open(self.log, errors="replace") as f:
                return f.read()[-size:]
        except FileNotFoundError:
            return "(no server log)"


class PostgresqlPidfileTest(unittest.TestCase):
    def test_follows_postmaster_and_children(self):
        tmp = tempfile.TemporaryDirectory(prefix="proctree-postgresql-")
        self.addCleanup(tmp.cleanup)
        pg = PostgreSQL(tmp.name)
        self.addCleanup(pg.stop)
        pg.start()
        with open(pg.pidfile) as f:
            self.assertGreater(len(f.read().splitlines()), 1, "postmaster.pid is more than a pid")

        execd = h.Execd(["--pidfile", pg.pidfile, "--interval", f"{INTERVAL}s",
                         "--discovery-interval", f"{DISCOVERY}s"])
        self.addCleanup(execd.stop)

        def followed(e):
            """The latest batch counts at least the postmaster's tree as /proc shows it now."""
            batches = e.batches()
            line = h.target_line(batches[-1][1], "postmaster") if batches else None
            return line is not None and line.fields["proc_processes"] >= len(h.descendants_and_self(pg.pid))
        execd.wait_for(followed, h.BATCH_TIMEOUT, "a batch counting the postmaster and its children")
        line = h.target_line(execd.batches()[-1][1], "postmaster")
        tree = h.descendants_and_self(pg.pid)
        self.assertGreater(len(tree), 1, "the postmaster has children")
        self.assertIn("proc_rss_max", line.fields, line.raw)
        self.assertFalse([l for l in execd.stderr_lines() if "pid file" in l], execd.stderr_lines())
        print(f"postmaster {pg.pid}: {line.fields['proc_processes']} processes followed, /proc shows {len(tree)}")


if __name__ == "__main__":
    unittest.main(verbosity=2)
