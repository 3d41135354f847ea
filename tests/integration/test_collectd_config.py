"""Bad <Plugin proctree> configuration makes collectd refuse to start, and
the log names the option and the block.

collectd -T parses the config, runs init and one read, then exits: non-zero
when a config callback failed. (-t exits 0 in 5.12 without reading the
config, so it proves nothing.)
"""

import os
import re
import subprocess
import tempfile
import time
import unittest

import collectd_harness as ch

web = ch.process_block

# (what is wrong, body of <Plugin proctree>, what the ERROR line must contain)
BAD = [
    ("unknown option in a block", web("web", "Pid 1", "Frobnicate 3"), ['"Frobnicate"', '<Process "web">']),
    ("unknown global option", "  Frobnicate 3\n", ['"Frobnicate"', "<Plugin proctree>"]),
    ("wrong value type", web("web", 'Pid "one"'), ['"Pid"', '<Process "web">']),
    # 1.7 used to be read as pid 1: the whole host
    ("Pid not an integer", web("web", "Pid 1.7"), ['"Pid"', '<Process "web">', "integer"]),
    ("Pid out of range", web("web", "Pid 4194304"), ['"Pid"', '<Process "web">', "integer"]),
    ("DescriptorBudget not an integer", "  DescriptorBudget 1.5\n", ['"DescriptorBudget"', "<Plugin proctree>", "integer"]),
    ("negative DescriptorBudget", "  DescriptorBudget -1\n", ['"DescriptorBudget"', "integer"]),
    ("no selector", web("web", "CollectPss false"), ['<Process "web">', "no selector"]),
    ("two selectors", web("web", "Pid 1", 'PidFile "/run/web.pid"'), ['"PidFile"', '<Process "web">']),
    ("two selectors of one kind", web("web", 'Exe "a"', 'Exe "b"'), ['"Exe"', '<Process "web">', "second"]),
    ("bad regular expression", web("web", 'Match "(unclosed"'), ['<Process "web">', "regular expression"]),
    ("unknown user", web("web", 'User "no-such-user-proctree"'), ['<Process "web">', "no-such-user-proctree"]),
    ("duplicate name", web("web", "Pid 1") + web("web", "Pid 1"), ['<Process "web">', "duplicate"]),
    # one series under two names: the same line-protocol tag (a tab becomes
    # '_'), the same collectd plugin instance ('/' becomes '_')
    ("names written as one tag", web("x_y", "Pid 1") + web("x\ty", "Pid 1"),
     ["duplicate", '"x_y" and "x\\ty"']),
    ("names filed as one instance", web("a/b", "Pid 1") + web("a_b", "Pid 1"),
     ["duplicate", '<Process "a/b"> and <Process "a_b">']),
    ("empty name", web("", "Pid 1"), ['<Process "">', "empty"]),
    ("a unit of a type without processes", web("web", 'Unit "multi-user.target"'),
     ['<Process "web">', '"multi-user.target"', "no processes"]),
    ("a unit name with a slash", web("web", 'Unit "system.slice/x.service"'), ['<Process "web">', "'/'"]),
    ("BreakDown cgroup of a pid", web("web", "Pid 1", 'BreakDown "cgroup"'),
     ['<Process "web">', "breakdown by cgroup needs a cgroup or unit target"]),
    ("BreakDown misspelt", web("web", "Pid 1", 'BreakDown "titles"'),
     ['"BreakDown"', '<Process "web">', 'expects a breakdown: process, title, thread or cgroup']),
    # a title pattern is compiled at the config's read: the option, its block and the pattern
    ("bad title pattern", web("web", "Pid 1", 'BreakDown "title"', 'BreakDownTitlePattern "^postgres: ("'),
     ['"BreakDownTitlePattern"', '<Process "web">', 'bad regular expression "^postgres: ("']),
    ("bad default title pattern", '  BreakDownTitlePattern "a{2,1}"\n' + web("web", "Pid 1", 'BreakDown "title"'),
     ['"BreakDownTitlePattern"', "<Plugin proctree>", 'bad regular expression "a{2,1}"']),
    ("empty title pattern", web("web", "Pid 1", 'BreakDown "title"', 'BreakDownTitlePattern ""'),
     ['"BreakDownTitlePattern"', '<Process "web">']),
    ("title pattern without BreakDown title", web("web", "Pid 1", 'BreakDownTitlePattern "(x)"'),
     ['<Process "web">', "a title pattern needs a breakdown by title"]),
    ("bad unit", '  ProcMemoryUnit "TB"\n', ['"ProcMemoryUnit"', "<Plugin proctree>"]),
    ("a unit no page lists", '  ProcMemoryUnit "KB"\n',
     ['"ProcMemoryUnit"', 'expects one of bytes, kB, MB, GB, KiB, MiB, GiB']),
    ("CounterMode misspelt", '  CounterMode "totals"\n' + web("web", "Pid 1"),
     ['"CounterMode"', "<Plugin proctree>", "expects a counter mode: delta or total"]),
    ("CounterMode not a string", "  CounterMode 1\n" + web("web", "Pid 1"),
     ['"CounterMode"', '"delta" or "total"']),
    ("CounterMode in a block", web("web", "Pid 1", 'CounterMode "total"'),
     ['"CounterMode"', '<Process "web">', "global option"]),
    ("PollInterval 0", "  PollInterval 0\n" + web("web", "Pid 1"), ['"PollInterval"', "<Plugin proctree>"]),
    ("negative DiscoveryInterval", "  DiscoveryInterval -1\n", ['"DiscoveryInterval"']),
    ("PssInterval 0", "  PssInterval 0\n", ['"PssInterval"', "<Plugin proctree>"]),
    ("negative PssBudget", web("web", "Pid 1", "PssBudget -0.001"), ['"PssBudget"', '<Process "web">']),
    # each key has one scope (common/include/proctree/optiontable.h), the same as proctree-execd's
    ("a global option in a block", web("web", "Pid 1", "PollInterval 1"),
     ['"PollInterval"', '<Process "web">', "global option"]),
    ("a selector outside every block", "  Pid 1\n", ['"Pid"', "<Plugin proctree>", "selector"]),
    ("a bad default of every block", "  BreakDownLimit 0\n", ['"BreakDownLimit"', "<Plugin proctree>", "integer"]),
    ("an unknown ranking", web("web", "Pid 1", 'BreakDown "process"', 'BreakDownRank "disk"'),
     ['"BreakDownRank"', '<Process "web">', "expects a ranking: seen, cpu, memory or io"]),
    ("a ranking that is no string", web("web", "Pid 1", 'BreakDown "process"', "BreakDownRank 1"),
     ['"BreakDownRank"', '"seen", "cpu", "memory" or "io"']),
    # a container's collectd given the host's /proc: a typo would measure
    # nothing, or the container's own /proc, and look fine
    ("ProcRoot missing", '  ProcRoot "/nonexistent/hostfs/proc"\n', ['"ProcRoot"', "<Plugin proctree>", "/nonexistent"]),
    ("ProcRoot not a proc", '  ProcRoot "/tmp"\n', ['"ProcRoot"', "not a proc filesystem"]),
    ("ProcRoot not a string", "  ProcRoot 1\n", ['"ProcRoot"', "directory"]),
    ("SysRoot missing", '  SysRoot "/nonexistent/hostfs/sys"\n', ['"SysRoot"', "<Plugin proctree>", "/nonexistent"]),
    # PATH_MAX - 1 bytes fit; one more used to be cut silently
    ("selector text too long", web("web", 'Match "%s"' % ("a" * 4096)),
     ['"Match"', '<Process "web">', "longer than 4095 bytes"]),
    ("path too long", web("web", 'PidFile "/%s"' % ("p" * 4095)),
     ['"PidFile"', '<Process "web">', "longer than 4095 bytes"]),
]

