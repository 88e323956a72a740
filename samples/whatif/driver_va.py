"""Probes where the CUDA driver places cuMemAlloc'd ranges (what the what-if simulator must assume for
new segments): each sequence of ('a', id, bytes) / ('f', id) operations runs in a fresh process with
only the primary context (no PyTorch, no library allocations) and the address of every allocation is
kept. The sequences: the segment cudaMalloc/cudaFree sequences of recorded captures (SEQS, with the
recorded addresses in 'recorded') and random ones.
    python3 driver_va.py run SEQS.json OUT.json     (GPU machine; driver_va.json came from this)
    python3 driver_va.py compare driver_va.json     (here: does a clean replay give the recorded layout?)"""
import ctypes, json, random, subprocess, sys, time

def run_one(ops):
    cu = ctypes.CDLL('libcuda.so.1')
    assert cu.cuInit(0) == 0
    dev = ctypes.c_int(); cu.cuDeviceGet(ctypes.byref(dev), 0)
    ctx = ctypes.c_void_p(); assert cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev) == 0
    assert cu.cuCtxSetCurrent(ctx) == 0
    live, out = {}, []
    for op in ops:
        if op[0] == 'a':
            p = ctypes.c_uint64()
            r = cu.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(op[2]))
            out.append(p.value if r == 0 else -r)
            live[op[1]] = p.value
        else:
            cu.cuMemFree_v2(ctypes.c_uint64(live.pop(op[1])))
    return out

def random_seq(seed, n, sizes):
    rng = random.Random(seed); ops, live, nid = [], [], 0
    for _ in range(n):
        r = rng.random()
        if live and (r < 0.35 or len(live) > 40):
            i = live.pop(rng.randrange(len(live))); ops.append(('f', i))
        elif live and r < 0.38:  # a flush: free a random half
            rng.shuffle(live)
            for i in live[: len(live) // 2]: ops.append(('f', i))
            live = live[len(live) // 2:]
        else:
            ops.append(('a', nid, rng.choice(sizes))); live.append(nid); nid += 1
    return ops

if __name__ == '__main__':
    if sys.argv[1] == 'compare':
        for r in json.load(open(sys.argv[2])):
            if 'recorded' not in r: continue
            rec, got = r['recorded'], r['addrs']
            rel = lambda xs: [(x - xs[0]) >> 20 for x in xs]  # MiB from the first segment
            same = [a == b for a, b in zip(rel(rec), rel(got))]
            first = same.index(False) if False in same else None
            print(f"{r['name']}: {len(rec)} segments, " + ("the same relative layout" if first is None else
                  f"differs from segment {first}: {rel(rec)[first]} MiB recorded, {rel(got)[first]} MiB replayed"))
        sys.exit()
    if sys.argv[1] == 'one':
        print(json.dumps(run_one(json.load(sys.stdin))))
        sys.exit()
    M = 1 << 20
    seqs = json.load(open(sys.argv[2]))
    mix = [2 * M] * 8 + [20 * M] * 4 + [k * 2 * M for k in range(6, 50)]
    for s in range(6):
        seqs.append({'name': f'random{s}', 'ops': random_seq(s, 160, mix)})
    big = [2 * M, 20 * M, 64 * M, 200 * M, 512 * M, 1100 * M, 34 * M, 96 * M]
    for s in range(3):
        seqs.append({'name': f'randombig{s}', 'ops': random_seq(100 + s, 120, big)})
    res = []
    for s in seqs:
        t = time.time()
        p = subprocess.run([sys.executable, __file__, 'one'], input=json.dumps(s['ops']), capture_output=True, text=True)
        res.append({'name': s['name'], 'ops': s['ops'], 'addrs': json.loads(p.stdout) if p.returncode == 0 else p.stderr[-500:]})
        print(s['name'], len(s['ops']), round(time.time() - t, 2), 's', flush=True)
    json.dump(res, open(sys.argv[3], 'w'))
