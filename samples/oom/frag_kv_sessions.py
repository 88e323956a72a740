"""A chat server. Its warm-up runs the largest batch once (big buffers, then freed: PyTorch keeps the
segments cached) next to the model's resident weights; then each session's turn allocates a prompt
KV cache (1 unit), a generation workspace (2 units) and an output KV cache (1 unit), carved in that
order out of one cached warm-up segment (4 units); the batch's workspaces are freed when the batch
ends, the two caches of each session are kept for its next turn. Half of the reserve is free, in holes of 2 units
between caches in use; a long prompt needs 2.5 units in one piece and the device has too little left
for a new segment. Cause: fragmentation.
    python frag_kv_sessions.py TRUTH.json [--sessions N]"""
import torch

from oom_common import DEV, MiB, OomTruth, parser, pause, round_down

SESSIONS = {}  # session id -> (prompt KV cache, output KV cache), kept between turns


def start_turn(sid, unit):
    """One session's turn in the batch: its prompt KV cache, generation workspace and output KV cache."""
    prompt_kv = torch.empty(unit // 2, dtype=torch.float16, device=DEV)  # OOM-ALLOC-SITE: prompt KV cache
    work = torch.empty(unit, dtype=torch.float16, device=DEV)  # the turn's generation workspace (2 units)
    out_kv = torch.empty(unit // 2, dtype=torch.float16, device=DEV)  # OOM-ALLOC-SITE: output KV cache
    prompt_kv.fill_(sid)
    work.fill_(0.5)
    out_kv.copy_(work[:unit // 2])
    SESSIONS[sid] = (prompt_kv, out_kv)  # OOM-HOLD-SITE: kept for the session's next turn
    return work


def main():
    p = parser(__doc__, step_ms=20)
    p.add_argument("--sessions", type=int, default=12)
    a = p.parse_args()
    t = OomTruth(a, __file__, "fragmentation",
                 "dict SESSIONS (each session's two KV caches keep a split segment in use around a freed workspace)")
    n = a.sessions
    unit = round_down(t.d["start"]["device_free"] * 0.88 / (4 * n))  # bytes, a multiple of 2 MiB
    request = unit * 5 // 2
    t.d.update(segments=n, segment_bytes=4 * unit, unit_bytes=unit, request_bytes_exact=request,
               expected_reserved_free=n * 2 * unit)
    warmup = [torch.empty(4 * unit, dtype=torch.uint8, device=DEV) for _ in range(n)]  # OOM-SEGMENT-SITE
    weights = torch.empty(round_down(torch.cuda.mem_get_info()[0] - 512 * MiB), dtype=torch.uint8, device=DEV)
    weights.fill_(3)
    t.d["resident_bytes"] = weights.numel()
    t.step(0, 0, phase="warm-up")
    del warmup
    workspaces = []  # the batch's turns run together; their workspaces go when the batch ends
    for sid in range(n):
        workspaces.append(start_turn(sid, unit))
        pause(a)
        t.step(0, sid + 1, phase="turn", sessions=len(SESSIONS))
    del workspaces  # a hole of 2 units between two caches in use in every segment
    t.step(0, n + 1, phase="batch done")
    pause(a)
    try:
        long_prompt_kv = torch.empty(request // 2, dtype=torch.float16, device=DEV)  # OOM-REQUEST-SITE
        long_prompt_kv.fill_(1)
    except torch.cuda.OutOfMemoryError as e:
        t.caught(e, sessions=len(SESSIONS))
    t.write()


if __name__ == "__main__":
    main()
