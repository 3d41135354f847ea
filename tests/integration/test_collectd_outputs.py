"""The real collectd loads the built proctree.so, measures a memtree tree and
its values reach csv, a real carbon-cache (write_graphite) and a real
InfluxDB's collectd listener (network plugin), all from one collectd run.

proc_rss_max must match /proc (2%) and proctree-execd on the same tree (3%):
both frontends report the same numbers with the same names.
"""

import contextlib
import os
import tempfile
import unittest

import collectd_harness as ch
import harness as h

TARGET = "tree"
INFLUX_DB = "collectd"
NPROCS, MIB_EACH = 4, 24

SEED_PROC = ["proc_vm_size", "proc_rss", "proc_pss", "proc_shared", "proc_anon"]
SEED_GLOBAL = ["global_mem_used", "global_cached", "global_anon", "global_swap_free"]
SEED_IO = ["proc_io_read_bytes", "proc_io_write_bytes"]


def seed_identifiers():
    """(plugin_instance, type_instance) of every seed metric (the catalog picks the type)."""
    ids = [(TARGET, f"{m}_{end}") for m in SEED_PROC for end in ("min", "max")]
    ids += [(TARGET, m) for m in SEED_IO]
    ids += [("", f"{m}_{end}") for m in SEED_GLOBAL for end in ("min", "max")]
    return ids


def within(actual, expected, tolerance):
    return abs(actual - expected) <= tolerance * expected


class CollectdOutputs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        stack = contextlib.ExitStack()
        cls.addClassCleanup(stack.close)  # reverse order: collectd stops first
        tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="proctree-collectd-"))
        cls.influx, udp_port = ch.influxdb_listening(stack, INFLUX_DB)
        cls.carbon = stack.enter_context(ch.Carbon(tmp))
        cls.tree = stack.enter_context(h.memtree(NPROCS, MIB_EACH))
        cls.collectd = stack.enter_context(ch.Collectd(
            tmp, ch.process_block(TARGET, f"Pid {cls.tree.pid}"),
            ch.graphite_output(cls.carbon.line_port) + ch.network_output(udp_port)))

    def truth_rss(self):
        return h.tree_resident_bytes(h.descendants_and_self(self.tree.pid))

    def test_loads_and_logs_version(self):
        version = os.environ.get("PROCTREE_VERSION", "")
        h.wait_until(lambda: f"proctree plugin: version {version}" in self.collectd.log(),
                     h.START_TIMEOUT, "the plugin's version line in collectd's log")
        self.assertTrue(self.collectd.running(), self.collectd.log())

    def test_every_seed_metric_in_csv(self):
        def missing():
            return [i for i in seed_identifiers() if not self.collectd.csv_rows(*i)]

        try:
            h.wait_until(lambda: not missing(), h.START_TIMEOUT, "every seed metric in csv")
        except AssertionError:
            self.fail(f"never written to csv: {missing()}\ncollectd log:\n{self.collectd.log()[-3000:]}")
        processes = self.collectd.wait_csv(TARGET, "proc_processes")
        self.assertEqual(processes[-1][1], NPROCS)

    def test_rss_matches_proc_and_execd(self):
        # Two rows: the second interval is a full one, wholly after memtree was ready.
        rss = self.collectd.wait_csv(TARGET, "proc_rss_max", count=2)[-1][1]
        truth = self.truth_rss()
        self.assertTrue(within(rss, truth, 0.02), f"collectd proc_rss_max {rss:.0f}, /proc {truth}")

        run = h.run_execd(["--pid", self.tree.pid, "--interval", "1s", "--once"])
        self.assertEqual(run.returncode, 0, run.stderr)
        execd = [p.fields["proc_rss_max"] for p in map(h.parse_line, run.stdout.splitlines())
                 if "proc_rss_max" in p.fields]
        self.assertEqual(len(execd), 1, run.stdout)
        self.assertTrue(within(rss, execd[0], 0.03), f"collectd proc_rss_max {rss:.0f}, execd {execd[0]}")

    def test_graphite_whisper_file(self):
        metric = f"{ch.HOSTNAME}.proctree-{TARGET}.memory-proc_rss_max"
        try:
            points = h.wait_until(lambda: self.carbon.points(metric), h.START_TIMEOUT, f"whisper points of {metric}")
        except AssertionError as e:
            self.fail(f"{e}\ncarbon log:\n{self.carbon.log_tail()}\ncollectd log:\n{self.collectd.log()[-2000:]}")
        self.assertTrue(within(points[-1][1], self.truth_rss(), 0.02), points)

    def test_influxdb_collectd_listener(self):
        def rows(type_instance):
            try:
                return self.influx.rows(INFLUX_DB, "SELECT * FROM proctree_value "
                                        f"WHERE type_instance = '{type_instance}' GROUP BY *")
            except AssertionError as e:
                if "database not found" in str(e):
                    return []  # the listener creates it with its first batch
                raise

        try:
            proc = h.wait_until(lambda: rows("proc_rss_max"), h.START_TIMEOUT, "proctree_value proc_rss_max")
            glob = h.wait_until(lambda: rows("global_mem_used_max"), h.START_TIMEOUT,
                                "proctree_value global_mem_used_max")
        except AssertionError as e:
            self.fail(f"{e}\ninfluxd log:\n{self.influx.log_tail()}")
        last = proc[-1]
        self.assertEqual((last["host"], last["instance"], last["type"]), (ch.HOSTNAME, TARGET, "memory"), last)
        self.assertTrue(within(last["value"], self.truth_rss(), 0.02), last)
        # Global metrics have no plugin instance, so no instance tag (GROUP BY * shows it as "").
        self.assertEqual(glob[-1].get("instance", ""), "", glob[-1])
        self.assertEqual(glob[-1]["type"], "memory", glob[-1])


if __name__ == "__main__":
    unittest.main()
