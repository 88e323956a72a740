"""Fine-tuning a small transformer encoder (hand-written attention: the [batch, heads, seq, seq]
scores are materialised, as in many research code bases) with a sequence-length curriculum: four
steps at 1024 tokens fit, then the curriculum jumps to long documents, and the attention
probabilities that one step keeps for backward (quadratic in the length) need more than the
device: the forward pass runs out of memory. Nothing is kept across steps.
Cause: working_set (one step too big for the device).
    python ws_attention_seq_ramp.py TRUTH.json [--warmup-steps N] [--step-ms MS]"""
import math

import torch
import torch.nn.functional as F
from torch import nn

from oom_common import DEV, OomTruth, marker, parser, pause

D, HEADS, LAYERS, VOCAB, BATCH = 1024, 16, 6, 32000, 8


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(D), nn.LayerNorm(D)
        self.qkv, self.proj = nn.Linear(D, 3 * D), nn.Linear(D, D)
        self.fc1, self.fc2 = nn.Linear(D, 4 * D), nn.Linear(4 * D, D)

    def forward(self, x):
        b, t, _ = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, HEADS, D // HEADS).permute(2, 0, 3, 1, 4)
        scores = (q * (D // HEADS) ** -0.5) @ k.transpose(-2, -1)  # [b, heads, t, t]
        probs = scores.softmax(-1)  # saved for backward: quadratic in t
        y = (probs @ v).transpose(1, 2).reshape(b, t, D)
        x = x + self.proj(y)
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, D)
        self.blocks = nn.ModuleList(Block() for _ in range(LAYERS))
        self.head = nn.Linear(D, 2)

    def forward(self, ids):
        x = self.emb(ids)
        for blk in self.blocks:
            x = blk(x)
        return self.head(x.mean(1))


def train_step(model, opt, seq):
    ids = torch.randint(0, VOCAB, (BATCH, seq), device=DEV)
    y = torch.randint(0, 2, (BATCH,), device=DEV)
    before = torch.cuda.memory_allocated()
    logits = model(ids)  # OOM-ALLOC-SITE OOM-REQUEST-SITE: every layer's activations, attention probabilities included
    activations = torch.cuda.memory_allocated() - before
    loss = F.cross_entropy(logits, y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    return activations


def main():
    p = parser(__doc__, step_ms=30)
    p.add_argument("--warmup-steps", type=int, default=4)
    p.add_argument("--seq", type=int, default=1024)
    a = p.parse_args()
    t = OomTruth(a, __file__, "working_set",
                 "the forward pass's activations of one step (all layers of model(ids); attention probabilities)")
    model = Encoder().to(DEV)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
    t.d["parameter_bytes"] = sum(q.numel() * q.element_size() for q in model.parameters())
    try:
        step, act = 0, 0
        for step in range(a.warmup_steps):
            with marker("step", step):
                act = train_step(model, opt, a.seq)
            pause(a)
            t.step(0, step, batch=BATCH, seq_len=a.seq, activation_bytes=act)
        free, _ = torch.cuda.mem_get_info()
        room = free + torch.cuda.memory_reserved() - torch.cuda.memory_allocated()
        # the probabilities alone: LAYERS x BATCH x HEADS x seq^2 floats; half as much again as the room
        seq = int(math.ceil(math.sqrt(1.5 * room / (LAYERS * BATCH * HEADS * 4)) / 512)) * 512
        t.d.update(batch_size=BATCH, small_seq_len=a.seq, seq_len=seq, bytes_per_sample=act // BATCH,
                   bytes_per_sample_means="forward activations per sequence at small_seq_len (quadratic in it)",
                   probs_bytes_per_layer=BATCH * HEADS * seq * seq * 4, room_before_big_step=room)
        with marker("step", step + 1):
            train_step(model, opt, seq)
        t.step(0, step + 1, batch=BATCH, seq_len=seq)
    except torch.cuda.OutOfMemoryError as e:
        t.caught(e, seq_len=t.d.get("seq_len"))
    t.write()


if __name__ == "__main__":
    main()
