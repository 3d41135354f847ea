"""Restarts through both frontends: a pid file whose service restarts three
times, a --pid target (which has none), and a cgroup made again.

Why: after an alert the first question is "did it restart?". A pid file or
a cgroup whose root was replaced used to look like a dip in the numbers.

tests/workload/service.py writes its pid file as daemons do (a new file
renamed over the old). The test restarts it three times: each time the old
service is stopped (its stdin closed, it is reaped), a new one writes the
file, and the test waits until proctree-execd's line shows the new root
(proc_restarts 1, and an age that restarted) and lets the new one run
MATURE seconds before the next. Then the restarts of
proctree-execd's lines, and of collectd's values, sum to 3; the age fell
exactly three times, each time to the new service's age; a --pid target on
the first service (gone after the first restart) reports 0 in every line.

A cgroup target whose cgroup is removed and made again at its path (what a
unit's restart does: another directory, another inode) counts one.
"""

import os
import sys
import tempfile
import time
import unittest

import cgroup_helpers as cgh
import collectd_harness as ch
import harness as h

SERVICE = [sys.executable, os.path.join(h.SOURCE_ROOT, "tests", "workload", "service.py")]
RESTARTS = 3
MATURE = 2.5  # seconds a service runs before it is restarted


def start_service(pidfile):
    return h.Workload(SERVICE + [pidfile, "1", "0"])


def ages_fell(points):
    """How many times proc_oldest_age_seconds fell from one line to the next
    that has it (an empty target has none)."""
    ages = [p.fields["proc_oldest_age_seconds"] for p in points if "proc_oldest_age_seconds" in p.fields]
    return sum(1 for a, b in zip(ages, ages[1:]) if b < a)


class PidfileRestarts(unittest.TestCase):
    def test_three_restarts_counted_and_the_age_falls_each_time(self):
        with tempfile.TemporaryDirectory(prefix="proctree-restarts-") as tmp:
            pidfile = os.path.join(tmp, "svc.pid")
            service = start_service(pidfile)
            first = service.pid
            try:
                with h.Execd(["--pidfile", pidfile, "--name", "svc", "--pid", first, "--name", "pinned",
                              "--interval", "1s"]) as execd, \
                        ch.Collectd(tmp, ch.process_block("svc", f'PidFile "{pidfile}"')) as collectd:
                    execd.wait_batches(2)
                    collectd.wait_csv("svc", "proc_restarts", count=1)
                    for _ in range(RESTARTS):
                        # older than a restart's new root can be at its first line
                        execd.wait_for(lambda e: h.target_line(e.batches()[-1][1], "svc").fields.get(
                            "proc_oldest_age_seconds", 0) >= MATURE, h.BATCH_TIMEOUT, f"a service {MATURE}s old")
                        before = len(execd.batches())
                        service.stop()
                        # the new service starts after this, however long its
                        # start takes on a busy host (it is ready later still)
                        started = time.time()
                        service = start_service(pidfile)
                        pid = service.pid

                        def new_root_seen(e):
                            lines = [h.target_line(p, "svc") for _, p in e.batches()[before:]]
                            return any(p.fields.get("proc_restarts") == 1 for p in lines)
                        execd.wait_for(new_root_seen, h.BATCH_TIMEOUT, f"the restart to pid {pid}")
                        line = next(h.target_line(p, "svc") for _, p in execd.batches()[before:]
                                    if h.target_line(p, "svc").fields.get("proc_restarts") == 1)
                        # the new service's age, not the old one's
                        self.assertLessEqual(line.fields["proc_oldest_age_seconds"],
                                             line.timestamp / 1e9 - started + 0.5, line.raw)
                    execd.wait_batches(len(execd.batches()) + 2)
                    h.wait_until(lambda: collectd.csv_sum("svc", "proc_restarts") >= RESTARTS, h.BATCH_TIMEOUT,
                                 "collectd's restarts")
                    time.sleep(2.5)  # more values: the sum stays
                    collectd_sum = collectd.csv_sum("svc", "proc_restarts")
                    collectd_ages = collectd.csv_rows("svc", "proc_oldest_age_seconds")
                    batches = execd.batches()
            finally:
                service.stop()
        svc = [h.target_line(p, "svc") for _, p in batches]
        self.assertEqual(sum(p.fields["proc_restarts"] for p in svc), RESTARTS, [p.raw for p in svc])
        self.assertEqual(ages_fell(svc), RESTARTS, [p.raw for p in svc])
        pinned = [h.target_line(p, "pinned") for _, p in batches]
        self.assertTrue(all(p.fields["proc_restarts"] == 0 for p in pinned), [p.raw for p in pinned])
        self.assertEqual(pinned[-1].fields["proc_processes"], 0)  # the first service is long gone
        self.assertEqual(collectd_sum, RESTARTS, collectd.log()[-2000:])
        ages = [v for _, v in collectd_ages]
        self.assertEqual(sum(1 for a, b in zip(ages, ages[1:]) if b < a), RESTARTS, collectd_ages)


class CgroupRestarts(unittest.TestCase):
    def test_cgroup_made_again_is_one_restart(self):
        if os.geteuid() != 0:
            self.skipTest("making cgroups needs root")
        cg = cgh.cgroup_for(self, f"proctree-restarts-{os.getpid()}", ())
        cg.spawn(cgh.sleeper_argv())
        with h.Execd(["--cgroup", cg.rel, "--name", "cg", "--interval", "1s"]) as execd:
            execd.wait_batches(3)
            before = len(execd.batches())
            cg.close()     # the unit stops: its processes killed, its cgroup removed
            cg.__enter__()  # and starts again: the same path, another directory
            cg.spawn(cgh.sleeper_argv())

            def back(e):
                lines = [h.target_line(p, "cg") for _, p in e.batches()[before:]]
                return any(p.fields.get("proc_processes") == 1 for p in lines[1:])
            execd.wait_for(back, h.BATCH_TIMEOUT, "the cgroup's new process")
            execd.wait_batches(len(execd.batches()) + 2)
            lines = [h.target_line(p, "cg") for _, p in execd.batches()]
        self.assertTrue(all(p.fields["proc_restarts"] == 0 for p in lines[:before]), [p.raw for p in lines])
        self.assertEqual(sum(p.fields["proc_restarts"] for p in lines), 1, [p.raw for p in lines])


if __name__ == "__main__":
    unittest.main()
