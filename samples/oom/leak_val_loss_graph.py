"""Training loop that logs a validation loss every step without torch.no_grad() and keeps the loss
tensor (not loss.item()) in a global history: each kept loss keeps its graph, and the graph keeps the
validation forward pass's activations (~1/30 of the device a step), until a step runs out of memory.
Cause: leak (steady growth kept to the OOM).
    python leak_val_loss_graph.py TRUTH.json [--step-ms MS]"""
import torch
import torch.nn.functional as F

from oom_common import DEV, OomTruth, mlp, parser, pause

VAL_HISTORY = []  # module global: the logged validation losses, with their graphs


def main():
    a = parser(__doc__, step_ms=30).parse_args()
    t = OomTruth(a, __file__, "leak", "list VAL_HISTORY (validation losses with their graphs: saved activations)",
                 unit="per step", released="never")
    free = t.d["start"]["device_free"]
    width, depth = 4096, 4
    # saved for backward per validation row: each Linear's input and each GELU's input (width floats each)
    val_rows = int(free // 30 // (2 * depth * width * 4)) // 256 * 256
    t.d.update(val_rows=val_rows, kept_bytes_per_step_estimate=val_rows * 2 * depth * width * 4)
    model = mlp(1024, width, 16, depth=depth)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    x, y = torch.randn(512, 1024, device=DEV), torch.randn(512, 16, device=DEV)
    vx, vy = torch.randn(val_rows, 1024, device=DEV), torch.randn(val_rows, 16, device=DEV)
    try:
        for step in range(200):
            loss = F.mse_loss(model(x), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            val_loss = F.mse_loss(model(vx), vy)  # OOM-ALLOC-SITE OOM-REQUEST-SITE: forgot torch.no_grad()
            VAL_HISTORY.append(val_loss)  # OOM-HOLD-SITE: the tensor, not val_loss.item()
            pause(a)
            t.step(0, step, kept=len(VAL_HISTORY))
    except torch.cuda.OutOfMemoryError as e:
        t.caught(e, kept_steps=len(VAL_HISTORY))
    t.write()


if __name__ == "__main__":
    main()
