"""Checks the truth files of a recording folder of samples/oom (both recorders' truths: NAME.truth.json
and NAME.rec.truth.json): that each OOM program ran out of memory once, for its cause, and that each
peak program's phases are what it says. Prints one row per truth and exits 1 if any fails.
    python3 samples/oom/check.py DIR [--markdown]"""
import glob
import json
import os
import sys

GiB = 1 << 30


def gib(n):
    return "-" if n is None else "%.2f" % (n / GiB)


def check_oom(d):
    bad = []
    o = d.get("oom")
    if not o:
        return ["no OOM was caught"]
    total = o.get("device_total") or d["start"]["device_total"]
    req = o.get("request_bytes")
    if o.get("num_ooms") != 1:
        bad.append("num_ooms %r, not 1" % o.get("num_ooms"))
    if not req:
        bad.append("no request size in the message")
    for k in ("allocated", "reserved", "device_free", "largest_free_block"):
        if o.get(k) is None:
            bad.append("no %s at the OOM (observer)" % k)
    if bad:
        return bad
    if not d["holder_lines"]:
        bad.append("no holder lines")
    if not o.get("request_frames"):
        bad.append("the traceback has no frame of the program")
    steps = [s for s in d["steps"]]
    alloc = [s["allocated"] for s in steps]
    c = d["cause"]
    if c in ("leak", "accumulation") and o["allocated"] < 0.6 * total:
        bad.append("allocated at the OOM %.0f%% of the device, < 60%%" % (100 * o["allocated"] / total))
    if c == "leak":
        if any(b < a for a, b in zip(alloc, alloc[1:])):
            bad.append("allocated fell between steps (a leak only grows)")
        if len(alloc) < 10:
            bad.append("fewer than 10 steps before the OOM")
    if c == "accumulation":
        drops = [a - b for a, b in zip(alloc, alloc[1:]) if a > b]
        if not drops or max(drops) < 0.1 * total:
            bad.append("no earlier phase released >= 10% of the device")
    if c == "fragmentation":
        if not o["reserved_free"] > req:
            bad.append("reserved-but-free %s GiB not above the request" % gib(o["reserved_free"]))
        if not o["largest_free_block"] < req:
            bad.append("a free block of %s GiB would have served the request" % gib(o["largest_free_block"]))
        if not o["device_free"] < req:
            bad.append("the device had %s GiB free, more than the request" % gib(o["device_free"]))
        if not o["reserved_free"] > 0.25 * total:
            bad.append("reserved-but-free under 25% of the device")
        ru = o["message_figures"].get("reserved_unallocated")
        if not ru or ru < req:
            bad.append("the message's 'reserved by PyTorch but unallocated' (%s) is not above the request" % gib(ru))
    if c == "working_set":
        warm = [s["allocated"] for s in steps if s.get("batch") == d.get("small_batch", s.get("batch"))][1:]
        if warm and max(warm) - min(warm) > 64 << 20:
            bad.append("allocated changed across the warm-up steps (%d bytes)" % (max(warm) - min(warm)))
        if not d.get("batch_size") or not d.get("bytes_per_sample"):
            bad.append("no batch_size / bytes_per_sample")
        if alloc and o["allocated"] - alloc[-1] < 0.3 * total:
            bad.append("the failing step allocated < 30% of the device before the OOM")
    if c == "outside_pytorch":
        if not o["outside_pytorch"] > 0.5 * total:
            bad.append("memory outside PyTorch %s GiB, under half the device" % gib(o["outside_pytorch"]))
        if not o["reserved"] < 0.35 * total:
            bad.append("PyTorch reserved %s GiB, over 35% of the device" % gib(o["reserved"]))
        if not o["device_free"] < req:
            bad.append("the device had more free than the request")
    return bad


def check_peak(d):
    bad = []
    ph = d.get("phase_peaks") or []
    epochs = [p["max_allocated"] for p in ph if p["kind"] == "epoch"]
    evals = [p["max_allocated"] for p in ph if p["kind"] == "evaluate"]
    if len(epochs) < 3 or len(evals) < 3:
        return ["fewer than 3 epochs or evaluations"]
    if d["eval_to_step_ratio"] < 4:
        bad.append("evaluation only %.1fx a step" % d["eval_to_step_ratio"])
    if max(evals) <= max(epochs):
        bad.append("an epoch is higher than every evaluation")
    if d["idle_end_us"] - d["setup_end_us"] < 2.5e6:
        bad.append("start-up idle under 2.5 s")
    if "growing" in d["shape"]:
        if any(b <= 1.1 * a for a, b in zip(epochs, epochs[1:])):
            bad.append("an epoch's peak is not 10% above the last: %s" % epochs)
    elif max(epochs) > 1.1 * min(epochs):
        bad.append("epoch peaks not flat: %s" % epochs)
    return bad


def main():
    folder = sys.argv[1]
    md = "--markdown" in sys.argv
    failed = 0
    if md:
        print("| truth | recorder | cause | device total | request | allocated | reserved | reserved free | "
              "largest free block | device free | outside PyTorch | check |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for path in sorted(glob.glob(os.path.join(folder, "*.truth.json"))):
        d = json.load(open(path))
        bad = check_peak(d) if d["kind"] == "peak" else check_oom(d)
        failed += bool(bad)
        o = d.get("oom") or {}
        name = os.path.basename(path)
        verdict = "ok" if not bad else "FAIL: " + "; ".join(bad)
        if d["kind"] == "peak":
            fig = "peak %s GiB in %s, %.1fx the typical step; epochs %s GiB" % (
                gib(d["peak_allocated"]), d["peak_phase"], d["eval_to_step_ratio"],
                "/".join(gib(p["max_allocated"]) for p in d["phase_peaks"] if p["kind"] == "epoch"))
            if md:
                print("| `%s` | %s | peak | %s | %s | | | | | | | %s |" % (name, d["recorder"],
                      gib(d["start"]["device_total"]), fig, "", verdict))
            else:
                print("%-40s %-9s peak  %s  %s" % (name, d["recorder"], fig, verdict))
            continue
        cols = [gib(o.get(k)) for k in ("device_total", "request_bytes", "allocated", "reserved", "reserved_free",
                                         "largest_free_block", "device_free", "outside_pytorch")]
        if md:
            print("| `%s` | %s | %s | %s | %s |" % (name, d["recorder"], d["cause"], " | ".join(cols), verdict))
        else:
            print("%-40s %-9s %-15s GiB: total %s request %s allocated %s reserved %s reserved-free %s "
                  "largest-free %s device-free %s outside %s  %s" % ((name, d["recorder"], d["cause"]) + tuple(cols)
                                                                     + (verdict,)))
    print("%d truth files failed" % failed)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
