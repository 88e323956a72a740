"""A text-generation service that remembers every request in a dict nothing evicts.
Each request runs a greedy generate loop (prompt, then one token at a time with a KV cache) around a
small hand-written transformer; the leaking run keeps each answer's scores (batch x tokens x vocab
logits) in the module-level SESSIONS dict "for follow-up questions", keyed by a request id that never
repeats. --clean keeps only the generated token ids, on the CPU.
    python serve_session_cache.py TRUTH.json [--clean] [--steps REQUESTS] [--tokens T] [--step-ms MS]"""
import torch

from corpus_common import DEV, parser, pause, tiny_lm, truth

SESSIONS = {}  # request id -> what the service remembers about the answer


@torch.no_grad()
def handle(model, rid, prompt, tokens, clean):
    logits, past = model(prompt)
    steps = [logits[:, -1]]
    for _ in range(tokens - 1):
        nxt = steps[-1].argmax(-1, keepdim=True)
        logits, past = model(nxt, past)
        steps.append(logits[:, -1])
    scores = torch.stack(steps, 1)  # ALLOC-SITE: [batch, tokens, vocab] scores of the answer
    answer = scores.argmax(-1)
    if clean:
        SESSIONS[rid] = answer.tolist()
    else:
        SESSIONS[rid] = {"answer": answer, "scores": scores}  # HOLD-SITE: nothing evicts a session
    return answer


def main():
    p = parser(__doc__, steps=32, step_ms=70)
    p.add_argument("--tokens", type=int, default=16)
    p.add_argument("--batch", type=int, default=8)
    a = p.parse_args()
    t = truth(a, __file__, leak=dict(holder="dict SESSIONS", unit="per request", released="never",
                                     shape="nested-request-token"),
              clean=dict(holder="dict SESSIONS (token ids on the CPU)", unit="per request", released="never",
                         shape="request-token-flat"))
    model = tiny_lm()
    for rid in range(a.steps):
        prompt = torch.randint(0, model.vocab, (a.batch, 32), device=DEV)
        handle(model, f"req-{rid:05d}", prompt, a.tokens, a.clean)
        pause(a)
        t.step(0, rid)
    t.write()


if __name__ == "__main__":
    main()
