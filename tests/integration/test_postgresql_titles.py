"""--by title on a real PostgreSQL under pgbench: one line per title's group.

Why: every PostgreSQL process is named postgres (its comm), so --by process
gives one line for the whole cluster. Their titles (/proc/PID/cmdline as
`ps -o args` shows it, which PostgreSQL rewrites) tell them apart, and
--by-title-pattern '^postgres: (\\S+)' picks the word after "postgres: ":
the checkpointer, the walwriter, the autovacuum launcher and the backends
(titled "postgres: USER DB [local] STATE": the group is their user) each
get a line, the postmaster (titled by its own argv, no match) its whole
title.

pgbench runs two clients as user bench (test_postgresql.py starts the
cluster in a temp dir): two persistent connections, whose backends' titles
move between idle and a statement with no exec, and one that reconnects for
every transaction (-C), whose backends live a few milliseconds, join from
their fork, leave, and are settled by their exit records (root has them).

Every interval, the groups' lines add up to the tree's exactly, field by
field, for every amount and count they carry (the ledger's invariant,
common/accounting/ledger.h): I/O, faults, context switches, delays,
processes, threads, descriptors. CPU too, where the tree's line is under
the bound of its interval's length (a line reports at most what the CPUs
can run in it, the rest waits for the next line: ledger.h; an interval cut
short under load can hold back the tree's line and leave the groups' ahead
until it catches up, never behind).
"""

import os
import re
import tempfile
import unittest

import accounting_helpers as ah
import harness as h
from test_postgresql import PG_BIN, PostgreSQL

INTERVAL = 0.5
PATTERN = r"^postgres: (\S+)"
USER = "bench"
BENCH_SECONDS = 4
# fields the groups' lines add up to the tree's: amounts and counts
ADDITIVE = ("proc_io_read_bytes", "proc_io_write_bytes", "proc_io_storage_read_bytes", "proc_io_storage_write_bytes",
            "proc_io_cancelled_write_bytes", "proc_io_read_syscalls", "proc_io_write_syscalls", "proc_minor_faults",
            "proc_major_faults", "proc_ctx_switches_voluntary", "proc_ctx_switches_involuntary",
            "proc_cpu_delay_seconds", "proc_blkio_delay_seconds", "proc_processes", "proc_threads", "proc_fds")
TARGET = "pg"


def start_cluster(testcase):
    """A PostgreSQL cluster with user bench's database ready for pgbench."""
    tmp = tempfile.TemporaryDirectory(prefix="proctree-pg-titles-")
    testcase.addClassCleanup(tmp.cleanup)
    pg = PostgreSQL(tmp.name)
    testcase.addClassCleanup(pg.stop)
    pg.start()
    pg.create_bench(USER)
    return pg


def run_pgbench(pg):
    """Two persistent clients at 50 transactions a second and one that
    reconnects for each of its 20 a second, BENCH_SECONDS long; waited.
    Returns how many connections the second made (a backend each)."""
    runs = [pg.pgbench(USER, "-c", "2", "-j", "1", "-R", "50", "-T", str(BENCH_SECONDS)),
            pg.pgbench(USER, "-C", "-c", "1", "-R", "20", "-T", str(BENCH_SECONDS))]
    for run in runs:
        if run.wait(timeout=BENCH_SECONDS + 60) != 0:
            raise AssertionError(f"pgbench exited {run.returncode}\n{h.read_text(run.log_path)}\n{pg.log_tail()}")
    found = re.search(r"number of transactions actually processed: (\d+)", h.read_text(runs[1].log_path))
    if not found:
        raise AssertionError(f"no count of transactions in pgbench's output:\n{h.read_text(runs[1].log_path)}")
    return int(found.group(1))


