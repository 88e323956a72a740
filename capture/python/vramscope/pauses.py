"""How long the recorder may pause the program: retention graphs (automatic, on request, at an OOM,
at exit) all come out of one budget, a share of the run's time so far (default 5 %,
VRAMSCOPE_PAUSE_BUDGET). The run starts when the recorder starts, its import of torch and CUDA's
initialisation included: under `python -m vramscope record` these are the program's own first
seconds, which `time python train.py` counts too. Pure Python, no torch: tested offline.

    VRAMSCOPE_PAUSE_BUDGET=5%      the default; also "0.05"; a number above 1 is read as percent
    VRAMSCOPE_PAUSE_BUDGET=0       no retention graph at all (each one skipped, and said so)
    VRAMSCOPE_PAUSE_BUDGET=none    no limit (each graph still stops after retention_budget_s)

A walk may last what is left of the budget; walks the recorder starts by itself (automatic, OOM)
leave `reserve` of the budget for the graph at exit, the one a CI job keeps. A walk that reaches its
allowance stops where it is (the graph is written, marked truncated, with a warning saying why); one
that would get less than MIN_WALK_S is skipped, with a warning. Every pause is written into the
capture as an Annotation pair named PAUSE (START when the program stopped, END when it went on).
"""
import math
import os
import time

ENV = "VRAMSCOPE_PAUSE_BUDGET"
DEFAULT_SHARE = 0.05
MIN_WALK_S = 0.05
PAUSE = "vramscope: recorder paused the program"


def parse_share(value):
    """VRAMSCOPE_PAUSE_BUDGET -> a share of the run (0.05), or None for no limit. Unreadable values
    give the default (with the reason as the second element)."""
    v = (value or "").strip().lower()
    if v == "":
        return DEFAULT_SHARE, None
    if v in ("none", "off", "unlimited", "inf"):
        return None, None
    try:
        x = float(v[:-1]) / 100.0 if v.endswith("%") else float(v)
        if not v.endswith("%") and x > 1:
            x /= 100.0
        if math.isnan(x) or x < 0 or x > 1:
            raise ValueError(v)
        return x, None
    except ValueError:
        return DEFAULT_SHARE, "%s=%r is not a share of the run (e.g. 5%% or 0.05): using %g %%" % (
            ENV, value, DEFAULT_SHARE * 100)


class PauseBudget:
    def __init__(self, share=DEFAULT_SHARE, clock=time.monotonic, reserve=0.5, started=None):
        self.share = share
        self.clock = clock
        self.reserve = reserve
        self.started = clock() if started is None else started  # the run's start, on `clock`
        self.spent = 0.0
        self.count = 0

    @classmethod
    def from_env(cls, **kw):
        share, problem = parse_share(os.environ.get(ENV))
        b = cls(share, **kw)
        b.problem = problem
        return b

    def elapsed(self):
        return max(0.0, self.clock() - self.started)

    def allowed_total(self):
        return math.inf if self.share is None else self.share * self.elapsed()

    def allowance(self, final=False):
        """Seconds the next walk may take. `final`: the walk at exit (or one the user asked for),
        which may use the reserve too."""
        if self.share is None:
            return math.inf
        total = self.allowed_total()
        if not final:
            total *= 1.0 - self.reserve
        return max(0.0, total - self.spent)

    def why_short(self, final=False):
        """Why allowance(final) is below MIN_WALK_S, in words: a budget of 0, one spent on earlier
        pauses, or a run still too short for a walk (the graph at exit of a 1-s test run)."""
        if self.share == 0:
            return "the pause budget is 0"
        if self.spent > 0:
            return "the pause budget is spent"
        return "the run is too short for one (%g %% of its %.1f s is less than a walk's %.2f s)" % (
            self.share * 100, self.elapsed(), MIN_WALK_S)

    def charge(self, seconds):
        self.spent += max(0.0, seconds)
        self.count += 1

    def rule(self):
        """The budget in words: "5 % of the run so far" or "no limit"."""
        return "no limit" if self.share is None else "%g %% of the run so far" % (self.share * 100)

    def summary(self):
        """One line for the capture: the pauses' count and total against the run and the budget."""
        elapsed = self.elapsed()
        share = "no limit" if self.share is None else "budget %g %%" % (self.share * 100)
        pct = 100.0 * self.spent / elapsed if elapsed > 0 else 0.0
        return "%d pauses, %.3f s in total, %.2f %% of %.1f s run (%s)" % (self.count, self.spent, pct, elapsed, share)