GOOD = ("""  PollInterval 0.05
  DiscoveryInterval 2
  PssInterval 0.5
  ProcMemoryUnit "MiB"
  GlobalMemoryUnit "GB"
  CollectGlobal false
  ProcRoot "/proc"
  SysRoot "/sys"
  CollectPss false
  BreakDownLimit 5
"""
        + web("me", f"Pid {os.getpid()}", "CollectPss false", "CollectContextSwitch false",
              "CollectFileDescriptor false")
        + web("by-file", 'PidFile "/nonexistent/x.pid"', "PssBudget 0.01")
        + web("no-pss-guard", f"Pid {os.getpid()}", "PssBudget 0", "CollectPss true", "BreakDownLimit 1000")
        + web("by-regex", 'Match "collectd|python"')
        + web("by-exe", 'Exe "collectd"')
        + web("by-user", 'User "root"')
        + web("by-unit", 'Unit "php*-fpm.service"', 'BreakDown "cgroup"')
        + web("by-title", f"Pid {os.getpid()}", 'BreakDown "title"', 'BreakDownTitlePattern "^python[0-9.]* (\\\\S+)"')
        + web("by-long-regex", 'Match "%s"' % ("a" * 4095)))

# Numbers collectd parses but no deadline can be made of (issue 36): 300
# zeros after the point aborted collectd on the tick's assert; 1e22
# overflowed a cast and the sampler spun holding the lock (-T never
# exited). Each is refused by its key's range (common/include/proctree/optiontable.h).
# collectd's numbers have no exponent ("1e22" is a string to it).
TINY = "0." + "0" * 300 + "1"
BIG = "1" + "0" * 22
EXTREME = [
    ("PollInterval", "  PollInterval %s\n", TINY),
    ("PollInterval", "  PollInterval %s\n", BIG),
    ("PollInterval", "  PollInterval %s\n", "0.0009"),
    ("DiscoveryInterval", "  DiscoveryInterval %s\n", BIG),
    ("DiscoveryInterval", "  DiscoveryInterval %s\n", TINY),
    ("PssInterval", "  PssInterval %s\n", BIG),
    ("PssInterval", "  PssInterval %s\n", "86400.001"),
    ("PssBudget", "  PssBudget %s\n", BIG),
    ("PssBudget", web("web", "Pid 1", "PssBudget %s"), TINY),
]
# The ends of the range (and PssBudget's 0) are taken; PssEvery's, 1 and 3600.
BOUNDS = ("  PollInterval 0.001\n  DiscoveryInterval 86400\n  PssInterval 0.001\n  PssBudget 86400\n"
          + web("me", f"Pid {os.getpid()}", "PssBudget 0.001", "PssEvery 3600")
          + web("off", f"Pid {os.getpid()}", "PssBudget 0", "PssEvery 1"))

