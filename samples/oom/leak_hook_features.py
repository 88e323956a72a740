"""Training with a forward hook that collects the encoder's output "for a t-SNE plot at the end" in a
module-level list: the hook was meant for one debugging batch and never removed, so every step adds
its [rows, 4096] features (about 1/40 of the device) until a step's forward pass finds no memory.
Cause: leak (steady growth kept to the OOM). Held out: never used to change a rule.
    python leak_hook_features.py TRUTH.json [--step-ms MS]"""
import torch
import torch.nn.functional as F

from oom_common import DEV, OomTruth, marker, parser, pause

FEATURES = []  # filled by the hook, never cleared


def keep_features(module, args, out):
    FEATURES.append(out.detach())  # OOM-HOLD-SITE: the hook keeps every step's features


def main():
    a = parser(__doc__, step_ms=20).parse_args()
    t = OomTruth(a, __file__, "leak", "list FEATURES (a forward hook's, never removed)", unit="per step",
                 released="never")
    d_feat = 4096
    rows = int(t.d["start"]["device_free"] // 40 // (d_feat * 4)) // 256 * 256
    t.d.update(rows_per_step=rows, kept_bytes_per_step=rows * d_feat * 4)
    encoder = torch.nn.Sequential(torch.nn.Linear(512, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, d_feat)).to(DEV)
    head = torch.nn.Linear(d_feat, 10).to(DEV)
    encoder.register_forward_hook(keep_features)
    opt = torch.optim.SGD(list(encoder.parameters()) + list(head.parameters()), lr=1e-3)
    x, y = torch.randn(rows, 512, device=DEV), torch.randint(0, 10, (rows,), device=DEV)
    try:
        for step in range(200):
            with marker("step", step):
                feats = encoder(x)  # OOM-ALLOC-SITE OOM-REQUEST-SITE: the step's [rows, 4096] features
                loss = F.cross_entropy(head(feats), y)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
            pause(a)
            t.step(0, step, kept=len(FEATURES))
    except torch.cuda.OutOfMemoryError as e:
        t.caught(e, kept_steps=len(FEATURES))
    t.write()


if __name__ == "__main__":
    main()
