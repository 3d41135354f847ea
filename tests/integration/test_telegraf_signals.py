"""The real Telegraf drives proctree-execd in each of its signal modes.

Why: the suite's imitation of inputs.execd is only as good as our reading of
Telegraf. Here Telegraf v1.39 itself sends the newline (signal = "STDIN"),
SIGHUP or SIGUSR1 at each gather, or nothing (signal = "none", proctree-execd
--interval). Each gather must give exactly one batch (batches about 1 s
apart, none doubled, none missing), holding what proctree-execd reports when
driven directly on the same tree, and Telegraf's log must stay clean.
"""

import unittest

import harness as h
import telegraf_harness as th

TELEGRAF = th.telegraf_or_skip()
NPROCS, MIB_EACH = 3, 8
GATHERS = 4


class TelegrafSignalTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tree = h.memtree(NPROCS, MIB_EACH)
        with h.Execd(["--pid", cls.tree.pid, "--name", "tree", "--no-global"]) as direct:
            direct.send()
            cls.direct = h.target_line(direct.wait_batches(1)[-1][1], "tree")

    @classmethod
    def tearDownClass(cls):
        cls.tree.stop()

    def run_mode(self, signal_name, extra=()):
        args = ["--pid", self.tree.pid, "--name", "tree", "--no-global", *extra]
        with th.Telegraf(TELEGRAF, args, signal_name) as telegraf:
            batches = telegraf.wait_batches(GATHERS + 2)
            th.assert_clean_log(self, telegraf)
            describe = telegraf.describe()
        stamps = [t for t, _ in batches]
        msg = f"batches at {[t / 1e9 for t in stamps]}\n{describe}"
        if signal_name == "none":
            # proctree-execd's own interval: a doubled batch gives a short gap, a missed one a long gap
            gaps = [(b - a) / 1e9 for a, b in zip(stamps, stamps[1:])]
            for gap in gaps:
                self.assertGreater(gap, 0.6, msg)
                self.assertLess(gap, 1.6, msg)
        else:
            # Telegraf gathers at each whole second (round_interval, interval
            # 1s), and proctree-execd answers a gather with a batch stamped
            # when it is written: one batch per gather is one batch in each
            # second, none doubled, none missing. Not the first: the first
            # gather can come while proctree-execd still starts, which was
            # seen to answer it 0.86 s late (the next one then 0.14 s after)
            # on a busy host.
            seconds = [t // 10**9 for t in stamps[1:]]
            self.assertEqual(seconds, list(range(seconds[0], seconds[0] + len(seconds))), msg)
        for _, points in batches:
            self.assertEqual(len(points), 1, describe)
            line = points[0]
            self.assertEqual(line.tags, {"target": "tree", "host": th.HOSTNAME})
            self.assertEqual(line.fields["proc_processes"], NPROCS, describe)
            for field in ("proc_rss_max", "proc_anon_max"):
                self.assertAlmostEqual(line.fields[field], self.direct.fields[field],
                                       delta=0.05 * self.direct.fields[field], msg=f"{field}\n{describe}")

    def test_stdin(self):
        self.run_mode("STDIN")

    def test_sighup(self):
        self.run_mode("SIGHUP")

    def test_sigusr1(self):
        self.run_mode("SIGUSR1")

    def test_none_with_interval(self):
        self.run_mode("none", ["--interval", "1s"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
