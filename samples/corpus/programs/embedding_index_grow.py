"""A semantic-search service (inference only) that adds each request's document embeddings to an
in-GPU index with torch.cat and searches it. The leaking index, the module-level INDEX, grows by 128
embeddings per request forever. --clean keeps a sliding window of the most recent 2048 embeddings:
the index fills in the first requests and then stays the same size.
    python embedding_index_grow.py TRUTH.json [--clean] [--steps REQUESTS] [--step-ms MS]"""
import torch
import torch.nn.functional as F

from corpus_common import DEV, parser, pause, tiny_lm, truth

INDEX = None
WINDOW = 2048


@torch.inference_mode()
def embed(model, ids):
    hidden, _ = model(ids, hidden=True)
    return F.normalize(hidden.mean(1), dim=-1)


def main():
    global INDEX
    a = parser(__doc__, steps=90, step_ms=30).parse_args()
    t = truth(a, __file__, leak=dict(holder="tensor INDEX (torch.cat per request)", unit="per request",
                                     released="never", shape="index-cat-growth"),
              clean=dict(holder="tensor INDEX (sliding window of 2048 rows)", unit="per request", released="never",
                         shape="cache-fills-early"))
    model = tiny_lm(d=256)
    proj = torch.randn(256, 4096, device=DEV) / 16
    INDEX = torch.empty(0, 4096, device=DEV)
    for rid in range(a.steps):
        docs = torch.randint(0, model.vocab, (128, 48), device=DEV)
        emb = embed(model, docs) @ proj
        grown = torch.cat([INDEX, emb])  # ALLOC-SITE: the index with this request's documents added
        INDEX = grown[-WINDOW:] if a.clean else grown  # HOLD-SITE: the index only grows
        query = embed(model, docs[:1]) @ proj
        top = (INDEX @ query.t()).topk(5, dim=0).indices
        del grown, top
        pause(a)
        t.step(0, rid)
    t.write()


if __name__ == "__main__":
    main()
