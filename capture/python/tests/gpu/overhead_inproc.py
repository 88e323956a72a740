"""The recorder's per-step cost taken apart in ONE process (issue 30, item 5): process-to-process noise
on the GPU machine (±30 % on a 1 ms step) hides differences of a few per cent, so the parts are
switched on and off in blocks of steps, in alternating order, and each block's median step is kept.
    python overhead_inproc.py [--reps R] [--json FILE] [--modes M,M...]
Modes: off; hist_nostack (PyTorch's history without stacks); hist_nocontext (the history asking for
a context at every allocation and free, given none: PyTorch's part without any stack); hist_alloc
(PyTorch's history, Python stacks of allocations only); hist_all (also of frees: what the recorder
asks for); hist_own (hist_all, the stacks gathered by the tracker's OwnStacks, not by PyTorch);
hist_own_alloc (the same for allocations only); tracker (hist_all + the native tracker's hook);
tracker_drain (+ a thread draining it every 0.1 s); tracker_own (tracker_drain with OwnStacks);
phases (the phase hooks alone); recorder (vramscope.start() with everything but retention graphs,
stopped after the block; OwnStacks); rec_torchstacks (the same with PyTorch gathering the stacks);
rec_no* (the Recorder without a part: PARTS); rec_slow, rec_allocstacks (OPTIONS). Workloads: `pair`
(one allocation and its free, 20 Python frames deep: µs per pair), `eager` (an MLP training step),
`generation` (a GPT-2 decode step with its KV cache). Prints a table: median of the blocks' medians,
and vs `off`; and the median of each block's ratio to the `off` block of its own repetition (paired
vs off)."""
import json
import os
import statistics
import sys
import tempfile
import threading
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import observer_programs as prog  # noqa: E402

MODES = ["off", "hist_nostack", "hist_nocontext", "hist_alloc", "hist_all", "hist_own", "hist_own_alloc", "tracker",
         "tracker_drain", "tracker_own", "phases", "recorder", "rec_torchstacks", "rec_nophases", "rec_noauto",
         "rec_nodriver", "rec_nogc", "rec_bare", "rec_slow", "rec_allocstacks"]
# the Recorder's parts each rec_no* mode leaves out (rec_bare: all of them)
PARTS = {"rec_nophases": {"phases"}, "rec_noauto": {"auto"}, "rec_nodriver": {"driver"}, "rec_nogc": {"gc"},
         "rec_bare": {"phases", "auto", "driver", "gc"}}
# the Recorder's options other modes change: a tick of 1 s instead of 0.1 s; no stacks of frees
OPTIONS = {"rec_slow": {"interval": 1.0}, "rec_allocstacks": {"free_stacks": False}}


class Switch:
    """Turns one mode on and off."""

    def __init__(self):
        self.module = None
        self.tmp = tempfile.mkdtemp()
        self.n = 0

    def tracker_module(self):
        if self.module is None:
            from vramscope import native
            self.module, why = native.load()
            assert self.module is not None, why
        return self.module

    def on(self, mode):
        self.stop_drain = threading.Event()
        self.thread = self.phases = self.rec = None
        if mode.startswith("hist") or mode.startswith("tracker"):
            context = {"hist_nostack": None, "hist_alloc": "alloc", "hist_own_alloc": "alloc"}.get(mode, "all")
            torch.cuda.memory._record_memory_history(enabled="all", context=context, stacks="python", max_entries=1)
        if mode in ("hist_own", "hist_own_alloc"):  # our stacks of allocations and frees, or allocations only
            assert self.tracker_module().use_own_stacks(1, mode == "hist_own") == ""
        if mode == "hist_nocontext":  # contexts asked for at every event, none given
            assert self.tracker_module().use_no_contexts(1, True)
        if mode in ("tracker", "tracker_drain", "tracker_own"):
            m = self.tracker_module()
            m.start(1 << 24, True)
            if mode == "tracker_own":
                assert m.use_own_stacks(1, True) == ""
            if mode != "tracker":
                def loop():
                    while not self.stop_drain.wait(0.1):
                        m.drain()
                self.thread = threading.Thread(target=loop, daemon=True)
                self.thread.start()
        if mode == "phases":
            from vramscope import phases
            self.phases = phases.PhaseTracker(torch, torch.cuda.current_device).install()
        if mode == "recorder" or mode.startswith("rec_"):
            import vramscope
            from vramscope import driver
            self.tracker_module()
            self.n += 1
            left_out = PARTS.get(mode, set())
            self.real_sampler = driver.DriverSampler
            if "driver" in left_out:
                driver.DriverSampler = lambda *a: None
            self.env = os.environ.get("VRAMSCOPE_OWN_STACKS")
            os.environ["VRAMSCOPE_OWN_STACKS"] = "0" if mode == "rec_torchstacks" else "1"
            self.rec = vramscope.start(os.path.join(self.tmp, "r%d.vscap" % self.n), retention="auto" not in left_out,
                                       auto_retention=False if "auto" in left_out else None,
                                       phases="phases" not in left_out, gc_annotations="gc" not in left_out,
                                       pause_budget=NoWalks(), **OPTIONS.get(mode, {}))

    def off(self, mode):
        if self.thread is not None:
            self.stop_drain.set()
            self.thread.join()
        if mode.startswith("tracker"):
            self.module.stop()
            self.module.drain()
        if mode.startswith("hist") or mode.startswith("tracker"):
            torch.cuda.memory._record_memory_history(None)
        if self.phases is not None:
            self.phases.remove()
        if self.rec is not None:
            import vramscope
            self.rec.stop(walk=False)
            vramscope._active = None
            os.unlink(self.rec.path)
            if self.env is None:
                os.environ.pop("VRAMSCOPE_OWN_STACKS", None)
            else:
                os.environ["VRAMSCOPE_OWN_STACKS"] = self.env
            from vramscope import driver
            driver.DriverSampler = self.real_sampler


