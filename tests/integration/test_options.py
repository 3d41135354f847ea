"""Command-line errors, --help and --version.

Why: under Telegraf a bad option shows up only as one stderr line in the
agent's log, so it must be a single line that names the culprit, with exit
status 2 (the usual usage-error status) rather than a crash, a silent
default, or a run that never measures anything.
"""

import os
import unittest

import harness as h

ME = str(os.getpid())  # a live pid, so only the option under test is wrong


def option_list(scope=None):
    """proctree-execd's options from its table (--list-options), of one scope or all."""
    res = h.run_execd(["--list-options"])
    rows = [line.split("\t") for line in res.stdout.splitlines()]
    return [r[0] for r in rows if r[0] != "-" and scope in (None, r[2])]

BAD = [
    # (arguments, text the single stderr line must contain)
    (["--pid", ME, "--bogus"], "--bogus"),
    (["--pid"], "--pid"),
    (["--pid", ME, "--interval"], "--interval"),
    (["--pid", ME, "--interval", "0"], "--interval"),
    (["--pid", ME, "--interval", "abc"], "--interval"),
    (["--pid", ME, "--interval", "-1s"], "--interval"),
    (["--pid", ME, "--poll-interval", "0"], "--poll-interval"),
    (["--pid", ME, "--discovery-interval", "soon"], "--discovery-interval"),
    (["--pid", ME, "--pss-interval", "0"], "--pss-interval"),
    (["--pid", ME, "--pss-budget", "x"], "--pss-budget"),
    (["--pid", ME, "--proc-memory-unit", "TB"], "--proc-memory-unit"),
    # the units the man page, --help and the error list, and no others ("KB" reads as 1000 to some)
    (["--pid", ME, "--proc-memory-unit", "KB"], '"KB": expected one of bytes, kB, MB, GB, KiB, MiB, GiB'),
    (["--pid", ME, "--proc-memory-unit", "B"], "--proc-memory-unit"),
    (["--pid", ME, "--global-memory-unit", "pages"], "--global-memory-unit"),
    (["--pid", ME, "--counters", "totals"], '--counters: "totals": expected a counter mode: delta or total'),
    (["--pid", ME, "--counters", "Total"], '--counters: "Total"'),
    (["--pid", ME, "--counters"], "--counters"),
    (["--pid", "abc"], "--pid"),
    # integers only, in the kernel's pid range: no fraction, sign, space or exponent
    (["--pid", "1.7"], "--pid"),
    (["--pid", "+1"], "--pid"),
    (["--pid", " 1"], "--pid"),
    (["--pid", "1e0"], "--pid"),
    (["--pid", "4194304"], "--pid"),
    (["--pid", ME, "--descriptor-budget", "1.5"], "--descriptor-budget"),
    (["--pid", ME, "--descriptor-budget", "-1"], "--descriptor-budget"),
    (["--pid", ME, "--descriptor-budget", "16777217"], "--descriptor-budget"),
    (["--name", "x", "--pid", ME], "--name"),
    # a target is named once: a second --name used to rename it silently
    (["--pid", ME, "--name", "a", "--name", "b"], '--name "b": the target before it (--pid) is named "a"'),
    (["--name", "a", "--name", "b", "--", "true"], '--name "b"'),
    (["--pid", ME, "--pss-budget", "-1ms"], "--pss-budget"),
    # every duration from 1ms to 24h (common/include/proctree/units.h): at 1ns the tick's
    # deadline was lost to rounding after 194 days of uptime and it aborted
    (["--pid", ME, "--poll-interval", "1ns"], '--poll-interval: "1ns": expected a duration from 1ms to 24h'),
    (["--pid", ME, "--poll-interval", "999us"], "--poll-interval"),
    (["--pid", ME, "--discovery-interval", "1ns"], "--discovery-interval: \"1ns\": expected a duration from 1ms"),
    (["--pid", ME, "--discovery-interval", "25h"], "--discovery-interval"),
    (["--pid", ME, "--pss-interval", "1us"], "--pss-interval"),
    (["--pid", ME, "--pss-interval", "86401"], "--pss-interval"),
    (["--pid", ME, "--interval", "1ns"], "--interval"),
    (["--pid", ME, "--interval", "1441m"], "--interval"),
    (["--pid", ME, "--pss-budget", "1ns"], "--pss-budget: \"1ns\": expected a duration from 1ms to 24h"),
    (["--pid", ME, "--pss-budget", "24.001h"], "--pss-budget"),
    (["--pid", ME, "--by-limit", "0"], "--by-limit"),
    (["--pid", ME, "--by", "titles"], '--by: "titles": expected a breakdown: process, title, thread or cgroup'),
    (["--pid", ME, "--by", "process", "--by-rank", "disk"], '--by-rank: "disk": expected a ranking: seen, cpu, memory or io'),
    (["--pid", ME, "--by", "process", "--by-rank", "CPU"], '--by-rank: "CPU"'),
    # by thread a line has CPU alone
    (["--pid", ME, "--by", "thread", "--by-rank", "memory"], "a breakdown by thread is not ranked by memory"),
    (["--pid", ME, "--by", "thread", "--by-rank", "io"], "a breakdown by thread is not ranked by io (cpu or seen only)"),
    # a title pattern is compiled at start: the option and the pattern, escaped, in the one line
    (["--pid", ME, "--by", "title", "--by-title-pattern", "^postgres: ("],
     '--by-title-pattern: bad regular expression "^postgres: ("'),
    (["--pid", ME, "--by", "title", "--by-title-pattern", "a\nE! forged ["],
     '--by-title-pattern: bad regular expression "a\\nE! forged ["'),
    (["--pid", ME, "--by", "title", "--by-title-pattern", ""], "--by-title-pattern"),
    (["--pid", ME, "--by", "process", "--by-title-pattern", "(x)"], "a title pattern needs a breakdown by title"),
    (["--pid", ME, "--pss-every", "0"], "--pss-every"),
    (["--pid", ME, "--pss-every", "3601"], "--pss-every"),
    # a directory that is no proc: the option is named at start
    (["--pid", ME, "--proc-root", "/tmp"], "--proc-root"),
    (["--pid", ME, "--proc-root", "/no/such/dir"], "--proc-root"),
]


