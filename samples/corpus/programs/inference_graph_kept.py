"""A batch-scoring job (inference only: no backward, no optimizer) that forgot torch.no_grad(): the
parameters require grad, so every output carries an autograd graph that saves the batch's
activations, and the job keeps each batch's probabilities in the module-level RESULTS dict. Each
kept result keeps its whole forward's activations. --clean runs under torch.inference_mode() and
keeps the predicted classes on the CPU.
    python inference_graph_kept.py TRUTH.json [--clean] [--steps BATCHES] [--step-ms MS]"""
import contextlib

import torch

from corpus_common import DEV, mlp, parser, pause, truth

RESULTS = {}


def main():
    a = parser(__doc__, steps=55, step_ms=50).parse_args()
    t = truth(a, __file__, leak=dict(holder="dict RESULTS (outputs with graphs)", unit="per batch", released="never",
                                     shape="inference-graph-kept"),
              clean=dict(holder="dict RESULTS (class ids on the CPU)", unit="per batch", released="never",
                         shape="inference-flat"))
    model = mlp(1024, 2048, 10).eval()
    batches = torch.randn(12, 96, 1024, device=DEV)
    ctx = torch.inference_mode() if a.clean else contextlib.nullcontext()
    with ctx:
        for i in range(a.steps):
            probs = model(batches[i % 12]).softmax(-1)  # ALLOC-SITE: the activations the graph saves
            RESULTS[i] = probs.argmax(-1).cpu() if a.clean else probs  # HOLD-SITE: probs and its graph
            pause(a)
            t.step(0, i)
    t.write()


if __name__ == "__main__":
    main()