class NoWalks:
    """A pause budget that allows no retention graph: the blocks measure the steps, not the walks
    (the automatic trigger still samples memory and decides; only the walk is skipped)."""

    def allowance(self, final):
        return 0.0

    def charge(self, seconds):
        pass

    def summary(self):
        return "no walks in this measurement"


def deep(n, fn):
    return deep(n - 1, fn) if n else fn()


class Pair:
    name, per_block = "pair", 400

    def __init__(self):
        self.x = None

    def step(self):
        def body():
            for _ in range(10):
                x = torch.empty(4096, device="cuda")
                del x
        deep(20, body)


class Eager:
    name, per_block = "eager", 60

    def __init__(self):
        self.model = prog.mlp()
        self.opt = torch.optim.AdamW(self.model.parameters(), lr=1e-3)
        self.x, self.y = prog.batches(1)[0]

    def step(self):
        loss = torch.nn.functional.mse_loss(self.model(self.x), self.y)
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        self.opt.step()


class Generation:
    name, per_block = "generation", 60

    def __init__(self):
        from transformers import GPT2Config, GPT2LMHeadModel
        torch.manual_seed(0)
        self.model = GPT2LMHeadModel(GPT2Config(n_layer=4, n_embd=256, n_head=4, vocab_size=1000,
                                                n_positions=256)).to("cuda").eval()
        self.restart()

    def restart(self):
        with torch.no_grad():
            self.ids = torch.randint(0, 1000, (8, 16), device="cuda")
            self.out = self.model(self.ids, use_cache=True)
        self.n = 0

    def step(self):
        with torch.no_grad():
            nxt = self.out.logits[:, -1:].argmax(-1)
            self.out = self.model(nxt, past_key_values=self.out.past_key_values, use_cache=True)
        self.n += 1


def block(work, n):
    if hasattr(work, "restart"):  # the same positions of the sequence in every block
        work.restart()
    times = []
    for _ in range(n):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        work.step()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    return statistics.median(times[n // 5:])  # the first steps after a switch warm caches


def events_per_step(work):
    s0 = torch.cuda.memory_stats()
    for _ in range(10):
        work.step()
    torch.cuda.synchronize()
    s1 = torch.cuda.memory_stats()
    allocs = s1["allocation.all.allocated"] - s0["allocation.all.allocated"]
    frees = s1["allocation.all.freed"] - s0["allocation.all.freed"]
    return (allocs + frees) / 10


def main():
    args = sys.argv[1:]
    reps, out, modes = 8, None, MODES
    if "--reps" in args:
        reps = int(args[args.index("--reps") + 1])
    if "--json" in args:
        out = args[args.index("--json") + 1]
    if "--modes" in args:
        modes = args[args.index("--modes") + 1].split(",")
    results = {}
    sw = Switch()
    for cls in (Pair, Eager, Generation):
        work = cls()
        for _ in range(20):
            work.step()
        events = events_per_step(work)
        meds = {m: [] for m in modes}
        for r in range(reps):
            for m in modes if r % 2 == 0 else modes[::-1]:
                sw.on(m)
                try:
                    meds[m].append(block(work, work.per_block))
                finally:
                    sw.off(m)
        base = statistics.median(meds["off"])
        print("\n%s: %.0f allocator events per step\n| mode | median step (µs) | vs off | µs per event over off "
              "| paired vs off |" % (work.name, events))
        print("| --- | --- | --- | --- | --- |")
        for m in modes:
            v = statistics.median(meds[m])
            # each block against the `off` block of the same repetition (neighbours in time: the
            # machine's speed drifts by tens of per cent within a run), then the median
            paired = statistics.median(x / o for x, o in zip(meds[m], meds["off"]))
            print("| %s | %.1f | %+.1f %% | %.2f | %+.1f %% |" % (
                m, v * 1e6, 100 * (v - base) / base, (v - base) * 1e6 / events if events else float("nan"),
                100 * (paired - 1)), flush=True)
        results[work.name] = {"events_per_step": events, "blocks": meds}
    if out:
        with open(out, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
