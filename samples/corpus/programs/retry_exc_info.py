"""An inference worker that retries requests whose post-processing fails (a random, transient
error, about one attempt in five) and records each failure with sys.exc_info() in the module-level
ERRORS list for a later report. The saved traceback keeps the failed attempt's frames and with them
the request's activations (inference only, no backward). --clean records traceback.format_exc().
    python retry_exc_info.py TRUTH.json [--clean] [--steps REQUESTS] [--step-ms MS]"""
import random
import sys
import traceback

import torch

from corpus_common import DEV, parser, pause, tiny_lm, truth

ERRORS = []


class TransientError(RuntimeError):
    pass


@torch.no_grad()
def attempt(model, ids, fail):
    hidden = model(ids, hidden=True)[0]  # ALLOC-SITE: the request's hidden states, kept by the traceback
    scores = model.head(hidden[:, -1]).softmax(-1)
    if fail:
        raise TransientError("post-processing timed out")
    return scores.topk(5).indices


def main():
    a = parser(__doc__, steps=60, step_ms=45).parse_args()
    t = truth(a, __file__, leak=dict(holder="list ERRORS (sys.exc_info() tuples)", unit="irregular (failed attempts)",
                                     released="never", shape="irregular-exception"),
              clean=dict(holder="list ERRORS (formatted tracebacks)", unit="irregular (failed attempts)",
                         released="never", shape="flat"))
    rng = random.Random(a.seed + 3)
    model = tiny_lm(layers=2)
    for rid in range(a.steps):
        ids = torch.randint(0, model.vocab, (32, 256), device=DEV)
        for _ in range(3):
            try:
                attempt(model, ids, rng.random() < 0.2)
                break
            except TransientError:
                if a.clean:
                    ERRORS.append(traceback.format_exc())
                else:
                    ERRORS.append(sys.exc_info())  # HOLD-SITE: the traceback keeps attempt()'s frame
        pause(a)
        t.step(0, rid)
    t.d["failures"] = len(ERRORS)
    t.write()


if __name__ == "__main__":
    main()
