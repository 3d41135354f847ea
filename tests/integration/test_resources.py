"""Running out of file descriptors.

Why: proctree keeps a few /proc files open per member, so a large tree under
a low open-files limit (a service manager's LimitNOFILE, collectd's own
limit) runs out. That must be said once, as one error line that says what
to raise, and must not stop the measurement: the members it could open are
measured, the ones it could not are counted in collector_vanished and tried
again at every discovery tick.
"""

import resource
import unittest

import harness as h

LIMIT = 24   # enough for proctree's own files and about three members
SLEEPERS = 8


def low_fd_limit():
    resource.setrlimit(resource.RLIMIT_NOFILE, (LIMIT, LIMIT))


class DescriptorsTest(unittest.TestCase):
    def test_out_of_descriptors_is_one_error_and_a_partial_tree(self):
        command = ["sh", "-c", f"for i in $(seq {SLEEPERS}); do sleep 2 & done; wait"]
        with h.Execd(["--interval", "0.3s", "--discovery-interval", "0.1s", "--", *command],
                     preexec_fn=low_fd_limit) as execd:
            execd.wait_batches(3)
            self.assertTrue(execd.running(), execd.describe())
            lines = [p for _, points in execd.batches() for p in points if p.tags]
            status = execd.wait_exit(10)
        self.assertEqual(status, 0, execd.describe())
        errors = [l for l in execd.stderr_lines() if l.startswith("E! ")]
        self.assertEqual(len(errors), 1, execd.describe())
        self.assertIn("out of file descriptors", errors[0])
        self.assertIn("LimitNOFILE", errors[0])
        processes = [p.fields["proc_processes"] for p in lines]
        self.assertTrue(all(0 < n < SLEEPERS + 1 for n in processes[:3]),
                        f"a partial tree was expected: {processes}\n{execd.describe()}")
        self.assertTrue(any(p.fields["collector_vanished"] > 0 for p in lines), execd.describe())


if __name__ == "__main__":
    unittest.main(verbosity=2)
