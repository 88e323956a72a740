"""A chat server that keeps each conversation's KV cache between turns, so that a follow-up message
only runs the new tokens. Most requests start a new conversation and a quarter continue an earlier
one. The leaking run never ends a conversation: the module-level CONVERSATIONS dict keeps every KV
cache it ever made. --clean keeps the four most recently used conversations (an LRU; a follow-up to an
evicted one recomputes its prompt).
    python serve_kv_conversations.py TRUTH.json [--clean] [--steps REQUESTS] [--step-ms MS]"""
import random
from collections import OrderedDict

import torch

from corpus_common import DEV, parser, pause, tiny_lm, truth

CONVERSATIONS = OrderedDict()  # conversation id -> KV cache (list of (keys, values) per layer)
KEEP = 4


@torch.no_grad()
def turn(model, past, message, tokens):
    logits, past = model(message, past)
    for _ in range(tokens):
        nxt = logits[:, -1].argmax(-1, keepdim=True)
        logits, past = model(nxt, past)  # ALLOC-SITE: the grown keys and values of the conversation
    return past


def main():
    p = parser(__doc__, steps=36, step_ms=60)
    p.add_argument("--prompt", type=int, default=448)
    p.add_argument("--tokens", type=int, default=16)
    a = p.parse_args()
    t = truth(a, __file__, leak=dict(holder="OrderedDict CONVERSATIONS (KV caches)", unit="per conversation",
                                     released="never", shape="kv-cache-per-conversation"),
              clean=dict(holder="OrderedDict CONVERSATIONS (LRU of 4 KV caches)", unit="per conversation",
                         released="never", shape="bounded-kv-lru"))
    rng = random.Random(a.seed)
    model = tiny_lm(layers=4, max_len=2048)
    started = []
    for rid in range(a.steps):
        if started and rng.random() < 0.25:
            cid = rng.choice(started)
            past = CONVERSATIONS.get(cid)
            message = torch.randint(0, model.vocab, (1, 32 if past is not None else a.prompt), device=DEV)
        else:
            cid, past = f"conv-{rid}", None
            started.append(cid)
            message = torch.randint(0, model.vocab, (1, a.prompt), device=DEV)
        past = turn(model, past, message, a.tokens)
        if past[0][0].size(2) > 1800:  # the model's context is full: start over
            past = turn(model, None, message, a.tokens)
        CONVERSATIONS[cid] = past  # HOLD-SITE: kept for the next turn, never dropped in the leaking run
        CONVERSATIONS.move_to_end(cid)
        if a.clean:
            while len(CONVERSATIONS) > KEEP:
                CONVERSATIONS.popitem(last=False)
        del past
        pause(a)
        t.step(0, rid)
    t.write()


if __name__ == "__main__":
    main()
