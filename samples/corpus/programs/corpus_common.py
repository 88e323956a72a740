"""Shared pieces of the corpus programs: the command line, the truth file (samples/real/truth.py's
Truth, imported from there), a tiny hand-written decoder-only transformer with a KV cache, a small MLP,
and the pause that stands in for data loading. CORPUS_DEVICE=cpu runs a program's logic without a GPU
(the truth's memory figures are then zero)."""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "real"))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402

from truth import Truth, site_lines  # noqa: E402

DEV = torch.device(os.environ.get("CORPUS_DEVICE", "cuda"))


def parser(doc, steps, step_ms, twin=True):
    """The arguments every program takes: TRUTH_OUT.json [--clean] [--seed S] [--steps N] [--step-ms MS]."""
    p = argparse.ArgumentParser(description=doc.strip().splitlines()[0])
    p.add_argument("truth", help="where the truth JSON goes")
    if twin:
        p.add_argument("--clean", action="store_true", help="the fixed program (kind none)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--steps", type=int, default=steps, help="steps (or requests) of the outer loop")
    p.add_argument("--step-ms", type=float, default=step_ms, help="pause per step: stands in for data loading")
    return p


def truth(a, program, leak=None, clean=None, **extra):
    """The run's Truth. leak / clean: the facts of the leaking and of the clean run: holder (what keeps
    the memory, in words), unit (how often it grows), released (never, at program end, at epoch end,
    by gc), shape (a short tag); the leak's `kind` (leak, accumulation, cycle; default leak). A run
    with --clean, or a program without a leak, is kind none. Lines marked `# ALLOC2-SITE` (a second
    line that allocates what is kept) join leak_lines."""
    torch.manual_seed(a.seed)
    if getattr(a, "clean", False) or leak is None:
        facts, kind = dict(clean or {}), "none"
    else:
        facts = dict(leak)
        kind = facts.pop("kind", "leak")
    facts.update(extra)
    t = Truth(a.truth, kind, program, **facts)
    if kind != "none":
        t.d["leak_lines"] += [n for n in site_lines(t.program, hold="ALLOC2")[1:] if n not in t.d["leak_lines"]]
    return t


def phase_step(t, epoch, step, phase):
    """A truth step inside a phase that has no step of its own (an evaluation between epochs): the same
    entry as t.step, with "phase" added, so that check_truth sees the phase's memory. Nothing of it
    reaches the recorders (no optimizer step, no marker)."""
    t.step(epoch, step)
    t.d["steps"][-1]["phase"] = phase


def second(t, kind, **facts):
    """A second finding in the same run (a capture with two things worth saying): the truth's "second"
    field, {"kind", "leak_file", "leak_lines", holder, unit, released, shape}, its lines found by the
    markers `# SECOND-ALLOC-SITE` (the line that allocates what it keeps) and `# SECOND-HOLD-SITE`."""
    lines = open(t.program).read().splitlines()
    find = lambda tag: next((i + 1 for i, l in enumerate(lines) if tag in l), None)  # noqa: E731
    found = [find("# SECOND-" + tag + "-SITE") for tag in ("ALLOC", "HOLD")]
    t.d["second"] = dict(kind=kind, leak_file=os.path.basename(t.program), leak_lines=[n for n in found if n],
                         **facts)


def every(k, what="step"):
    """"every 10th step", "every 3rd step", "per step" for k = 1."""
    if k == 1:
        return "per " + what
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"every {k}{suffix} {what}"


def pause(a, scale=1.0):
    if a.step_ms:
        time.sleep(a.step_ms * scale / 1000)


def mlp(d_in, width, d_out, depth=2):
    layers = [nn.Linear(d_in, width), nn.GELU()]
    for _ in range(depth - 1):
        layers += [nn.Linear(width, width), nn.GELU()]
    layers.append(nn.Linear(width, d_out))
    return nn.Sequential(*layers).to(DEV)


class Block(nn.Module):
    """Pre-norm attention + MLP block; past = (keys, values) of the tokens before x."""

    def __init__(self, d, heads):
        super().__init__()
        self.h = heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc, self.out = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x, past=None):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
        q, k, v = [z.view(b, t, self.h, d // self.h).transpose(1, 2) for z in (q, k, v)]
        if past is not None:
            k, v = torch.cat([past[0], k], dim=2), torch.cat([past[1], v], dim=2)
        if past is None:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        elif t == 1:
            y = F.scaled_dot_product_attention(q, k, v)
        else:  # new tokens after a cached prefix: each sees the prefix and the new tokens up to itself
            s = k.size(2)
            mask = torch.ones(t, s, dtype=torch.bool, device=x.device).tril(s - t)
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, d))
        x = x + self.out(F.gelu(self.fc(self.ln2(x))))
        return x, (k, v)


class TinyLM(nn.Module):
    """A decoder-only transformer: forward(ids, past) -> (logits, past) with past a list of (keys,
    values) per layer; hidden=True returns the last hidden state instead of the logits."""

    def __init__(self, vocab=8192, d=256, layers=2, heads=4, max_len=1024):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(max_len, d)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        self.vocab = vocab

    def forward(self, ids, past=None, hidden=False):
        start = 0 if past is None else past[0][0].size(2)
        x = self.tok(ids) + self.pos(torch.arange(start, start + ids.size(1), device=ids.device))
        new = []
        for i, blk in enumerate(self.blocks):
            x, kv = blk(x, None if past is None else past[i])
            new.append(kv)
        x = self.ln(x)
        return (x if hidden else self.head(x)), new


def tiny_lm(**kw):
    return TinyLM(**kw).to(DEV).eval()
