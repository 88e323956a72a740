"""One program before and after a fix, recorded with PyTorch's memory history:

    python keep_logits.py OUT.pickle OUT.truth.json [--leaky] [--steps S]

A small transformer language model (2 encoder layers, width 256, vocabulary 8000) trained on
random tokens. With --leaky the loop keeps every step's logits on the GPU "to compute the accuracy at
the end" (line marked HOLD-SITE; made at the line marked ALLOC-SITE, 8 x 64 x 8000 floats = 15.6 MiB
a step); the fix keeps the predicted tokens on the CPU instead. Each step is a numbered
record_function ("train_step#N"). The truth file holds, after every step,
torch.cuda.memory_allocated()/memory_reserved() and max_memory_allocated() since the step's start
(reset_peak_memory_stats), and the final values at the dump."""
import argparse
import json
import os
import time

import torch


class LM(torch.nn.Module):
    def __init__(self, vocab=8000, width=256):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, width)
        layer = torch.nn.TransformerEncoderLayer(width, 4, 4 * width, batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = torch.nn.Linear(width, vocab)

    def forward(self, tokens):
        h = self.encoder(self.embed(tokens))
        return self.head(h)  # ALLOC-SITE


def site_lines():
    lines = open(os.path.abspath(__file__)).read().splitlines()
    return [next(i + 1 for i, l in enumerate(lines) if tag in l) for tag in ("# ALLOC" + "-SITE", "# HOLD" + "-SITE")]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("truth")
    p.add_argument("--leaky", action="store_true")
    p.add_argument("--steps", type=int, default=30)
    args = p.parse_args()
    torch.cuda.init()
    torch.cuda.memory._record_memory_history(enabled="all", context="all", stacks="python", max_entries=1_000_000)
    torch.manual_seed(0)
    dev = torch.device("cuda")
    model = LM().to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    predictions = []
    truth = {"kind": "leak" if args.leaky else "none", "leak_file": os.path.basename(__file__),
             "leak_lines": site_lines(), "argv": " ".join(os.sys.argv), "torch": torch.__version__, "steps": []}
    for step in range(args.steps):
        torch.cuda.reset_peak_memory_stats()
        with torch.profiler.record_function("train_step#%d" % step):
            tokens = torch.randint(0, 8000, (8, 64), device=dev)
            logits = model(tokens)
            loss = torch.nn.functional.cross_entropy(logits[:, :-1].reshape(-1, 8000), tokens[:, 1:].reshape(-1))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            if args.leaky:
                predictions.append(logits.detach())  # HOLD-SITE
            else:
                predictions.append(logits.detach().argmax(-1).cpu())
            del tokens, logits, loss
        torch.cuda.synchronize()
        truth["steps"].append({"step": step, "allocated": torch.cuda.memory_allocated(),
                               "reserved": torch.cuda.memory_reserved(),
                               "peak": torch.cuda.max_memory_allocated(), "time_us": time.time_ns() // 1000})
    torch.cuda.synchronize()
    truth["final_allocated"] = torch.cuda.memory_allocated()
    truth["final_reserved"] = torch.cuda.memory_reserved()
    torch.cuda.memory._dump_snapshot(args.out)
    torch.cuda.memory._record_memory_history(enabled=None)
    with open(args.truth, "w") as f:
        json.dump(truth, f, indent=1)


if __name__ == "__main__":
    main()