class PostgresqlTitles(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.pg = start_cluster(cls)
        cls.execd = h.Execd(["--pidfile", cls.pg.pidfile, "--name", TARGET, "--interval", f"{INTERVAL}s",
                             "--poll-interval", "50ms", "--discovery-interval", "0.2s",
                             "--by", "title", "--by-title-pattern", PATTERN])
        cls.addClassCleanup(cls.execd.stop)
        cls.execd.wait_for(lambda e: {"checkpointer", "walwriter"} <= cls.groups_of(e.batches()), h.BATCH_TIMEOUT,
                           "the checkpointer's and the walwriter's lines")
        cls.connections = run_pgbench(cls.pg)
        cls.execd.wait_batches(cls.execd.batch_count() + 2)
        ah.settle_cpu(cls.execd)
        cls.batches = cls.execd.batches()

    @staticmethod
    def groups_of(batches):
        return {p.tags["title"] for _, points in batches for p in points if "title" in p.tags}

    def evidence(self, batch=None):
        lines = [p.raw for p in batch] if batch else []
        return "\n".join(lines + [self.execd.describe()])

    def test_one_line_per_kind_of_process(self):
        groups = self.groups_of(self.batches)
        print(f"groups: {sorted(groups)}")
        for name in ("checkpointer", "walwriter", "autovacuum", USER):
            self.assertIn(name, groups, self.evidence())
        # the postmaster's title does not match: its whole title
        postmaster = [g for g in groups if g.startswith(os.path.join(PG_BIN, "postgres") + " -D ")]
        self.assertEqual(len(postmaster), 1, groups)
        self.assertNotIn("other", groups)

    def test_backends_have_their_line(self):
        lines = ah.breakdown_lines(self.execd, TARGET, "title")
        backends = [p for p in lines if p.tags["title"] == USER]
        self.assertGreaterEqual(max(p.fields["proc_processes"] for p in backends), 2, self.evidence())
        cpu = sum(p.fields.get(f, 0) for p in backends for f in ah.CPU_FIELDS)
        self.assertGreater(cpu, 0, self.evidence())
        calls = sum(p.fields.get("proc_io_write_syscalls", 0) for p in backends)
        self.assertGreater(calls, 0, "the backends answered their clients")

    def test_groups_add_up_to_the_tree_every_interval(self):
        cpus = os.cpu_count()
        tree_cpu = groups_cpu = 0.0
        held = compared = 0
        before = None
        for ts, points in self.batches:
            tree = h.target_line(points, TARGET)
            groups = [p for p in points if p.tags.get("target") == TARGET and "title" in p.tags]
            if tree is None:
                continue
            for field in ADDITIVE:
                if field not in tree.fields:
                    continue
                summed = sum(p.fields.get(field, 0) for p in groups)
                self.assertAlmostEqual(summed, tree.fields[field], delta=1e-9,
                                       msg=f"{field}\n{self.evidence(points)}")
            tree_cpu += sum(tree.fields.get(f, 0) for f in ah.CPU_FIELDS)
            groups_cpu += sum(p.fields.get(f, 0) for p in groups for f in ah.CPU_FIELDS)
            seconds = (ts - before) / 1e9 if before is not None else INTERVAL
            before = ts
            line_cpu = sum(tree.fields.get(f, 0) for f in ah.CPU_FIELDS)
            if line_cpu < 0.9 * seconds * cpus:
                self.assertAlmostEqual(groups_cpu, tree_cpu, delta=1e-6, msg=self.evidence(points))
                compared += 1
            else:  # the tree's line held at its bound: the groups' may be ahead, never behind
                self.assertGreaterEqual(groups_cpu, tree_cpu - 1e-6, self.evidence(points))
                held += 1
        print(f"{compared} intervals' CPU compared, {held} held at the bound; "
              f"CPU in all: tree {tree_cpu:.2f} s, groups {groups_cpu:.2f} s")
        self.assertGreater(compared, 0, self.evidence())
        self.assertAlmostEqual(groups_cpu, tree_cpu, delta=1e-6, msg=self.evidence())

    def test_short_backends_came_and_went(self):
        # -C's backends, one a transaction: each exited, counted by the tree
        total = ah.target_points(self.execd, TARGET)
        print(f"{self.connections} connections of pgbench -C; the tree counted "
              f"{ah.field_sum(total, 'proc_processes_exited')} exits")
        self.assertGreater(self.connections, 0)
        self.assertGreaterEqual(ah.field_sum(total, "proc_processes_exited"), self.connections, self.evidence())
        self.assertGreater(ah.field_sum(total, "collector_exit_records"), 0, self.evidence())


if __name__ == "__main__":
    unittest.main(verbosity=2)
