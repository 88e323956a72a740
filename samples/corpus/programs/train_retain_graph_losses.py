"""A training loop that called backward(retain_graph=True) (the usual way people silence "Trying to
backward through the graph a second time") and keeps every step's loss tensor in the module-level
LOSSES list to plot later. With retain_graph the graph keeps its saved activations after backward,
and the kept loss keeps the graph: every step's activations stay alive. --clean keeps loss.item().
    python train_retain_graph_losses.py TRUTH.json [--clean] [--steps N] [--step-ms MS]"""
import torch
import torch.nn.functional as F

from corpus_common import DEV, mlp, parser, pause, truth

LOSSES = []


def main():
    a = parser(__doc__, steps=110, step_ms=25).parse_args()
    t = truth(a, __file__, leak=dict(holder="list LOSSES (losses with retained graphs)", unit="per step",
                                     released="never", shape="per-step"),
              clean=dict(holder="list LOSSES (floats)", unit="per step", released="never", shape="flat"))
    model = mlp(1024, 1536, 10)
    opt = torch.optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
    data = torch.randn(8, 64, 1024, device=DEV)
    labels = torch.randint(0, 10, (8, 64), device=DEV)
    for step in range(a.steps):
        x, y = data[step % 8], labels[step % 8]
        logits = model(x)  # ALLOC-SITE: the activations the retained graph saves
        loss = F.cross_entropy(logits, y)
        opt.zero_grad()
        loss.backward(retain_graph=True)
        opt.step()
        if a.clean:
            LOSSES.append(loss.item())
        else:
            LOSSES.append(loss)  # HOLD-SITE: the loss keeps its graph and the graph its activations
        pause(a)
        t.step(0, step)
    t.write()


if __name__ == "__main__":
    main()
