"""A retrieval service that memoises document encodings with functools.lru_cache. The leaking run uses
lru_cache(maxsize=None), the usual "just cache it" fix for a slow encoder: every new document's hidden
states ([chunks, tokens, d] on the GPU) stay in the cache of the module-level ENCODE function
forever. --clean bounds it (maxsize=8): the cache fills in the first requests, then each new document
evicts the least recently used one.
    python serve_lru_encode.py TRUTH.json [--clean] [--steps REQUESTS] [--step-ms MS]"""
import functools
import sys

import torch

from corpus_common import DEV, parser, pause, tiny_lm, truth

MODEL = None
ENCODE = None  # the memoised encoder, made in main() once the cache size is known


@torch.no_grad()
def _encode(doc_id, chunks=32, tokens=128):
    g = torch.Generator(device=DEV).manual_seed(doc_id)
    ids = torch.randint(0, MODEL.vocab, (chunks, tokens), device=DEV, generator=g)
    hidden, _ = MODEL(ids, hidden=True)  # ALLOC-SITE: [chunks, tokens, d] kept by the cache
    return hidden


def main():
    global MODEL, ENCODE
    a = parser(__doc__, steps=36, step_ms=75).parse_args()
    t = truth(a, __file__, leak=dict(holder="functools.lru_cache of ENCODE (maxsize=None)", unit="per request",
                                     released="never", shape="unbounded-lru"),
              clean=dict(holder="functools.lru_cache of ENCODE (maxsize=8)", unit="per request", released="never",
                         shape="bounded-lru"))
    MODEL = tiny_lm()
    if a.clean:
        ENCODE = functools.lru_cache(maxsize=8)(_encode)
    else:
        ENCODE = functools.lru_cache(maxsize=None)(_encode)  # HOLD-SITE: an unbounded cache of GPU tensors
    query = torch.randn(256, device=DEV)
    for rid in range(a.steps):
        docs = [1000 + rid] + ([1000 + rid - 1] if rid else [])  # the new document and the one before
        best = max(float((ENCODE(d)[:, 0] @ query).max()) for d in docs)
        pause(a)
        t.step(0, rid)
    print("cache:", ENCODE.cache_info(), file=sys.stderr)
    t.write()


if __name__ == "__main__":
    main()
