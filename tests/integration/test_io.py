"""I/O of a target in an interval: proc_io_read_bytes / proc_io_write_bytes.

Why: these are deltas (rchar/wchar done during the interval), and deltas are
where accounting goes wrong: a counter summed twice, or not reset between
batches. iopump moves exactly PUMP bytes through read(2) and write(2) per
"go" line and nothing else, so with Telegraf's STDIN signal the batch that
closes an interval with one round must show PUMP (plus the few bytes of the
control lines), and an idle interval must show 0.
"""

import unittest

import harness as h

PUMP = 8_000_000
SLACK = 64  # "go\n" read from stdin and "done N\n" written to stdout


class IoDeltaTest(unittest.TestCase):
    def test_interval_io_is_what_the_target_moved(self):
        with h.iopump(PUMP) as pump, h.Execd(["--pid", pump.pid, "--name", "pump"]) as execd:
            execd.send()
            execd.wait_batches(1)  # interval 1 ends: the baseline
            pump.send(b"go\n")
            pump.read_lines(1, h.BATCH_TIMEOUT, "done")
            execd.send()
            execd.wait_batches(2)  # interval 2: one round
            execd.send()
            batches = execd.wait_batches(3)  # interval 3: idle

            lines = [h.target_line(points, "pump") for _, points in batches]
            self.assertNotIn(None, lines, execd.describe())
            busy, idle = lines[1].fields, lines[2].fields
            self.assertGreaterEqual(busy["proc_io_read_bytes"], PUMP, lines[1].raw)
            self.assertLessEqual(busy["proc_io_read_bytes"], PUMP + SLACK, lines[1].raw)
            self.assertGreaterEqual(busy["proc_io_write_bytes"], PUMP, lines[1].raw)
            self.assertLessEqual(busy["proc_io_write_bytes"], PUMP + SLACK, lines[1].raw)
            self.assertEqual(idle["proc_io_read_bytes"], 0, lines[2].raw)
            self.assertEqual(idle["proc_io_write_bytes"], 0, lines[2].raw)
            for line in lines:
                self.assertIs(type(line.fields["proc_io_read_bytes"]), int, line.raw)
                self.assertEqual(line.fields["proc_processes"], 1, line.raw)

        with h.InfluxDB() as influx:
            h.store_and_read_back(influx, "io", execd.stdout_bytes(), execd.points())


if __name__ == "__main__":
    unittest.main(verbosity=2)
