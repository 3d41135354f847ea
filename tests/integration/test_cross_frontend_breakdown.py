"""One tree, both frontends at once: --by process and BreakDown "process" agree.

A `sh` held on its stdin runs three programs (copies of cpuburn named alpha,
beta and gamma, each burning a known amount of CPU, beta in the kernel
reading /dev/zero so it has I/O). proctree-execd (--pid, --by process) and
collectd (Pid, BreakDown "process"; csv, write_graphite to carbon, network
to InfluxDB's collectd listener) both follow it from before the programs
start until an interval after they are done. Over the whole run:

- each frontend's groups add up to its own total, and the two totals agree
  (the same counters, read before the work and after it);
- each group's CPU (user + system) and I/O read bytes agree between the
  frontends, and each program's CPU is what it burned;
- InfluxDB holds collectd's group series (tag instance=TREE-NAME) with the
  sums csv shows, and stores execd's lines with theirs (tag process=NAME);
  carbon has each group's path.

Why the groups may differ at all, and by how much (TAIL): interval edges do
not matter here, since totals are compared after the work is done and each
frontend has reported an interval that began after it. What differs is
where a program's last moments land: without per-group exit records, what
a child does after a frontend's last read of it counts in its reaper's (sh's)
group (docs/METRICS.md, "Breakdown"), and each frontend reads every member
at its own polls, 20 ms apart. So a program's group may differ between the
frontends by the CPU it burns in one poll gap (and the I/O it does then),
moved to or from sh's group. TAIL allows 2.5 gaps (a late poll on a busy
machine). It is well under the 0.2 s that separates any two programs'
amounts, so values rendered under another group's name, or a group's
values left out, fail the comparison; the I/O of beta under another name
fails it too (the others read only what an exec reads).
"""

import contextlib
import math
import os
import subprocess
import tempfile
import time
import unittest

import accounting_helpers as ah
import collectd_harness as ch
import harness as h

TARGET = "tree"
PROGRAMS = {"alpha": 0.6, "beta": 0.4, "gamma": 0.2}  # CPU seconds each, 0.2 s apart at least
IN_KERNEL = "beta"
INTERVAL = 1  # seconds, both frontends (collectd_harness's Interval)
POLL = 0.02  # seconds between polls, both frontends
INFLUX_DB = "collectd"
CPU = ("proc_cpu_user_seconds", "proc_cpu_system_seconds")
IO = ("proc_io_read_bytes",)
# The listener's measurement is PLUGIN_DSNAME: types.db names duration's
# data source "seconds", bytes' "value".
MEASUREMENT = {"proc_cpu_user_seconds": "proctree_seconds", "proc_cpu_system_seconds": "proctree_seconds",
               "proc_io_read_bytes": "proctree_value"}
TAIL = 0.05  # CPU seconds of one program that may land in sh's group instead
EXEC_BYTES = 64 << 10  # reads of an exec (ld.so) on either side of a group change


def stop_sh(sh):
    """EOF ends its `cat`, then the shell; stop it by its pid if it lingers."""
    sh.stdin.close()
    h.stop_process(sh)


def last_batch_time(execd):
    batches = execd.batches()
    return batches[-1][0] / 1e9 if batches else 0


def last_csv_time(collectd):
    rows = collectd.csv_rows(TARGET, "proc_cpu_user_seconds")
    return rows[-1][0] if rows else 0


