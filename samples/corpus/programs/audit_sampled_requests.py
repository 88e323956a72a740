"""An inference service that samples about one request in five for an audit trail: for a sampled
request it keeps every layer's hidden states, meant to be written out by a background uploader that
was never started. The module-level AUDIT list grows at random requests (inference only: no backward,
no optimizer). --clean keeps a small on-CPU summary (per-layer norms) of the sampled requests.
    python audit_sampled_requests.py TRUTH.json [--clean] [--steps REQUESTS] [--step-ms MS]"""
import random

import torch

from corpus_common import DEV, parser, pause, tiny_lm, truth

AUDIT = []


@torch.inference_mode()
def serve(model, ids, audit, clean):
    x = model.tok(ids) + model.pos(torch.arange(ids.size(1), device=ids.device))
    states = [x]
    for blk in model.blocks:
        x, _ = blk(x)  # ALLOC-SITE: each layer's hidden states, kept for sampled requests
        states.append(x)
    logits = model.head(model.ln(x[:, -1]))
    if audit:
        if clean:
            AUDIT.append([float(s.norm()) for s in states])
        else:
            AUDIT.append({"ids": ids, "states": states})  # HOLD-SITE: waits for an uploader that never runs
    return logits.argmax(-1)


def main():
    a = parser(__doc__, steps=60, step_ms=45).parse_args()
    t = truth(a, __file__, leak=dict(holder="list AUDIT (hidden states of sampled requests)",
                                     unit="irregular (sampled requests)", released="never",
                                     shape="irregular-random-inference"),
              clean=dict(holder="list AUDIT (floats)", unit="irregular (sampled requests)", released="never",
                         shape="flat"))
    rng = random.Random(a.seed + 5)
    model = tiny_lm(layers=4)
    for rid in range(a.steps):
        ids = torch.randint(0, model.vocab, (8, 256), device=DEV)
        serve(model, ids, rng.random() < 0.2, a.clean)
        pause(a)
        t.step(0, rid)
    t.write()


if __name__ == "__main__":
    main()
