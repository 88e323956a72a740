"""Batch prediction (inference only, under torch.no_grad) that collects every batch's probabilities
in a local list of predict() and concatenates them at the end. The list lives on the GPU until
predict() returns, at the end of the program: memory grows per batch and is released only then.
--clean moves each batch's probabilities to the CPU as it goes.
    python predict_collect_gpu.py TRUTH.json [--clean] [--steps BATCHES] [--step-ms MS]"""
import torch

from corpus_common import DEV, mlp, parser, pause, truth


@torch.no_grad()
def predict(model, batches, a, t):
    outputs = []
    for i in range(a.steps):
        x = batches[i % len(batches)]
        probs = model(x).softmax(-1)  # ALLOC-SITE: [96, 4096] probabilities, 1.5 MiB a batch
        outputs.append(probs.cpu() if a.clean else probs)  # HOLD-SITE: on the GPU until predict() returns
        pause(a)
        t.step(0, i)
    preds = torch.cat(outputs).argmax(-1)
    return preds.cpu()


def main():
    a = parser(__doc__, steps=80, step_ms=35).parse_args()
    t = truth(a, __file__, leak=dict(holder="list outputs (local of predict())", unit="per batch",
                                     released="at program end", shape="released-at-end-inference"),
              clean=dict(holder="list outputs (CPU tensors)", unit="per batch", released="at program end",
                         shape="flat-inference"))
    model = mlp(1024, 2048, 4096).eval()
    batches = torch.randn(10, 96, 1024, device=DEV)
    preds = predict(model, batches, a, t)
    t.write()
    return preds


if __name__ == "__main__":
    main()
