"""--by process: one line per process name besides the tree's total.

A launched `sh` runs three programs (copies of cpuburn named alpha, beta
and gamma), each burning a known amount of CPU, beta in the kernel reading
/dev/zero (so it has I/O). Summed over every batch, each program's line
shows its own CPU, and the groups' CPU and I/O add up to the total line's
(docs/METRICS.md, "Breakdown"). InfluxDB accepts every line, the group
in its process tag.
"""

import os
import shutil
import tempfile
import unittest

import accounting_helpers as ah
import harness as h

PROGRAMS = {"alpha": 0.6, "beta": 0.4, "gamma": 0.3}  # CPU seconds each


class BreakdownByProcess(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        tmp = tempfile.TemporaryDirectory(prefix="proctree-breakdown-")
        cls.addClassCleanup(tmp.cleanup)
        script = ah.burn_script(tmp.name, PROGRAMS, "beta")
        with h.Execd(["--interval", "0.5s", "--poll-interval", "20ms", "--discovery-interval", "50ms", "--by", "process", "--",
                      "sh", "-c", script]) as execd:
            status = execd.wait_exit(120)
        cls.execd = execd
        assert status == 0, execd.describe()

    def test_one_line_per_program_with_its_cpu(self):
        cpu = ah.breakdown_sums(self.execd, "sh", "process", "proc_cpu_user_seconds", "proc_cpu_system_seconds")
        for name in PROGRAMS:
            self.assertIn(name, cpu, self.execd.describe())
        ah.check_program_cpu(self, cpu, PROGRAMS, "\n".join(self.execd.stderr_lines()), cpu)
        self.assertLessEqual(set(cpu), set(PROGRAMS) | {"sh"}, cpu)

    def test_groups_add_up_to_the_total(self):
        total = ah.target_points(self.execd, "sh")
        for field, slack in (("proc_cpu_user_seconds", 0.02), ("proc_cpu_system_seconds", 0.02),
                             ("proc_io_read_bytes", 0), ("proc_io_write_bytes", 0)):
            groups = sum(ah.breakdown_sums(self.execd, "sh", "process", field).values())
            self.assertLessEqual(abs(groups - ah.field_sum(total, field)), slack, f"{field}: {groups}")
        beta_io = ah.breakdown_sums(self.execd, "sh", "process", "proc_io_read_bytes")["beta"]
        self.assertGreater(beta_io, 1 << 20, "beta read /dev/zero")

    def test_memory_gauges_bound_the_total(self):
        # Each group's max is the max of its own sum, so together they are
        # at least the tree's max; each group's min at most the tree's min.
        for _, points in self.execd.batches():
            total = h.target_line(points, "sh")
            # a group seen by no poll (born and gone between two) has no gauge
            groups = [p for p in points if "process" in p.tags and "proc_rss_max" in p.fields]
            if total is None or "proc_rss_max" not in total.fields or not groups:
                continue
            self.assertGreaterEqual(sum(p.fields["proc_rss_max"] for p in groups), total.fields["proc_rss_max"])
            self.assertLessEqual(min(p.fields["proc_rss_min"] for p in groups), total.fields["proc_rss_min"])

    def test_exec_then_exit_within_an_interval(self):
        # The subshell is a member named sh long before it execs alpha
        # (its fork is followed at once, or found within a discovery);
        # alpha burns and exits before the interval ends. What it did as
        # alpha is alpha's, not left in sh's group.
        with tempfile.TemporaryDirectory(prefix="proctree-breakdown-exec-") as tmp:
            alpha = os.path.join(tmp, "alpha")
            shutil.copy(ah.cpuburn_path(), alpha)
            with h.Execd(["--interval", "60s", "--poll-interval", "20ms", "--discovery-interval", "50ms", "--by",
                          "process", "--", "sh", "-c", f"(sleep 0.2; exec {alpha} 0.3) & wait"]) as execd:
                self.assertEqual(execd.wait_exit(60), 0, execd.describe())
        cpu = ah.breakdown_sums(execd, "sh", "process", "proc_cpu_user_seconds", "proc_cpu_system_seconds")
        self.assertLessEqual(abs(cpu.get("alpha", 0) - 0.3), 0.15 * 0.3 + 0.03, f"{cpu}\n{execd.describe()}")
        self.assertLessEqual(cpu.get("sh", 0), 0.03, cpu)

    def test_influxdb_accepts_every_line(self):
        with h.InfluxDB() as influx:
            influx.create_database("t")
            influx.write_ok("t", self.execd.stdout_bytes().decode())
            rows = influx.rows("t", "SELECT sum(proc_cpu_user_seconds) FROM proctree GROUP BY process")
        self.assertTrue(any(r.get("process") == "alpha" for r in rows), rows)


if __name__ == "__main__":
    unittest.main(verbosity=2)
