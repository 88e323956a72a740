"""A serving loop around Hugging Face generate() on a small randomly initialised GPT-2 (built from a
GPT2Config, nothing downloaded). The leaking run stores each request's whole generate() output
(return_dict_in_generate with output_scores: sequences, per-step scores and the KV cache) in the
module-level RESULTS dict "to serve follow-up requests"; nothing evicts it. --clean stores the new
token ids on the CPU.
    python serve_hf_scores.py TRUTH.json [--clean] [--steps REQUESTS] [--tokens T] [--step-ms MS]"""
import warnings

import torch
from transformers import GPT2Config, GPT2LMHeadModel
from transformers.utils import logging as hf_logging

from corpus_common import DEV, parser, pause, truth

warnings.filterwarnings("ignore")
hf_logging.set_verbosity_error()

RESULTS = {}  # request id -> generate() output


def main():
    p = parser(__doc__, steps=28, step_ms=30)
    p.add_argument("--tokens", type=int, default=16)
    p.add_argument("--batch", type=int, default=8)
    a = p.parse_args()
    t = truth(a, __file__, leak=dict(holder="dict RESULTS (generate outputs: scores, KV cache)", unit="per request",
                                     released="never", shape="hf-generate-per-request"),
              clean=dict(holder="dict RESULTS (token ids on the CPU)", unit="per request", released="never",
                         shape="hf-generate-flat"))
    cfg = GPT2Config(vocab_size=8192, n_positions=128, n_embd=128, n_layer=2, n_head=4,
                     bos_token_id=0, eos_token_id=0, pad_token_id=0)
    model = GPT2LMHeadModel(cfg).to(DEV).eval()
    gen = dict(max_new_tokens=a.tokens, min_new_tokens=a.tokens, do_sample=False, pad_token_id=0, eos_token_id=0,
               return_dict_in_generate=True, output_scores=True)
    with torch.no_grad():
        for rid in range(a.steps):
            ids = torch.randint(1, cfg.vocab_size, (a.batch, 24), device=DEV)
            mask = torch.ones_like(ids)
            out = model.generate(input_ids=ids, attention_mask=mask, **gen)  # ALLOC-SITE: scores, KV cache
            if a.clean:
                RESULTS[rid] = out.sequences[:, ids.size(1):].cpu()
            else:
                RESULTS[rid] = out  # HOLD-SITE: every request's output, never evicted
            del out
            pause(a)
            t.step(0, rid)
    t.write()


if __name__ == "__main__":
    main()