class OptionsTest(unittest.TestCase):
    def assert_usage_error(self, args, culprit):
        res = h.run_execd(args)
        lines = res.stderr.splitlines()
        where = f"args {args}: status {res.returncode}, stderr {res.stderr!r}, stdout {res.stdout!r}"
        self.assertEqual(res.returncode, 2, where)
        self.assertEqual(len(lines), 1, where)
        self.assertEqual(res.stdout, "", where)
        if culprit is not None:
            self.assertIn(culprit, lines[0], where)
        return lines[0]

    def test_bad_options(self):
        for args, culprit in BAD:
            with self.subTest(args=args):
                self.assert_usage_error(args, culprit)

    def test_no_target(self):
        """Nothing to measure is an error that says what is missing: a target."""
        for args in ([], ["--interval", "1s"], ["--once"]):
            with self.subTest(args=args):
                line = self.assert_usage_error(args, None)
                self.assertRegex(line.lower(), r"target|--pid", line)

    def test_no_target_names_every_selector(self):
        line = self.assert_usage_error([], None)
        for option in option_list("selector"):
            self.assertIn(option, line)

    def test_pss_budget_zero_turns_the_guard_off(self):
        """0 is the documented "no guard" (selector.h, sampling.c): taken."""
        res = h.run_execd(["--pid", ME, "--pss-budget", "0", "--once", "--interval", "0.1s"])
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn("proc_pss_max=", res.stdout)

    def test_duration_bounds_taken(self):
        """Both ends of the durations' range (common/include/proctree/units.h) are taken."""
        res = h.run_execd(["--pid", ME, "--poll-interval", "1ms", "--discovery-interval", "24h", "--pss-interval",
                           "1ms", "--pss-budget", "24h", "--once", "--interval", "1ms"])
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn("proc_rss_max=", res.stdout)

    def test_per_target_options(self):
        """A per-target option applies to the target before it; before every
        target, to all of them."""
        res = h.run_execd(["--no-fds", "--pid", ME, "--name", "a", "--pid", ME, "--name", "b", "--no-pss",
                           "--once", "--interval", "0.1s"])
        self.assertEqual(res.returncode, 0, res.stderr)
        lines = {l.split(" ")[0]: l for l in res.stdout.splitlines() if "target=" in l}
        a, b = lines["proctree,target=a"], lines["proctree,target=b"]
        self.assertNotIn("proc_fds=", a + b)
        self.assertIn("proc_pss_max=", a)
        self.assertNotIn("proc_pss_max=", b)

    def test_help(self):
        res = h.run_execd(["--help"])
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn("usage", res.stdout.lower())
        for option in option_list():
            self.assertIn(option, res.stdout, "--help must list every option")

    def test_help_after_a_target(self):
        """--help after a target exits 0 with nothing on stderr: in the
        sanitizer build the target list used to leak, and the leak report
        made it exit 1 (as it made a usage error after a target exit 1,
        not 2: test_bad_options' first case)."""
        res = h.run_execd(["--pid", ME, "--help"])
        self.assertEqual((res.returncode, res.stderr), (0, ""))
        self.assertIn("usage", res.stdout.lower())

    def test_version(self):
        res = h.run_execd(["--version"])
        self.assertEqual(res.returncode, 0, res.stderr)
        expected = os.environ.get("PROCTREE_VERSION")
        if expected:  # meson passes the project's version
            self.assertIn(expected, res.stdout)
        else:
            self.assertRegex(res.stdout, r"\d+\.\d+")


if __name__ == "__main__":
    unittest.main(verbosity=2)
