"""A hand-written decode loop around a small randomly initialised Hugging Face GPT-2 (from a
GPT2Config): each request feeds its prompt, then one token at a time with past_key_values, so the
request's KV cache (a transformers Cache) grows token by token within the request. --clean drops the
cache when the request is done (memory grows within a request and is freed after it). The leaking
run keeps every request's cache in the module-level CHATS dict "to continue the chat later".
    python hf_chat_decode.py TRUTH.json [--clean] [--steps REQUESTS] [--tokens T] [--step-ms MS]"""
import warnings

import torch
from transformers import GPT2Config, GPT2LMHeadModel
from transformers.utils import logging as hf_logging

from corpus_common import DEV, parser, pause, truth

warnings.filterwarnings("ignore")
hf_logging.set_verbosity_error()

CHATS = {}


@torch.no_grad()
def decode(model, prompt, tokens):
    out = model(input_ids=prompt, use_cache=True)
    past, answer = out.past_key_values, []
    for _ in range(tokens):
        nxt = out.logits[:, -1:].argmax(-1)
        answer.append(nxt)
        out = model(input_ids=nxt, past_key_values=past, use_cache=True)  # ALLOC-SITE: the cache grows here
        past = out.past_key_values
    return torch.cat(answer, 1), past


def main():
    p = parser(__doc__, steps=22, step_ms=25)
    p.add_argument("--tokens", type=int, default=24)
    p.add_argument("--prompt", type=int, default=192)
    a = p.parse_args()
    t = truth(a, __file__, leak=dict(holder="dict CHATS (transformers KV caches)", unit="per request",
                                     released="never", shape="hf-kv-per-request"),
              clean=dict(holder="none (the KV cache is a local of decode())", unit="per token",
                         released="at request end", shape="kv-grows-within-request"))
    cfg = GPT2Config(vocab_size=4096, n_positions=512, n_embd=256, n_layer=4, n_head=4)
    model = GPT2LMHeadModel(cfg).to(DEV).eval()
    for rid in range(a.steps):
        prompt = torch.randint(0, cfg.vocab_size, (4, a.prompt), device=DEV)
        answer, past = decode(model, prompt, a.tokens)
        if not a.clean:
            CHATS[rid] = past  # HOLD-SITE: every request's cache, kept for a follow-up that never comes
        del past
        pause(a)
        t.step(0, rid)
    t.write()


if __name__ == "__main__":
    main()
