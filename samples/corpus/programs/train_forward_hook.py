"""A forward hook registered to look at a layer's features, left on during training. The leaking
hook appends every output (with its graph) to the module-level FEATURES list; --clean keeps only the
latest output, detached (FEATURES_LAST["fc2"] = output.detach()), as feature-extraction code
usually does.
    python train_forward_hook.py TRUTH.json [--clean] [--steps N] [--step-ms MS]"""
import torch
import torch.nn.functional as F

from corpus_common import DEV, mlp, parser, pause, truth

FEATURES = []
FEATURES_LAST = {}


def keep_all(module, inputs, output):
    FEATURES.append(output)  # HOLD-SITE: the hook keeps every forward's output


def keep_last(module, inputs, output):
    FEATURES_LAST["fc2"] = output.detach()


def main():
    a = parser(__doc__, steps=110, step_ms=25).parse_args()
    t = truth(a, __file__, leak=dict(holder="list FEATURES (appended by a forward hook)", unit="per step",
                                     released="never", shape="per-step"),
              clean=dict(holder="dict FEATURES_LAST (latest output)", unit="per step", released="never",
                         shape="flat"))
    model = mlp(512, 2048, 100)
    model[2].register_forward_hook(keep_last if a.clean else keep_all)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    data = torch.randn(8, 128, 512, device=DEV)
    labels = torch.randint(0, 100, (8, 128), device=DEV)
    for step in range(a.steps):
        logits = model(data[step % 8])  # ALLOC-SITE: the hooked layer's output is made here
        loss = F.cross_entropy(logits, labels[step % 8])
        opt.zero_grad()
        loss.backward()
        opt.step()
        pause(a)
        t.step(0, step)
    t.write()


if __name__ == "__main__":
    main()