# Before the logfile plugin is initialised collectd logs to stdout without
# the level, so configuration errors are matched on the plugin's prefix.
PLUGIN_LINE = re.compile(r"^.*proctree plugin: .*$", re.M)


class CollectdConfig(unittest.TestCase):
    def check(self, body, **kw):
        """Exit status of collectd -T, the plugin's log lines, the whole log."""
        with tempfile.TemporaryDirectory(prefix="proctree-collectd-conf-") as tmp:
            collectd = ch.Collectd(tmp, body)
            status = collectd.check(**kw)
            log = collectd.log()
        return status, PLUGIN_LINE.findall(log), log

    def test_bad_config_refused_with_option_and_block_named(self):
        for what, body, expected in BAD:
            with self.subTest(what):
                status, lines, log = self.check(body)
                self.assertNotEqual(status, 0, f"collectd -T accepted:\n{body}\n{log}")
                self.assertTrue(any(all(e in line for e in expected) for line in lines),
                                f"no line with {expected}; got {lines}\n{log}")

    def test_extreme_durations_refused_at_once(self):
        for key, body, value in EXTREME:
            with self.subTest(key=key, value=value[:12]):
                started = time.monotonic()
                # a hang (the old 1e22) fails here, in seconds, not at the suite's timeout
                status, lines, log = self.check((body % value) + web("w", "Pid 1"), timeout=10)
                took = time.monotonic() - started
                self.assertNotIn("numeric argument", log, "collectd did not read it as a number: no test")
                self.assertNotEqual(status, 0, log[-3000:])
                self.assertLess(took, 2.0, log[-3000:])
                named = [line for line in lines if f'"{key}"' in line]
                self.assertEqual(len(named), 1, log[-3000:])
                self.assertIn("expects a number of seconds from 0.001 to 86400 (1ms to 24h)", named[0])

    def test_duration_bounds_taken(self):
        status, lines, log = self.check(BOUNDS)
        self.assertEqual(status, 0, log)
        self.assertEqual([line for line in lines if "option" in line], [], log)

    def test_hostile_name_logged_escaped(self):
        """A name with a newline (an operator may paste anything) is logged on
        its own line: nothing in the log poses as a line of collectd's own.
        The process is gone, so the plugin warns about the target."""
        gone = subprocess.Popen(["true"])
        gone.wait()
        status, lines, log = self.check(web("a\nE! forged", f"Pid {gone.pid}"))
        self.assertEqual(status, 0, log)
        self.assertTrue(any('"a\\nE! forged": no live process' in line for line in lines), log)
        self.assertEqual([line for line in log.splitlines() if line.startswith("E! forged")], [], log)

    def test_every_option_accepted(self):
        status, lines, log = self.check(GOOD)
        self.assertEqual(status, 0, log)
        self.assertEqual([line for line in lines if "option" in line or "<Process" in line], [], log)

    def test_setting_outside_blocks_is_every_blocks_default(self):
        """A per-target key outside every block is the default of every
        block, as a per-target option before every target is in
        proctree-execd; a block's own one wins."""
        me = f"Pid {os.getpid()}"
        body = "  CollectPss false\n" + web("off", me) + web("on", me, "CollectPss true")
        with tempfile.TemporaryDirectory(prefix="proctree-collectd-conf-") as tmp:
            with ch.Collectd(tmp, body) as collectd:
                collectd.wait_csv("on", "proc_pss_max", count=2)
                collectd.wait_csv("off", "proc_rss_max", count=2)
                self.assertEqual(collectd.csv_rows("off", "proc_pss_max"), [], collectd.log())


if __name__ == "__main__":
    unittest.main()
