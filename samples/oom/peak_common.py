"""The per-phase peaks a peak program records about itself (the truth's `phase_peaks`): for each
training step, epoch and evaluation, torch.cuda.max_memory_allocated() after
torch.cuda.reset_peak_memory_stats() at the phase's start. An epoch's peak is the largest of its
steps' (everything an epoch allocates happens inside one of its steps, whose reset starts at the
epoch's level), an evaluation has its own reset."""
import time

import torch

from oom_common import marker


def now_us():
    return time.time_ns() // 1000


class Phases:
    def __init__(self, truth):
        self.t = truth
        truth.d["phase_peaks"] = []
        truth.d["step_peaks"] = []

    def step(self, epoch, index, fn):
        """Runs one training step fn() inside a "step" marker; returns its peak."""
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        start, t0 = torch.cuda.memory_allocated(), now_us()
        with marker("step", index):
            fn()
        torch.cuda.synchronize()
        peak = torch.cuda.max_memory_allocated()
        self.t.d["step_peaks"].append({"epoch": epoch, "step": index, "start_us": t0, "end_us": now_us(),
                                       "start_allocated": start, "max_allocated": peak,
                                       "end_allocated": torch.cuda.memory_allocated()})
        self.t.step(epoch, index)
        return peak

    def epoch(self, index, steps, fn_of_step, first_step):
        """An epoch of `steps` training steps, inside an "epoch" marker."""
        torch.cuda.synchronize()
        start, t0 = torch.cuda.memory_allocated(), now_us()
        peaks = []
        with marker("epoch", index):
            for i in range(steps):
                peaks.append(self.step(index, first_step + i, fn_of_step(i)))
        self.t.d["phase_peaks"].append({"name": "epoch %d" % index, "kind": "epoch", "index": index,
                                        "marker": "epoch", "marker_value": index, "start_us": t0,
                                        "end_us": now_us(), "first_step": first_step, "steps": steps,
                                        "start_allocated": start, "max_allocated": max(peaks),
                                        "end_allocated": torch.cuda.memory_allocated()})

    def evaluate(self, index, fn):
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        start, t0 = torch.cuda.memory_allocated(), now_us()
        with marker("evaluate", index):
            result = fn()
        torch.cuda.synchronize()
        self.t.d["phase_peaks"].append({"name": "evaluate %d" % index, "kind": "evaluate", "index": index,
                                        "marker": "evaluate", "marker_value": index, "start_us": t0,
                                        "end_us": now_us(), "start_allocated": start,
                                        "max_allocated": torch.cuda.max_memory_allocated(),
                                        "end_allocated": torch.cuda.memory_allocated()})
        return result

    def summary(self):
        d = self.t.d
        steps = sorted(s["max_allocated"] for s in d["step_peaks"])
        typical = steps[len(steps) // 2]
        evals = [p["max_allocated"] for p in d["phase_peaks"] if p["kind"] == "evaluate"]
        epochs = [p["max_allocated"] for p in d["phase_peaks"] if p["kind"] == "epoch"]
        top = max(d["phase_peaks"], key=lambda p: p["max_allocated"])
        d.update(typical_step_peak=typical, peak_phase=top["name"], peak_allocated=top["max_allocated"],
                 eval_to_step_ratio=round(max(evals) / typical, 2),
                 epoch_peak_growth=[b - a for a, b in zip(epochs, epochs[1:])])
