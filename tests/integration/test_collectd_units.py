"""Unit "NAME" in collectd: the same selector as proctree-execd's --unit.

A real systemd is booted in namespaces of its own (systemd_harness.py) and
collectd runs inside with the built proctree.so, one <Process> block per
case: a delegated service whose workers live in sub-cgroups, a slice of two
services with BreakDown "cgroup", a glob over two units, a unit that does
not exist, and a glob with BreakDown "cgroup" over a system unit and a user
manager's of one name (two value sets). Every csv row read of proc_processes
(after the first exact one) must be exactly the number of processes in the
units' cgroups, as systemd's cgroup.procs files say; the slice's value sets per child cgroup
(plugin instance slice-a.service, slice-b.service) add up to the slice's.
"""

import contextlib
import unittest

import harness as h
import systemd_harness as sh

ROWS = 3  # exact rows required per block, after the first exact one


class CollectdUnits(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        stack = contextlib.ExitStack()
        cls.addClassCleanup(stack.close)  # reverse order: collectd, then systemd
        cls.sd = sd = stack.enter_context(sh.Systemd())
        sd.run(["mkdir", "-p", "/run/proctree-test"])
        sd.write_file("/run/proctree-test/delegated.sh", """#!/bin/sh
cg=/sys/fs/cgroup$(sed -n 's/^0:://p' /proc/self/cgroup)
mkdir "$cg/main" "$cg/w1" "$cg/w2"
echo $$ > "$cg/main/cgroup.procs"
sh -c 'echo $$ > "$1/cgroup.procs" && exec sleep 3600' sh "$cg/w1" &
sh -c 'echo $$ > "$1/cgroup.procs" && exec sleep 3600' sh "$cg/w2" &
wait
""", 0o755)
        sd.start_service("pt-deleg", ["/run/proctree-test/delegated.sh"], properties=["Delegate=yes"])
        sd.start_service("a", ["sh", "-c", "sleep 3600 & wait"], slice="test.slice")
        sd.start_service("b", ["sh", "-c", "sleep 3600 & sleep 3600 & wait"], slice="test.slice")
        sd.start_service("pt-glob-a", ["sleep", "3600"])
        sd.start_service("pt-glob-b", ["sh", "-c", "sleep 3600 & wait"])
        # the system manager's pt-twin.service, and user@1000's faked: a
        # cgroup where it puts its units, a sleep a service's shell moved there
        sd.write_file("/run/proctree-test/into.sh", """#!/bin/sh
cg="$1"; shift
sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$cg" "$@" &
wait
""", 0o755)
        user = "/user.slice/user-1000.slice/user@1000.service/app.slice/pt-twin.service"
        sd.run(["mkdir", "-p", f"/sys/fs/cgroup{user}"])
        sd.start_service("pt-twin", ["sh", "-c", "sleep 3600 & wait"])
        sd.start_service("pt-launch-twin", ["/run/proctree-test/into.sh", f"/sys/fs/cgroup{user}", "sleep", "3600"])
        cls.expected = {"deleg": 3, "slice": 5, "glob": 3, "none": 0, "slice-a.service": 2, "slice-b.service": 3,
                        "twin": 3, "twin-pt-twin.service": 2, "twin-user@1000.service:pt-twin.service": 1}
        for unit, n in (("pt-deleg.service", 3), ("a.service", 2), ("b.service", 3), ("pt-glob-a.service", 1),
                        ("pt-glob-b.service", 2), ("pt-twin.service", 2)):
            sd.wait_pids(unit, n)
        h.wait_until(lambda: len(sd.cgroup_pids(user)) == 1, h.START_TIMEOUT, "the user unit's sleep")
        body = ("  DiscoveryInterval 0.2\n"
                '  <Process "deleg">\n    Unit "pt-deleg.service"\n  </Process>\n'
                '  <Process "slice">\n    Unit "test.slice"\n    BreakDown "cgroup"\n  </Process>\n'
                '  <Process "glob">\n    Unit "pt-glob-*.service"\n  </Process>\n'
                '  <Process "none">\n    Unit "pt-nosuch.service"\n  </Process>\n'
                '  <Process "twin">\n    Unit "pt-twin*"\n    BreakDown "cgroup"\n  </Process>\n')
        cls.collectd = stack.enter_context(sd.collectd(body))

    def exact_rows(self, instance):
        """proc_processes rows of instance from the first that is exact, once there are ROWS of them."""
        want = self.expected[instance]

        def enough():
            values = [v for _, v in self.collectd.csv_rows(instance, "proc_processes")]
            if want in values:
                values = values[values.index(want):]
                return values if len(values) >= ROWS else None
            return None
        try:
            return h.wait_until(enough, h.START_TIMEOUT, f"{ROWS} rows of {instance} from its first {want}")
        except AssertionError as e:
            rows = self.collectd.csv_rows(instance, "proc_processes")
            raise AssertionError(f"{e}: {rows}\ncollectd log:\n{self.collectd.log()[-3000:]}") from None

    def assert_exact(self, instance):
        values = self.exact_rows(instance)
        self.assertEqual(values, [self.expected[instance]] * len(values), self.collectd.log()[-2000:])

    def test_delegated_service_with_sub_cgroups(self):
        self.assert_exact("deleg")

    def test_slice_with_breakdown_by_cgroup(self):
        self.assert_exact("slice")
        self.assert_exact("slice-a.service")
        self.assert_exact("slice-b.service")
        self.assertEqual(self.collectd.breakdown_instances("slice"), ["slice-a.service", "slice-b.service"])

    def test_glob_sums_both_units(self):
        self.assert_exact("glob")

    def test_two_units_of_one_name_are_two_value_sets(self):
        # a glob over a system unit and a user's of one name: one value set
        # each, the user's named user@UID.service:NAME (1c5c4a5: one of 3)
        self.assert_exact("twin")
        self.assert_exact("twin-pt-twin.service")
        self.assert_exact("twin-user@1000.service:pt-twin.service")
        self.assertEqual(self.collectd.breakdown_instances("twin"),
                         ["twin-pt-twin.service", "twin-user@1000.service:pt-twin.service"])

    def test_unknown_unit_reports_zero(self):
        self.assert_exact("none")
        self.assertTrue(self.collectd.running(), self.collectd.log())


if __name__ == "__main__":
    sh.systemd_or_skip()
    unittest.main(verbosity=2)
