"""A data pipeline that decodes its shards into large scratch buffers (freed: PyTorch keeps the
segments cached), keeps the model's resident state, then loads the dataset as shards of half a
scratch buffer each (each cached segment is split in two), drops every other shard (the validation
shards) and concatenates two of the kept ones into a buffer of 1.5 shards. Half of the reserve is
free, in holes of one shard each, none large enough; every segment stays partly in use, so the
allocator can free none, and the device has too little left for a new segment.
Cause: fragmentation.
    python frag_shard_filter.py TRUTH.json [--segments N]"""
import torch

from oom_common import DEV, MiB, OomTruth, parser, pause, round_down


def main():
    p = parser(__doc__, step_ms=20)
    p.add_argument("--segments", type=int, default=24)
    a = p.parse_args()
    t = OomTruth(a, __file__, "fragmentation",
                 "list kept (every other shard: each keeps half of a split segment in use)")
    n = a.segments
    shard = round_down(t.d["start"]["device_free"] * 0.88 / (2 * n))  # bytes, a multiple of 2 MiB
    request = shard * 3 // 2
    t.d.update(segments=n, segment_bytes=2 * shard, shard_bytes=shard, shards=2 * n, request_bytes_exact=request,
               expected_reserved_free=n * shard)
    scratch = [torch.empty(2 * shard, dtype=torch.uint8, device=DEV) for _ in range(n)]  # OOM-SEGMENT-SITE
    t.step(0, 0, phase="decode scratch")
    margin = 512 * MiB
    resident = torch.empty(round_down(torch.cuda.mem_get_info()[0] - margin), dtype=torch.uint8, device=DEV)
    resident.fill_(1)
    t.d["resident_bytes"] = resident.numel()
    del scratch  # the segments stay reserved (cached)
    t.step(0, 1, phase="scratch freed")
    pause(a)
    shards = []
    for i in range(2 * n):
        s = torch.empty(shard, dtype=torch.uint8, device=DEV)  # OOM-ALLOC-SITE: each splits a cached segment
        s.fill_(i % 251)
        shards.append(s)
    t.step(0, 2, phase="shards loaded")
    pause(a)
    kept = shards[1::2]  # OOM-HOLD-SITE: the training shards; the validation shards (every other) dropped
    del shards, s
    t.step(0, 3, phase="validation shards dropped")
    pause(a)
    try:
        merged = torch.empty(request, dtype=torch.uint8, device=DEV)  # OOM-REQUEST-SITE: 1.5 shards in one piece
        merged[:shard].copy_(kept[0])
    except torch.cuda.OutOfMemoryError as e:
        t.caught(e, kept_shards=len(kept))
    t.write()


if __name__ == "__main__":
    main()
