"""Evaluation every 20th training step, written without torch.no_grad() and summing the validation
loss as a tensor (val_loss += loss); the result goes into the module-level HISTORY. Each kept
validation loss keeps the graph of the whole evaluation, with every validation batch's activations:
~12 MiB every 20th step. --clean evaluates under torch.no_grad() and keeps val_loss.item().
    python eval_history_graph.py TRUTH.json [--clean] [--steps N] [--eval-every K] [--step-ms MS]"""
import torch
import torch.nn.functional as F

from corpus_common import DEV, every, mlp, parser, pause, truth

HISTORY = {"step": [], "val_loss": []}


def evaluate(model, val_x, val_y):
    model.eval()
    val_loss = 0.0
    for x, y in zip(val_x, val_y):
        logits = model(x)  # ALLOC-SITE: without no_grad the graph saves these activations
        val_loss = val_loss + F.cross_entropy(logits, y)
    model.train()
    return val_loss / len(val_x)


def main():
    p = parser(__doc__, steps=160, step_ms=18)
    p.add_argument("--eval-every", type=int, default=20)
    a = p.parse_args()
    k = a.eval_every
    t = truth(a, __file__, leak=dict(holder="dict HISTORY['val_loss'] (losses with graphs)", unit=every(k),
                                     released="never", shape=f"eval-every-k{k}"),
              clean=dict(holder="dict HISTORY['val_loss'] (floats)", unit=every(k), released="never",
                         shape="eval-flat"))
    model = mlp(1024, 2048, 10)
    opt = torch.optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
    data = torch.randn(8, 128, 1024, device=DEV)
    labels = torch.randint(0, 10, (8, 128), device=DEV)
    val_x = torch.randn(3, 128, 1024, device=DEV)
    val_y = torch.randint(0, 10, (3, 128), device=DEV)
    for step in range(a.steps):
        loss = F.cross_entropy(model(data[step % 8]), labels[step % 8])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % k == k - 1:
            if a.clean:
                with torch.no_grad():
                    val_loss = evaluate(model, val_x, val_y).item()
            else:
                val_loss = evaluate(model, val_x, val_y)
            HISTORY["step"].append(step)
            HISTORY["val_loss"].append(val_loss)  # HOLD-SITE: the tensor and its graph, every evaluation
        pause(a)
        t.step(0, step)
    t.write()


if __name__ == "__main__":
    main()
