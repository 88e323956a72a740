"""A generation server whose prompts grow longer. Its warm-up ran the largest batch once (big
buffers, then freed: the segments stay cached) beside the resident weights, which take all but 512
MiB of the rest. Each request's prompt activations (a workspace that grows with the prompt: 0.50,
0.52, ... of a warm-up segment) are carved out of a cached segment, then its KV cache (0.3 of a
segment) right after them, kept for the session; the workspace is freed. Every segment keeps a hole
the size of its request's workspace, each a little smaller than the next request's: the reserve is
mostly free, in holes too small for the next prompt, and the device has no room for a new segment.
Cause: fragmentation. Held out: never used to change a rule.
    python frag_growing_prompts.py TRUTH.json [--segments N]"""
import torch

from oom_common import DEV, MiB, OomTruth, parser, pause, round_down

SESSIONS = []  # every request's KV cache, kept for its next turn


def serve(unit, share):
    work = torch.empty(round_down(unit * share), dtype=torch.uint8, device=DEV)  # OOM-REQUEST-SITE: the prompt's workspace
    kv = torch.empty(round_down(unit * 0.3), dtype=torch.uint8, device=DEV)  # OOM-ALLOC-SITE: the session's KV cache
    work.fill_(1)
    kv.fill_(2)
    SESSIONS.append(kv)  # OOM-HOLD-SITE: kept after the request, right after its freed workspace
    return work


def main():
    p = parser(__doc__, step_ms=20)
    p.add_argument("--segments", type=int, default=10)
    a = p.parse_args()
    t = OomTruth(a, __file__, "fragmentation",
                 "list SESSIONS (each KV cache keeps its segment split behind a freed, smaller workspace)")
    n = a.segments
    unit = round_down(t.d["start"]["device_free"] * 0.85 / n)
    t.d.update(segments=n, segment_bytes=unit)
    warmup = [torch.empty(unit, dtype=torch.uint8, device=DEV) for _ in range(n)]  # OOM-SEGMENT-SITE
    weights = torch.empty(round_down(torch.cuda.mem_get_info()[0] - 512 * MiB), dtype=torch.uint8, device=DEV)
    weights.fill_(3)
    t.d["resident_bytes"] = weights.numel()
    del warmup
    t.step(0, 0, phase="warm-up")
    try:
        for k in range(n + 1):  # the last one finds every segment split
            share = 0.50 + 0.02 * k
            t.d["last_request_share"] = share
            work = serve(unit, share)
            del work
            pause(a)
            t.step(0, k + 1, phase="request", sessions=len(SESSIONS))
    except torch.cuda.OutOfMemoryError as e:
        t.caught(e, sessions=len(SESSIONS))
    t.write()


if __name__ == "__main__":
    main()
