"""Memory of a whole process tree, checked against /proc and stored in InfluxDB.

Why: the tree's memory is proctree's main promise. A memtree of 4 processes
(root -> middle -> 2 leaves), each owning MIB_EACH MiB of written anonymous
memory, sits idle while proctree-execd measures it once; its numbers must
match the sum of /proc/PID/statm over the members read just before and just
after, its global line must match /proc/meminfo, and InfluxDB must store
exactly what it printed.
"""

import unittest

import harness as h

NPROCS = 4
MIB_EACH = 32
TREE_ANON = NPROCS * MIB_EACH * h.MIB
RSS_TOLERANCE = 0.02


class TreeMemoryTest(h.InfluxTestCase):
    def measure_once(self, *options):
        """Run `--pid ROOT --interval 1s --once` on a fresh memtree.

        Returns (batch points, resident bytes before, after, mem used before,
        after, stdout bytes). The ground truth is read right before and right
        after the run; the tree is idle, so both must agree.
        """
        with h.memtree(NPROCS, MIB_EACH) as tree:
            pids = h.descendants_and_self(tree.pid)
            self.assertEqual(sorted(pids), sorted(tree.ready_pids), "memtree's members per /proc")
            rss_before, used_before = h.tree_resident_bytes(pids), h.mem_used_bytes()
            with h.Execd(["--pid", tree.pid, "--interval", "1s", "--once", *options]) as execd:
                status = execd.wait_exit(timeout=15)
                self.assertEqual(status, 0, execd.describe())
            rss_after, used_after = h.tree_resident_bytes(pids), h.mem_used_bytes()
        self.assertLess(abs(rss_after - rss_before), 0.005 * rss_before, "the idle tree changed")
        batches = execd.batches()
        self.assertEqual(len(batches), 1, f"--once must print one batch\n{execd.describe()}")
        return batches[0][1], (rss_before + rss_after) / 2, (used_before, used_after), execd.stdout_bytes()

    def check_global(self, line, used_truth, scale):
        """global_* fields: present, sane, and mem_used near MemTotal - MemAvailable.

        Other work on the machine moves system memory during the run, so
        the window [min, max] must overlap the truth read before/after within
        a tolerance of 10 % of MemTotal, not match it exactly.
        """
        info = h.meminfo()
        for name in ("global_mem_used", "global_cached", "global_anon", "global_swap_free"):
            lo, hi = line.fields[name + "_min"] * scale, line.fields[name + "_max"] * scale
            self.assertLessEqual(lo, hi, name)
            self.assertGreaterEqual(lo, 0, name)
            self.assertLessEqual(hi, info["MemTotal"] + info["SwapTotal"], name)
        tolerance = 0.10 * info["MemTotal"]
        used_min = line.fields["global_mem_used_min"] * scale
        used_max = line.fields["global_mem_used_max"] * scale
        self.assertGreaterEqual(used_max, min(used_truth) - tolerance, f"truth {used_truth}")
        self.assertLessEqual(used_min, max(used_truth) + tolerance, f"truth {used_truth}")
        self.assertGreaterEqual(line.fields["global_anon_max"] * scale, TREE_ANON,
                                "system-wide anon memory must include the tree's")
        self.assertLessEqual(line.fields["global_swap_free_max"] * scale, info["SwapTotal"])

    def test_tree_memory_in_bytes(self):
        points, rss_truth, used_truth, body = self.measure_once()
        target = h.target_line(points, "memtree")
        self.assertIsNotNone(target, f"no target=memtree line (default name = root's comm): {points}")
        glob = h.global_line(points)
        self.assertEqual(len(points), 2, "one target line and one global line")
        self.assertEqual(target.timestamp, glob.timestamp)

        catalog = h.catalog()
        for p in points:
            self.assertEqual(p.measurement, "proctree")
            for name, value in p.fields.items():
                self.assertIn(name, catalog, f"field {name} is not in common/include/proctree/catalog.h")
                scope = "GLOBAL" if p is glob else "PROC"
                self.assertIn(catalog[name][0], (scope, "ALL"), f"{name} on the wrong line")
                if catalog[name][1].endswith("MEMORY"):
                    self.assertIs(type(value), int, f"{name} in bytes must be an integer: {p.raw}")
        for name in ("proc_vm_size", "proc_rss", "proc_anon", "proc_pss", "proc_shared"):
            for end in ("_min", "_max"):
                self.assertIn(name + end, target.fields)

        fields = target.fields
        self.assertEqual(fields["proc_processes"], NPROCS)
        self.assertLess(abs(fields["proc_rss_max"] - rss_truth), RSS_TOLERANCE * rss_truth,
                        f"proc_rss_max {fields['proc_rss_max']} vs statm sum {rss_truth:.0f}")
        self.assertLess(abs(fields["proc_rss_min"] - rss_truth), RSS_TOLERANCE * rss_truth,
                        f"proc_rss_min {fields['proc_rss_min']} vs statm sum {rss_truth:.0f}")
        self.assertGreaterEqual(fields["proc_anon_max"], TREE_ANON)
        self.assertLessEqual(fields["proc_anon_max"], fields["proc_rss_max"])
        self.assertGreaterEqual(fields["proc_vm_size_max"], fields["proc_rss_max"])
        self.assertGreaterEqual(fields["proc_pss_max"], TREE_ANON)
        self.check_global(glob, used_truth, 1)

        h.store_and_read_back(self.influx, "bytes", body, points)

    def test_memory_units(self):
        """--proc-memory-unit MB and --global-memory-unit kB scale the same numbers.

        MB is binary (2^20 bytes) and a float; kB is 1024 bytes and an integer.
        """
        points, rss_truth, used_truth, body = self.measure_once(
            "--proc-memory-unit", "MB", "--global-memory-unit", "kB")
        target = h.target_line(points, "memtree")
        self.assertIsNotNone(target, points)
        rss_mb = target.fields["proc_rss_max"]
        self.assertIs(type(rss_mb), float, target.raw)
        self.assertLess(abs(rss_mb * h.MIB - rss_truth), RSS_TOLERANCE * rss_truth,
                        f"proc_rss_max {rss_mb} MB vs statm sum {rss_truth / h.MIB:.1f} MB")
        self.assertGreaterEqual(target.fields["proc_anon_max"], NPROCS * MIB_EACH)
        glob = h.global_line(points)
        self.assertIs(type(glob.fields["global_mem_used_max"]), int, glob.raw)
        self.check_global(glob, used_truth, 1024)
        # Its own database: the same field names as floats would conflict
        # with the integers stored by the bytes test.
        h.store_and_read_back(self.influx, "units", body, points)


if __name__ == "__main__":
    unittest.main(verbosity=2)
