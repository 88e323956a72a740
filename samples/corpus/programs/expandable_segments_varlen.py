"""Language-model training on variable-length batches (64-512 tokens, drawn at random each step)
with the allocator's expandable segments turned on inside the program (PYTORCH_CUDA_ALLOC_CONF set
before torch is imported; if CUDA was already initialised by a wrapper, the same setting is applied
at run time). Clean: what a step allocates it frees; reserved memory stays compact.
    python expandable_segments_varlen.py TRUTH.json [--steps N] [--step-ms MS]"""
import os
import random

os.environ.setdefault("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True")

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from corpus_common import DEV, parser, pause, tiny_lm, truth  # noqa: E402


def main():
    a = parser(__doc__, steps=100, step_ms=25, twin=False).parse_args()
    t = truth(a, __file__, clean=dict(holder="none", unit="per step", released="at step end",
                                      shape="expandable-segments-varlen"),
              alloc_conf=os.environ.get("PYTORCH_CUDA_ALLOC_CONF"))
    if DEV.type == "cuda" and torch.cuda.is_initialized():
        try:
            torch.cuda.memory._set_allocator_settings("expandable_segments:True")
        except Exception as e:  # an older torch: the environment variable is all there is
            t.d["alloc_conf_error"] = str(e)
    rng = random.Random(a.seed)
    model = tiny_lm(vocab=2048).train()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    for step in range(a.steps):
        n = rng.choice([64, 96, 128, 192, 256, 384, 512])
        ids = torch.randint(0, 2048, (8, n + 1), device=DEV)
        logits, _ = model(ids[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, 2048), ids[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        pause(a)
        t.step(0, step)
    t.write()


if __name__ == "__main__":
    main()
