"""A word-language-model loop in the style of pytorch/examples/word_language_model: embedding, a
2-layer LSTM, a decoder, truncated BPTT with the hidden state detached between batches, on random
tokens. --leaky: a module-level cache dict keeps every batch's decoder output (with its graph) by
batch number - a leak that lasts to the end.
    python word_lm_cache.py TRUTH.json [--leaky] [--seed S] [--epochs E] [--batches N] [--hidden H] [--step-ms MS]"""
import argparse
import time

import torch
from torch import nn

from truth import Truth

CACHE = {}  # batch number -> output, "for later analysis"


class RNNModel(nn.Module):
    def __init__(self, ntoken, ninp, nhid, nlayers, dropout=0.2):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        self.nlayers, self.nhid = nlayers, nhid

    def forward(self, x, hidden):
        emb = self.drop(self.encoder(x))
        output, hidden = self.rnn(emb, hidden)
        decoded = self.decoder(self.drop(output))
        return nn.functional.log_softmax(decoded, dim=-1), hidden  # ALLOC-SITE (the leaky run keeps this)

    def init_hidden(self, bsz):
        w = next(self.parameters())
        return (w.new_zeros(self.nlayers, bsz, self.nhid), w.new_zeros(self.nlayers, bsz, self.nhid))


def repackage_hidden(h):
    return tuple(v.detach() for v in h)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("truth")
    p.add_argument("--leaky", action="store_true")
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
    lr = 20.0
    truth = Truth(a.truth, "leak" if a.leaky else "none", __file__)
    for epoch in range(a.epochs):
        model.train()
        hidden = model.init_hidden(a.batch)
        for batch, i in enumerate(range(0, data.size(0) - 1, a.bptt)):
            seq_len = min(a.bptt, data.size(0) - 1 - i)
            x, y = data[i:i + seq_len], data[i + 1:i + 1 + seq_len].reshape(-1)
            hidden = repackage_hidden(hidden)
            model.zero_grad()
            output, hidden = model(x, hidden)
            loss = criterion(output.view(-1, a.vocab), y)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 0.25)
            with torch.no_grad():
                for prm in model.parameters():
                    prm.add_(prm.grad, alpha=-lr)
            if a.leaky:
                CACHE[epoch * 100000 + batch] = output  # HOLD-SITE: every batch's output, graph and all
            if a.step_ms:
                time.sleep(a.step_ms / 1000)  # stands in for data loading
            truth.step(epoch, batch)
    truth.write()


if __name__ == "__main__":
    main()
