"""The real collectd loads the built proctree.so with a <Process> Cgroup
block: the cgroup_* values (METRICS.md "As collectd values": type
duration for seconds, memory for memory, count for counts) reach csv, a
real carbon-cache (write_graphite) and a real InfluxDB's collectd listener;
a block with CollectCgroupMetrics false and a Pid block have none, and a
metric the kernel does not offer here is not written at all (not as 0).

The cgroup is the test's own (cgroup_helpers.TestCgroup: v2 with v1
memory, cpu and cpuacct at the same relative path), holding a memspike
that spikes 200 MiB once, so cgroup_memory_peak_lifetime is known: the
v1 memory.max_usage_in_bytes, >= 200 MiB.
"""

import contextlib
import os
import tempfile
import unittest

import cgroup_helpers as cgh
import collectd_harness as ch
import harness as h

INFLUX_DB = "collectd"
MIB = 1 << 20
UNIQ = f"pt-cgmc-{os.getpid()}"

PRESENT = [("duration", "cgroup_cpu_user_seconds"), ("duration", "cgroup_cpu_system_seconds"),
           ("duration", "cgroup_pressure_cpu_some_seconds"), ("duration", "cgroup_pressure_memory_full_seconds"),
           ("memory", "cgroup_memory_current_max"), ("memory", "cgroup_memory_current_min"),
           ("memory", "cgroup_memory_peak_lifetime"), ("count", "cgroup_memory_oom_kills")]


def memspike_path():
    return h.program("PROCTREE_MEMSPIKE", "tests/workload/memspike")


class CollectdCgroupMetrics(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        missing = cgh.TestCgroup.missing(("memory", "cpu", "cpuacct"))
        if missing:
            raise unittest.SkipTest(f"no cgroup hierarchy for {missing}")
        stack = contextlib.ExitStack()
        cls.addClassCleanup(stack.close)  # reverse order: collectd stops first, the cgroup last
        cls.cg = stack.enter_context(cgh.TestCgroup(UNIQ, ("memory", "cpu", "cpuacct")))
        spike = cls.cg.spawn([memspike_path(), "200"])
        spike.send(b"\n")
        answer = spike.read_lines(1, 60, "memspike's child")[0]
        if answer.split()[:2] != ["exited", "0"]:
            raise AssertionError(answer)
        cls.peak = int(cls.cg.read("memory.max_usage_in_bytes", "memory"))
        tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="proctree-collectd-cg-"))
        cls.influx, udp_port = ch.influxdb_listening(stack, INFLUX_DB)
        cls.carbon = stack.enter_context(ch.Carbon(tmp))
        body = (ch.process_block("cg", f'Cgroup "{cls.cg.rel}"')
                + ch.process_block("cgoff", f'Cgroup "{cls.cg.rel}"', "CollectCgroupMetrics false")
                + ch.process_block("bypid", f"Pid {spike.pid}"))
        cls.collectd = stack.enter_context(ch.Collectd(
            tmp, body, ch.graphite_output(cls.carbon.line_port) + ch.network_output(udp_port)))

    def csv_types(self, instance):
        """{type_instance: type} of every csv file of a plugin instance."""
        d = os.path.join(self.collectd.csv_dir, ch.HOSTNAME, f"proctree-{instance}")
        found = {}
        for name in os.listdir(d) if os.path.isdir(d) else []:
            kind, rest = name.split("-", 1)
            found[rest[:-len("-YYYY-MM-DD")]] = kind
        return found

    def test_csv_values_types_and_absent_ones(self):
        for kind, name in PRESENT:
            self.collectd.wait_csv("cg", name, count=2)
        types = self.csv_types("cg")
        for kind, name in PRESENT:
            self.assertEqual(types.get(name), kind, types)
        # Offered by no file here (no v2 memory controller: memory.events,
        # memory.peak; no pids or blkio cgroup made): never written.
        if "memory" not in cgh.v2_controllers():
            for name in ("cgroup_memory_ooms", "cgroup_memory_high_events", "cgroup_memory_max_events",
                         "cgroup_memory_peak", "cgroup_pids", "cgroup_io_read_bytes"):
                self.assertNotIn(name, types)
            said = [l for l in self.collectd.log().splitlines() if "cgroup_* metrics" in l]
            self.assertEqual(len(said), 1, self.collectd.log()[-3000:])  # "cg"'s, not "cgoff"'s
            self.assertIn('target "cg":', said[0])
            self.assertIn("memory.events", said[0])
        peak = self.collectd.csv_rows("cg", "cgroup_memory_peak_lifetime")[-1][1]
        self.assertEqual(peak, self.peak)
        self.assertGreaterEqual(peak, 200 * MIB)
        self.assertEqual(self.collectd.csv_sum("cg", "cgroup_memory_oom_kills"), 0)

    def test_none_without_a_cgroup_or_when_off(self):
        self.collectd.wait_csv("cg", "cgroup_cpu_user_seconds", count=2)
        for instance in ("cgoff", "bypid"):
            self.collectd.wait_csv(instance, "proc_processes", count=2)
            types = self.csv_types(instance)
            self.assertEqual([t for t in types if t.startswith("cgroup_")], [], instance)
            self.assertEqual(self.collectd.csv_rows(instance, "proc_processes")[-1][1], 1)

    def test_graphite(self):
        for kind, name in (("duration", "cgroup_pressure_cpu_some_seconds"), ("memory", "cgroup_memory_peak_lifetime")):
            metric = f"{ch.HOSTNAME}.proctree-cg.{kind}-{name}"
            points = self.carbon.wait_points(metric)
            if name == "cgroup_memory_peak_lifetime":
                self.assertEqual(points[-1][1], self.peak, points)
            self.assertFalse(os.path.exists(self.carbon.whisper_path(f"{ch.HOSTNAME}.proctree-cgoff.{kind}-{name}")))

    def test_influxdb_collectd_listener(self):
        def rows(measurement, type_instance):
            try:
                return self.influx.rows(INFLUX_DB, f"SELECT * FROM {measurement} "
                                        f"WHERE type_instance = '{type_instance}' GROUP BY *")
            except AssertionError as e:
                if "database not found" in str(e):
                    return []
                raise

        try:
            seconds = h.wait_until(lambda: rows("proctree_seconds", "cgroup_cpu_user_seconds"), h.START_TIMEOUT,
                                   "proctree_seconds cgroup_cpu_user_seconds")
            peak = h.wait_until(lambda: rows("proctree_value", "cgroup_memory_peak_lifetime"), h.START_TIMEOUT,
                                "proctree_value cgroup_memory_peak_lifetime")
        except AssertionError as e:
            self.fail(f"{e}\ninfluxd log:\n{self.influx.log_tail()}")
        self.assertEqual({r["instance"] for r in seconds}, {"cg"}, seconds)
        self.assertEqual(seconds[-1]["type"], "duration")
        self.assertGreaterEqual(seconds[-1]["value"], 0)
        self.assertEqual({r["instance"] for r in peak}, {"cg"}, peak)
        self.assertEqual((peak[-1]["type"], peak[-1]["value"]), ("memory", self.peak), peak[-1])


if __name__ == "__main__":
    unittest.main(verbosity=2)
