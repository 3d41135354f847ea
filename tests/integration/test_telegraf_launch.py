"""Launch mode (proctree-execd -- COMMAND) under the real Telegraf.

Why: Telegraf stops a plugin by closing its stdin (SIGTERM 5 s later, to
proctree-execd's pid only), restarts a program that exits, and stops reading
stderr after a line over 64 KiB. So: stopping or reloading Telegraf must end
the launched job with proctree-execd and leave exactly one of each after a
reload; a job that ignores SIGTERM and daemonises must still be gone; a job
that ends must not be run again; a job that floods its output must neither
block nor delay a batch.
"""

import os
import signal
import tempfile
import time
import unittest

import harness as h
import telegraf_harness as th

TELEGRAF = th.telegraf_or_skip()


def marker():
    """A sleep duration unique to this test run: it finds the job's processes."""
    return f"{4000 + os.getpid() % 1000}.{time.monotonic_ns() % 100000:05d}"


class TelegrafLaunchTest(unittest.TestCase):
    def test_stop_ends_proctree_and_the_job_within_a_second(self):
        m = marker()
        with th.Telegraf(TELEGRAF, ["--", "sh", "-c", f"sleep {m} & sleep {m}; wait"]) as telegraf:
            execd = telegraf.wait_execd()
            h.wait_until(lambda: len(th.pids_with_cmdline(m)) >= 3, 10, "the job")
            telegraf.wait_batches(1)
            telegraf.signal(signal.SIGTERM)
            took = th.wait_gone(execd, 10)
            self.assertLess(took, 1.0, telegraf.describe())
            h.wait_until(lambda: not th.pids_with_cmdline(m), 1, f"the job to end\n{telegraf.describe()}")

    def test_a_killed_proctree_leaves_no_job_for_the_restart_to_double(self):
        """kill -KILL of the proctree-execd Telegraf runs: the job ends with
        it (within a second), and Telegraf's restart runs one job again,
        never a second beside the first."""
        m = marker()
        with th.Telegraf(TELEGRAF, ["--", "sh", "-c", f"sleep {m} & sleep {m}; wait"]) as telegraf:
            execd = telegraf.wait_execd()
            h.wait_until(lambda: len(th.pids_with_cmdline(m)) == 3, 10, "the job")  # sh and two sleeps
            os.kill(execd, signal.SIGKILL)
            killed = time.monotonic()
            h.wait_until(lambda: not th.pids_with_cmdline(m), 1, f"the job to end\n{telegraf.describe()}")
            h.wait_until(lambda: [p for p in telegraf.execd_pids() if p != execd], 20, "the restart")
            h.wait_until(lambda: len(th.pids_with_cmdline(m)) == 3, 10, "the job again")
            while time.monotonic() < killed + 14:
                self.assertEqual(len(th.pids_with_cmdline(m)), 3, telegraf.describe())
                time.sleep(0.1)

    def test_reload_leaves_one_proctree_and_one_job(self):
        m = marker()
        with th.Telegraf(TELEGRAF, ["--", "sleep", m]) as telegraf:
            first = telegraf.wait_execd()
            telegraf.wait_batches(1)
            telegraf.signal(signal.SIGHUP)
            th.wait_gone(first, 10)
            h.wait_until(lambda: telegraf.execd_pids(), 20, "the new proctree-execd")
            h.wait_until(lambda: len(th.pids_with_cmdline(m)) == 1, 10, "one job")
            # and it stays so over a few gathers
            deadline = time.monotonic() + 3
            while time.monotonic() < deadline:
                self.assertEqual(len(telegraf.execd_pids()), 1, telegraf.describe())
                self.assertEqual(len(th.pids_with_cmdline(m)), 1, telegraf.describe())
                time.sleep(0.1)

    def test_nothing_of_the_tree_survives_a_stop(self):
        """Members that ignore SIGTERM, one in a new session: SIGKILL after the grace time."""
        m = marker()
        job = (f"trap '' TERM; setsid sh -c 'trap \"\" TERM; sleep {m}' & "
               f"sh -c 'trap \"\" TERM; sleep {m}' & sleep {m}; wait")
        with th.Telegraf(TELEGRAF, ["--", "sh", "-c", job]) as telegraf:
            execd = telegraf.wait_execd()
            h.wait_until(lambda: len(th.pids_with_cmdline(m)) >= 6, 10, "the job")
            telegraf.wait_batches(1)
            telegraf.signal(signal.SIGTERM)
            th.wait_gone(execd, 10)
            # every member ignores SIGTERM: none is left only if proctree's
            # SIGKILL came after its grace time. Its "W! ... SIGKILL" line is
            # not asked of Telegraf's log: Telegraf (internal/process) calls
            # Cmd.Wait while its reader drains stderr, and Wait closes the pipe
            # once the process exits, so the last lines before an exit are
            # lost at times ("read |0: file already closed" in its log).
            self.assertEqual(th.pids_with_cmdline(m), [], telegraf.describe())

    def test_a_finished_job_is_not_run_again(self):
        with tempfile.TemporaryDirectory() as tmp:
            runs = os.path.join(tmp, "runs")
            with th.Telegraf(TELEGRAF, ["--", "sh", "-c", f"echo run >> {runs}; sleep 0.5"]) as telegraf:
                execd = telegraf.wait_execd()
                batches = telegraf.wait_batches(14, timeout=40)  # restart_delay is 10 s
                self.assertEqual(telegraf.execd_pids(), [execd], telegraf.describe())
                with open(runs) as f:
                    self.assertEqual(f.read(), "run\n")
                lines = [p for _, points in batches for p in points if p.tags.get("target") == "sh"]
                self.assertEqual(lines[-1].fields["proc_processes"], 0, telegraf.describe())

    def test_a_100_kib_line_without_newline_blocks_nothing(self):
        with tempfile.TemporaryDirectory() as tmp:
            done = os.path.join(tmp, "done")
            job = f"head -c 102400 /dev/zero | tr '\\0' x; head -c 300000 /dev/zero | tr '\\0' '\\r'; touch {done}; sleep 30"
            with th.Telegraf(TELEGRAF, ["--", "sh", "-c", job]) as telegraf:
                h.wait_until(lambda: os.path.exists(done), 10, "the job to write all its output")
                batches = telegraf.wait_batches(6)
                th.assert_clean_log(self, telegraf)
                stamps = [t for t, _ in batches]
                gaps = [(b - a) / 1e9 for a, b in zip(stamps, stamps[1:])]
                # the first batch comes when proctree-execd is up (a BPF
                # load, a loaded host), so the first gap may be short
                self.assertTrue(all(g < 1.6 for g in gaps) and all(0.6 < g for g in gaps[1:]),
                                f"{gaps}\n{telegraf.describe()}")


if __name__ == "__main__":
    unittest.main(verbosity=2)
