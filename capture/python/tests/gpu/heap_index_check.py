"""GPU check of the retention walk's compiled heap index (vramscope/_heap_index.cpp in the tracker) on
a real program's heap: torch, transformers, a GPT-2 model trained a few steps, its optimizer, and a
leak (each step's loss kept in a global list, with its autograd graph). The graph collected with
the compiled index must equal the one of the Python index (nodes and labelled edges as multisets);
prints the heap's size and both walks' times.
    python heap_index_check.py"""
import collections
import time

import torch
from transformers import GPT2Config, GPT2LMHeadModel

from vramscope import native, retention

LOSSES = []  # the leak


def graph_key(g):
    names = ["%d|%s|%s|%d|%d" % tuple(n) for n in g.nodes]
    return collections.Counter(names), collections.Counter((names[a], names[b], k, lab) for a, b, k, lab in g.edges)


def main():
    module, why = native.load()
    assert module is not None, why
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(n_layer=4, n_embd=256, n_head=4, vocab_size=1000, n_positions=128)).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for _ in range(5):
        ids = torch.randint(0, 1000, (4, 64), device="cuda")
        out = model(ids, labels=ids)
        out.loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        LOSSES.append(out.loss * 1.0)  # keeps an autograd graph alive
    torch.cuda.synchronize()
    blocks = [(b["address"], b["size"], tuple(s.get("segment_pool_id") or (0, 0)))
              for s in torch.cuda.memory._snapshot()["segments"] for b in s["blocks"]
              if b["state"] == "active_allocated"]
    results = {}
    for name, index in (("python", None), ("compiled", module), ("python", None), ("compiled", module)):
        t0 = time.perf_counter()
        g = retention.collect(blocks, torch, budget_s=120, native=index)
        took = time.perf_counter() - t0
        assert not g.truncated, g.cut
        results.setdefault(name, []).append((took, g))
    py, nat = results["python"][-1][1], results["compiled"][-1][1]
    same = graph_key(py) == graph_key(nat)
    labels = {e[3] for e in nat.edges}
    print("heap: %d objects, %d blocks; graph %d nodes, %d edges" % (nat.objects, len(blocks), len(nat.nodes),
                                                                    len(nat.edges)))
    for name, runs in results.items():
        print("%s index: walks of %s s" % (name, " / ".join("%.3f" % t for t, _ in runs)))
    print("LOSSES found:", ".LOSSES" in labels, "| optimizer state found:", any("state" in x for x in labels))
    print("heap_index_check: graphs %s" % ("equal" if same else "DIFFER"))
    if not same:
        a, b = graph_key(py), graph_key(nat)
        print("only python:", list((a[1] - b[1]).items())[:10])
        print("only compiled:", list((b[1] - a[1]).items())[:10])


if __name__ == "__main__":
    main()
