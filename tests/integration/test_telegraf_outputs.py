"""Telegraf's outputs receive proctree's batches intact.

Why: users read proctree through Telegraf's outputs, not its stdout. The
points must reach a real influxd through outputs.influxdb with Telegraf's
host tag, outputs.file must hold what was gathered, hostile process names
and --name values must pass Telegraf's influx parser unchanged, and
Telegraf's log must show no parse error and no proctree line at error level
(only what proctree marks E!).
"""

import os
import shutil
import subprocess
import tempfile
import unittest

import harness as h
import telegraf_harness as th

TELEGRAF = th.telegraf_or_skip()
# --name values and process names (comm); tab and newline proctree replaces
# and backslashes (Telegraf rejects tab and LF even escaped), the rest come back as is
HOSTILE_NAME = ['a b,c=d"e=x', "caf\u00e9 \u2603,=", "ta\tb\nc"]
HOSTILE_COMM = ["we ird,na=me", 'q"uo\'te=', "new\nline", "ends\\"]


class TelegrafOutputTest(h.InfluxTestCase):
    def test_influxdb_and_file_get_every_batch(self):
        with h.memtree(2, 4) as tree, \
                th.Telegraf(TELEGRAF, ["--pid", tree.pid, "--name", "tree"], influx=self.influx,
                            database="tg") as telegraf:
            batches = telegraf.wait_batches(3)
            rows = h.wait_until(
                lambda: self.influx.rows("tg", 'SELECT proc_processes, host FROM proctree WHERE target = \'tree\''),
                20, "points in influxd\n" + telegraf.describe(), interval=0.2)
            th.assert_clean_log(self, telegraf)
        for _, points in batches:
            self.assertEqual(sorted(p.tags.get("target", "") for p in points), ["", "tree"])
            for p in points:
                self.assertEqual(p.tags["host"], th.HOSTNAME)
        self.assertTrue(all(r["host"] == th.HOSTNAME and r["proc_processes"] == 2 for r in rows), rows)

    def test_hostile_names_pass_through_intact(self):
        """Telegraf's parser and serializer give back the target tags proctree printed."""
        tmp = tempfile.mkdtemp(prefix="proctree-hostile-")
        procs = []
        try:
            args = []
            for i, name in enumerate(HOSTILE_COMM):
                exe = os.path.join(tmp, name)
                shutil.copy("/bin/sleep", exe)
                procs.append(subprocess.Popen([exe, "60"]))
                args += ["--pid", procs[-1].pid] + (["--name", HOSTILE_NAME[i]] if i < len(HOSTILE_NAME) else [])
            args.append("--no-global")
            with h.Execd(args) as direct:
                direct.send()
                printed = {p.tags["target"] for p in direct.wait_batches(1)[0][1]}
            self.assertEqual(len(printed), len(HOSTILE_COMM), printed)
            with th.Telegraf(TELEGRAF, args) as telegraf:
                batches = telegraf.wait_batches(2)
                th.assert_clean_log(self, telegraf)
                for _, points in batches:
                    self.assertEqual({p.tags["target"] for p in points}, printed, telegraf.describe())
            self.assertIn(HOSTILE_NAME[0], printed)
        finally:
            for proc in procs:
                h.stop_process(proc)
            shutil.rmtree(tmp)


if __name__ == "__main__":
    unittest.main(verbosity=2)
