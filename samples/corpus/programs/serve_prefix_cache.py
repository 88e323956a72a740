"""A chat service with a prompt-prefix cache: the keys and values of a request's system prompt are
computed once and reused by later requests with the same prefix. The leaking run keys the cache by
the whole rendered system prompt, which contains the user's name and the time of the request, so no
key ever repeats and every request adds an entry to the module-level PREFIX_CACHE. --clean keys it by
the template (six of them): the cache fills in the first requests and then stays flat.
    python serve_prefix_cache.py TRUTH.json [--clean] [--steps REQUESTS] [--step-ms MS]"""
import random

import torch

from corpus_common import DEV, parser, pause, tiny_lm, truth

PREFIX_CACHE = {}  # prefix key -> (keys, values) per layer
TEMPLATES = ["assistant", "coder", "translator", "summarizer", "tutor", "critic"]


@torch.no_grad()
def prefix_state(model, key, prefix_ids):
    if key not in PREFIX_CACHE:
        _, past = model(prefix_ids)  # ALLOC-SITE: the prefix's keys and values
        PREFIX_CACHE[key] = past  # HOLD-SITE: a new key for every request in the leaking run
    return PREFIX_CACHE[key]


@torch.no_grad()
def answer(model, past, question, tokens):
    logits, past = model(question, past)
    out = []
    for _ in range(tokens):
        nxt = logits[:, -1].argmax(-1, keepdim=True)
        out.append(nxt)
        logits, past = model(nxt, past)
    return torch.cat(out, 1)


def main():
    p = parser(__doc__, steps=30, step_ms=70)
    p.add_argument("--tokens", type=int, default=12)
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--prefix", type=int, default=128)
    a = p.parse_args()
    t = truth(a, __file__, leak=dict(holder="dict PREFIX_CACHE", unit="per request", released="never",
                                     shape="cache-never-hits"),
              clean=dict(holder="dict PREFIX_CACHE (one entry per template)", unit="per template",
                         released="never", shape="cache-fills-early"))
    rng = random.Random(a.seed)
    model = tiny_lm()
    users = ["ana", "bo", "chen", "dev", "eli", "fay", "gus"]
    for rid in range(a.steps):
        template = TEMPLATES[rid % len(TEMPLATES)] if rid < len(TEMPLATES) else rng.choice(TEMPLATES)
        if a.clean:
            key = template
        else:
            key = f"You are a {template}. User: {rng.choice(users)}. Time: 2026-12-02 10:{rid // 60:02d}:{rid % 60:02d}."
        g = torch.Generator(device=DEV).manual_seed(TEMPLATES.index(template))
        prefix_ids = torch.randint(0, model.vocab, (a.batch, a.prefix), device=DEV, generator=g)
        past = prefix_state(model, key, prefix_ids)
        question = torch.randint(0, model.vocab, (a.batch, 16), device=DEV)
        answer(model, past, question, a.tokens)
        pause(a)
        t.step(0, rid)
    t.write()


if __name__ == "__main__":
    main()
