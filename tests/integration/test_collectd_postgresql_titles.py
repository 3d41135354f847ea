"""BreakDown "title" in collectd: the groups --by title gives, on a real
PostgreSQL under pgbench (test_postgresql_titles.py has proctree-execd's).

A <Process> block follows the postmaster through its pid file with
BreakDown "title" and BreakDownTitlePattern "^postgres: (\\\\S+)" (collectd's
quotes take a backslash twice). csv shows one value set per group, plugin
instance pg-GROUP: the checkpointer, the walwriter, the autovacuum launcher,
the backends of user bench, and the postmaster's whole title, its '/'
written '_'. At every read the groups' faults, I/O and processes add up to
the tree's (common/accounting/ledger.h).
"""

import contextlib
import tempfile
import unittest

import collectd_harness as ch
from test_postgresql_titles import USER, run_pgbench, start_cluster

TARGET = "pg"
ADDITIVE = ("proc_minor_faults", "proc_io_read_bytes", "proc_io_write_bytes", "proc_io_write_syscalls",
            "proc_ctx_switches_voluntary", "proc_processes", "proc_threads")


class CollectdPostgresqlTitles(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        stack = contextlib.ExitStack()
        cls.addClassCleanup(stack.close)
        cls.pg = start_cluster(cls)
        tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="proctree-collectd-titles-"))
        block = ch.process_block(TARGET, f'PidFile "{cls.pg.pidfile}"', 'BreakDown "title"',
                                 'BreakDownTitlePattern "^postgres: (\\\\S+)"')
        cls.collectd = stack.enter_context(ch.Collectd(tmp, "  PollInterval 0.05\n  DiscoveryInterval 0.2\n" + block))
        cls.collectd.wait_csv(f"{TARGET}-checkpointer", "proc_processes")
        run_pgbench(cls.pg)
        rows = len(cls.collectd.csv_rows(TARGET, "proc_processes"))
        cls.collectd.wait_csv(TARGET, "proc_processes", count=rows + 2)
        # stopped before reading: its write threads write a read's lines in
        # any order, so a live csv can hold the tree's row of a read and
        # not yet each group's
        cls.collectd.stop()
        cls.instances = cls.collectd.breakdown_instances(TARGET)

    def evidence(self):
        return f"{self.instances}\n{self.collectd.log()[-3000:]}"

    def test_same_groups_as_by_title(self):
        print(f"value sets: {self.instances}")
        for name in ("checkpointer", "walwriter", "autovacuum", USER):
            self.assertIn(f"{TARGET}-{name}", self.instances, self.evidence())
        postmaster = [i for i in self.instances if i.startswith(f"{TARGET}-_usr_lib_postgresql_")]
        self.assertEqual(len(postmaster), 1, self.evidence())
        self.assertNotIn(f"{TARGET}-other", self.instances)
        self.assertGreater(self.collectd.csv_sum(f"{TARGET}-{USER}", "proc_cpu_user_seconds",
                                                 "proc_cpu_system_seconds"), 0, self.evidence())

    def test_groups_add_up_at_every_read(self):
        for metric in ADDITIVE:
            tree = dict(self.collectd.csv_rows(TARGET, metric))
            groups = {}
            for instance in self.instances:
                for epoch, value in self.collectd.csv_rows(instance, metric):
                    groups[epoch] = groups.get(epoch, 0) + value
            self.assertTrue(tree, metric)
            # collectd's one write thread writes the value lists in the
            # order the reads dispatched them, and at its stop drops what is
            # still queued: only the last read written can lack some of its
            # lines (a CI run lost 205). Every earlier read was written whole.
            last = max([*tree, *groups])
            for epoch, value in tree.items():
                if epoch == last:
                    continue
                self.assertAlmostEqual(groups.get(epoch, 0), value, delta=1e-6,
                                       msg=f"{metric} at {epoch}\n{self.evidence()}")


if __name__ == "__main__":
    unittest.main(verbosity=2)