class CrossFrontendBreakdown(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        stack = contextlib.ExitStack()
        cls.addClassCleanup(stack.close)  # reverse order: the frontends stop first
        tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="proctree-cross-"))
        cls.influx, udp_port = ch.influxdb_listening(stack, INFLUX_DB)
        cls.carbon = stack.enter_context(ch.Carbon(tmp))
        # starts the programs at the first line on stdin, says when they
        # are done, holds until EOF
        done = os.path.join(tmp, "done")
        script = f"read go; {ah.burn_script(tmp, PROGRAMS, IN_KERNEL)}; echo done >{done}; cat >/dev/null"
        sh = subprocess.Popen(["sh", "-c", script], stdin=subprocess.PIPE)
        stack.callback(stop_sh, sh)
        cls.collectd = stack.enter_context(ch.Collectd(
            tmp, f"  PollInterval {POLL}\n" + ch.process_block(TARGET, f"Pid {sh.pid}", 'BreakDown "process"'),
            ch.graphite_output(cls.carbon.line_port) + ch.network_output(udp_port)))
        cls.execd = stack.enter_context(h.Execd(
            ["--pid", sh.pid, "--name", TARGET, "--by", "process", "--interval", f"{INTERVAL}s",
             "--poll-interval", f"{POLL * 1000:g}ms", "--discovery-interval", "50ms"]))
        # Both have reported the idle tree: they are attached, and what
        # the tree does from now on counts in both.
        cls.execd.wait_for(lambda e: ah.target_points(e, TARGET), h.START_TIMEOUT, f"a line of {TARGET}")
        cls.collectd.wait_csv(TARGET, "proc_cpu_user_seconds")
        sh.stdin.write(b"go\n")
        sh.stdin.flush()
        ah.wait_file(done, 60, "the three programs to end")
        # An interval that began after the work was done is reported by
        # each: every interval that covers the work is in. collectd's write
        # threads write a read's values one by one, so the total's row can
        # come before a group's: a read later, that read's rows are all in.
        final = time.time() + INTERVAL
        cls.execd.wait_for(lambda e: last_batch_time(e) >= final, h.START_TIMEOUT, "an interval after the work")
        h.wait_until(lambda: last_csv_time(cls.collectd) >= final + INTERVAL, h.START_TIMEOUT,
                     f"a csv row after the work\n{cls.collectd.log()[-2000:]}")
        cls.execd.stop()  # its output is complete; collectd keeps sending to InfluxDB
        cls.execd_groups = {m: ah.breakdown_sums(cls.execd, TARGET, "process", *m) for m in (CPU, IO)}
        cls.collectd_groups = {m: cls.collectd_sums(m) for m in (CPU, IO)}

    @classmethod
    def collectd_sums(cls, metrics):
        """{process name: csv sum of metrics} of the tree's breakdown groups."""
        prefix = f"{TARGET}-"
        return {i[len(prefix):]: cls.collectd.csv_sum(i, *metrics) for i in cls.collectd.breakdown_instances(TARGET)}

    def totals(self, metrics):
        """(execd's, collectd's) sums of metrics on the tree's total line."""
        execd = sum(ah.field_sum(ah.target_points(self.execd, TARGET), m) for m in metrics)
        return execd, self.collectd.csv_sum(TARGET, *metrics)

    def evidence(self):
        """Both frontends' numbers, one line per group, then the totals."""
        rows = ["group: cpu s execd / collectd, read bytes execd / collectd"]
        for name in sorted(set(self.execd_groups[CPU]) | set(self.collectd_groups[CPU])):
            e, c = ({m: g[m].get(name, math.nan) for m in (CPU, IO)} for g in (self.execd_groups, self.collectd_groups))
            rows.append(f"{name}: {e[CPU]:.3f} / {c[CPU]:.3f}, {e[IO]:.0f} / {c[IO]:.0f}")
        (ec, cc), (ei, ci) = self.totals(CPU), self.totals(IO)
        rows.append(f"total: {ec:.3f} / {cc:.3f}, {ei:.0f} / {ci:.0f}")
        return "\n".join(rows)

    def logs(self):
        """(execd's stderr, collectd's log)."""
        return "\n".join(self.execd.stderr_lines()), self.collectd.log()

    def test_each_frontend_shows_each_program(self):
        for groups, log in zip((self.execd_groups, self.collectd_groups), self.logs()):
            ah.check_program_cpu(self, groups[CPU], PROGRAMS, log, self.evidence())
            self.assertGreater(groups[IO][IN_KERNEL], 1 << 20, f"{IN_KERNEL} read /dev/zero\n{self.evidence()}")

    def test_groups_add_up_to_each_total_and_totals_agree(self):
        for metrics, slack in ((CPU, 0.02), (IO, 0)):
            execd, collectd = self.totals(metrics)
            self.assertLessEqual(abs(sum(self.execd_groups[metrics].values()) - execd), slack, self.evidence())
            self.assertLessEqual(abs(sum(self.collectd_groups[metrics].values()) - collectd), slack, self.evidence())
            self.assertLessEqual(abs(execd - collectd), slack, self.evidence())

    def test_frontends_agree_per_group(self):
        print(self.evidence())
        self.assertEqual(set(self.execd_groups[CPU]), set(self.collectd_groups[CPU]), self.evidence())
        # What may move, per program, between its group and sh's: TAIL of
        # CPU, and the I/O the program does in that time (beta reads at a
        # steady rate per CPU second), plus an exec's reads.
        # Where a frontend lost exit records, a program's last moments,
        # however long, may stay in sh's group (ah.check_program_cpu).
        lost = any(ah.RECORDS_LOST in log for log in self.logs())
        moved = {}
        for name, seconds in PROGRAMS.items():
            io = max(self.execd_groups[IO].get(name, 0), self.collectd_groups[IO].get(name, 0))
            moved[name] = {CPU: seconds * 1.15 + 0.03, IO: io + EXEC_BYTES} if lost else \
                {CPU: TAIL, IO: TAIL / seconds * io + EXEC_BYTES}
        for metrics in (CPU, IO):
            for name, execd in self.execd_groups[metrics].items():
                # a group that is no program's (sh, cat) may take every program's tail
                allowed = moved[name][metrics] if name in moved else sum(m[metrics] for m in moved.values())
                collectd = self.collectd_groups[metrics][name]
                self.assertLessEqual(abs(execd - collectd), allowed, f"{name} {metrics}\n{self.evidence()}")

    def test_influxdb_has_collectd_groups(self):
        def influx_sums(metric):
            try:
                rows = self.influx.rows(INFLUX_DB, f"SELECT sum(value) FROM {MEASUREMENT[metric]} "
                                        f"WHERE type_instance = '{metric}' GROUP BY instance")
            except AssertionError as e:
                if "database not found" in str(e):
                    return {}  # the listener creates it with its first batch
                raise
            return {r["instance"]: r["sum"] for r in rows if r.get("instance", "").startswith(f"{TARGET}-")}

        def csv_sums(metric):
            return {i: self.collectd.csv_sum(i, metric) for i in self.collectd.breakdown_instances(TARGET)}

        def same(metric):
            # csv prints 6 decimals; the listener has the doubles collectd sent
            influx, csv = influx_sums(metric), csv_sums(metric)
            return influx.keys() == csv.keys() and all(
                math.isclose(influx[i], csv[i], rel_tol=1e-9, abs_tol=1e-4) for i in csv)

        for metric in CPU + IO:
            try:
                h.wait_until(lambda: same(metric), h.START_TIMEOUT, f"InfluxDB's {metric} sums to be csv's")
            except AssertionError as e:
                self.fail(f"{e}\ninflux {influx_sums(metric)}\ncsv {csv_sums(metric)}\n{self.influx.log_tail()}")
        self.assertLessEqual({f"{TARGET}-{name}" for name in PROGRAMS}, set(influx_sums(CPU[0])))

    def test_influxdb_stores_execd_lines(self):
        self.influx.create_database("execd")
        self.influx.write_ok("execd", self.execd.stdout_bytes().decode())
        rows = self.influx.rows("execd", f"SELECT sum({IO[0]}) FROM proctree WHERE target = '{TARGET}' "
                                "AND process != '' GROUP BY process")
        self.assertEqual({r["process"]: r["sum"] for r in rows}, self.execd_groups[IO])

    def test_carbon_has_group_paths(self):
        for name in PROGRAMS:
            self.carbon.wait_points(f"{ch.HOSTNAME}.proctree-{TARGET}-{name}.duration-proc_cpu_user_seconds")


if __name__ == "__main__":
    unittest.main(verbosity=2)
