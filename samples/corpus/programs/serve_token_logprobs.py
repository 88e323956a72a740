"""A streaming generation service that logs, for analytics, the distribution of every token it
emits. The leaking run appends each decoding step's [batch, vocab] logits to the module-level
TOKEN_LOG, meant to be uploaded "later": memory grows by one block per generated token, in requests
of 20 tokens (request > token).
--clean logs the chosen tokens' log-probabilities, summed per request and moved to the CPU.
    python serve_token_logprobs.py TRUTH.json [--clean] [--steps REQUESTS] [--tokens T] [--step-ms MS]"""
import torch

from corpus_common import DEV, parser, pause, tiny_lm, truth

TOKEN_LOG = []  # one entry per generated token


@torch.no_grad()
def stream(model, prompt, tokens, clean):
    past, nxt, logprobs = None, prompt, []
    for _ in range(tokens):
        hidden, past = model(nxt, past, hidden=True)
        logits = model.head(hidden[:, -1])  # ALLOC-SITE: the step's [batch, vocab] logits
        nxt = logits.argmax(-1, keepdim=True)
        if clean:
            logprobs.append(torch.log_softmax(logits, -1).gather(-1, nxt))
        else:
            TOKEN_LOG.append(logits)  # HOLD-SITE: every token's logits, never uploaded nor dropped
    if clean:
        TOKEN_LOG.append(torch.cat(logprobs, 1).sum(1).cpu())


def main():
    p = parser(__doc__, steps=30, step_ms=50)
    p.add_argument("--tokens", type=int, default=20)
    p.add_argument("--batch", type=int, default=8)
    a = p.parse_args()
    t = truth(a, __file__, leak=dict(holder="list TOKEN_LOG", unit="per generated token", released="never",
                                     shape="nested-request-token-per-token"),
              clean=dict(holder="list TOKEN_LOG (per-request sums on the CPU)", unit="per request",
                         released="never", shape="request-token-flat"))
    model = tiny_lm()
    for rid in range(a.steps):
        prompt = torch.randint(0, model.vocab, (a.batch, 24), device=DEV)
        stream(model, prompt, a.tokens, a.clean)
        pause(a)
        t.step(0, rid)
    t.write()


if __name__ == "__main__":
    main()
