"""The word-language-model loop of word_lm_cache.py where each batch's output is kept in a small
record that refers to itself (a reference cycle: record["self"] = record, the kind of back-reference
a logging or callback object makes). Nothing else keeps it, so it is freed only when Python's cyclic
garbage collector runs: memory climbs for some batches and falls in bulk inside gc.collect (a cycle).
    python word_lm_cycle.py TRUTH.json [--seed S] [--epochs E] [--batches N] [--hidden H] [--step-ms MS]"""
import argparse
import gc
import time

import torch
from torch import nn

from truth import Truth
from word_lm_cache import RNNModel, repackage_hidden


def main():
    p = argparse.ArgumentParser()
    p.add_argument("truth")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--batches", type=int, default=120)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--vocab", type=int, default=2000)
    p.add_argument("--bptt", type=int, default=35)
    p.add_argument("--batch", type=int, default=20)
    p.add_argument("--step-ms", type=float, default=30)
    a = p.parse_args()
    torch.manual_seed(a.seed)
    dev = torch.device("cuda")
    data = torch.randint(0, a.vocab, (a.batches * a.bptt + 1, a.batch), device=dev)
    model = RNNModel(a.vocab, a.hidden, a.hidden, 2).to(dev)
    criterion = nn.NLLLoss()
    truth = Truth(a.truth, "cycle", __file__, hold="CYCLE", gc_threshold=gc.get_threshold())
    truth.d["alloc_site"] = "forward (word_lm_cache.py:30), the log_softmax output"
    for epoch in range(a.epochs):
        hidden = model.init_hidden(a.batch)
        for batch, i in enumerate(range(0, data.size(0) - 1, a.bptt)):
            seq_len = min(a.bptt, data.size(0) - 1 - i)
            x, y = data[i:i + seq_len], data[i + 1:i + 1 + seq_len].reshape(-1)
            hidden = repackage_hidden(hidden)
            model.zero_grad()
            output, hidden = model(x, hidden)  # ALLOC-SITE (the output the cycle keeps)
            loss = criterion(output.view(-1, a.vocab), y)
            loss.backward()
            with torch.no_grad():
                for prm in model.parameters():
                    prm.add_(prm.grad, alpha=-20.0)
            record = {"epoch": epoch, "batch": batch, "output": output}
            record["self"] = record  # CYCLE-SITE: only the cyclic garbage collector frees it
            del record
            if a.step_ms:
                time.sleep(a.step_ms / 1000)
            truth.step(epoch, batch)
    truth.write()


if __name__ == "__main__":
    main()
