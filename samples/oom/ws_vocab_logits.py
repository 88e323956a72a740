"""Fine-tuning a small language model with a large vocabulary: four steps at a sequence length of 512
fit with room to spare (allocated returns to the same level after each), then the curriculum moves
to long documents: the [batch x length, vocabulary] logits and what cross-entropy makes of them are
half as large again as the room left, and that step runs out of memory. Nothing is kept across
steps. Cause: working_set. Held out: never used to change a rule.
    python ws_vocab_logits.py TRUTH.json [--step-ms MS]"""
import math

import torch
import torch.nn.functional as F

from oom_common import DEV, OomTruth, marker, parser, pause

VOCAB, D, BATCH = 65536, 512, 8


class TinyLM(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(VOCAB, D)
        self.body = torch.nn.Sequential(torch.nn.Linear(D, D), torch.nn.GELU(), torch.nn.Linear(D, D))
        self.head = torch.nn.Linear(D, VOCAB, bias=False)

    def forward(self, ids):
        return self.head(self.body(self.embed(ids)))


def train_step(model, opt, seq):
    ids = torch.randint(0, VOCAB, (BATCH, seq), device=DEV)
    before = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    logits = model(ids)  # OOM-ALLOC-SITE OOM-REQUEST-SITE: the [batch x length, vocabulary] logits
    loss = F.cross_entropy(logits.view(-1, VOCAB), ids.view(-1))  # OOM-REQUEST-SITE: its log-softmax
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    return torch.cuda.max_memory_allocated() - before


def main():
    a = parser(__doc__, step_ms=30).parse_args()
    t = OomTruth(a, __file__, "working_set", "one step's logits and their loss (model(ids) and cross_entropy)")
    model = TinyLM().to(DEV)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    small = 512
    try:
        peak = 0
        for step in range(4):
            with marker("step", step):
                peak = train_step(model, opt, small)
            pause(a)
            t.step(0, step, batch=BATCH, seq_len=small, step_peak_above_start=peak)
        free, _ = torch.cuda.mem_get_info()
        room = free + torch.cuda.memory_reserved() - torch.cuda.memory_allocated()
        seq = int(math.ceil(small * 1.5 * room / peak / 512)) * 512
        t.d.update(batch_size=BATCH, seq_len=seq, small_seq_len=small,
                   bytes_per_sample=int(peak / BATCH * seq / small),
                   bytes_per_sample_means="the step's peak above its start per sequence, scaled from length 512",
                   room_before_big_step=room)
        with marker("step", 4):
            train_step(model, opt, seq)
        t.step(0, 4, batch=BATCH, seq_len=seq)
    except torch.cuda.OutOfMemoryError as e:
        t.caught(e, seq_len=t.d.get("seq_len"))
    t.write()


if __name__ == "__main__":
    main()
