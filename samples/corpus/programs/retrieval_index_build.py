"""Dual-encoder training with a retrieval evaluation after every epoch: the evaluation encodes the
document collection batch by batch, keeps every batch's embeddings on the GPU, concatenates them into
an index and scores recall@10 of the validation queries against it. Memory climbs through each index
build to ~200 MiB over a training step's and falls when the evaluation returns; the build is short
(about 1/25 of the run) and has no step of its own. An accumulation, released at evaluation end.
--clean moves each batch's embeddings to the host and scores there.
    python retrieval_index_build.py TRUTH.json [--clean] [--epochs E] [--steps N] [--doc-batches D] [--step-ms MS]"""
import torch
import torch.nn.functional as F

from corpus_common import DEV, mlp, parser, pause, phase_step, truth


@torch.no_grad()
def recall_at_10(encoder, docs, queries, answers, a, t, epoch):
    encoder.eval()
    doc_embs = []
    for i, batch in enumerate(docs):
        emb = F.normalize(encoder(batch), dim=-1)  # ALLOC-SITE: [1024, 1024] document embeddings (4 MiB) per batch
        doc_embs.append(emb.cpu() if a.clean else emb)  # HOLD-SITE: the index being built, on the GPU
        pause(a, 0.25)
        phase_step(t, epoch, i, "eval")
    index = torch.cat(doc_embs)
    q = F.normalize(encoder(queries), dim=-1).to(index.device)
    top = (q @ index.T).topk(10, dim=1).indices
    encoder.train()
    return (top == answers.to(index.device)[:, None]).any(1).float().mean().item()


def main():
    p = parser(__doc__, steps=30, step_ms=20)
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--doc-batches", type=int, default=24)
    a = p.parse_args()
    t = truth(a, __file__, leak=dict(kind="accumulation", holder="list doc_embs (local of recall_at_10(), GPU index)",
                                     unit="per evaluation batch", released="at evaluation end",
                                     shape="retrieval-index-build-accumulation"),
              clean=dict(holder="list doc_embs (local of recall_at_10(), CPU)", unit="per evaluation batch",
                         released="at evaluation end", shape="retrieval-index-build-flat"))
    encoder = mlp(512, 1024, 1024)
    opt = torch.optim.AdamW(encoder.parameters(), lr=1e-4)
    pairs_q = torch.randn(8, 256, 512, device=DEV)
    pairs_d = pairs_q + 0.2 * torch.randn_like(pairs_q)
    docs = torch.randn(a.doc_batches, 1024, 512, device=DEV)
    answers = torch.randint(0, a.doc_batches * 1024, (64,), device=DEV)
    queries = docs.flatten(0, 1)[answers] + 0.2 * torch.randn(64, 512, device=DEV)
    history = []
    for epoch in range(a.epochs):
        for step in range(a.steps):
            q = F.normalize(encoder(pairs_q[step % 8]), dim=-1)
            d = F.normalize(encoder(pairs_d[step % 8]), dim=-1)
            loss = F.cross_entropy(q @ d.T / 0.05, torch.arange(q.size(0), device=DEV))
            opt.zero_grad()
            loss.backward()
            opt.step()
            pause(a)
            t.step(epoch, step)
        history.append(recall_at_10(encoder, docs, queries, answers, a, t, epoch))
    t.d["recall_at_10"] = history
    t.write()


if __name__ == "__main__":
    main()
