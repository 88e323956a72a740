"""Serving loop that keeps every request's output on the GPU "for the report at the end": a global
list PREDICTIONS only grows, each request adds 1/30 of the device, until a request's forward pass
finds no memory. Cause: leak (steady growth kept to the OOM).
    python leak_kept_outputs.py TRUTH.json [--step-ms MS]"""
import torch

from oom_common import DEV, OomTruth, mlp, parser, pause, round_down

PREDICTIONS = []  # module global: never cleared


def main():
    a = parser(__doc__, step_ms=30).parse_args()
    t = OomTruth(a, __file__, "leak", "list PREDICTIONS (every request's outputs, never cleared)",
                 unit="per request", released="never")
    free = t.d["start"]["device_free"]
    width = 8192
    rows = round_down(free // 30, 1 << 20) // (width * 4)  # each request's outputs: ~1/30 of the device
    t.d.update(rows_per_request=rows, kept_bytes_per_request=rows * width * 4)
    model = mlp(1024, 2048, width, depth=2).eval()
    x = torch.randn(rows, 1024, device=DEV)
    try:
        with torch.no_grad():
            for i in range(200):
                out = model(x)  # OOM-ALLOC-SITE OOM-REQUEST-SITE: the request's [rows, 8192] outputs
                PREDICTIONS.append(out)  # OOM-HOLD-SITE: kept "for the report", never cleared
                pause(a)
                t.step(0, i, kept=len(PREDICTIONS))
    except torch.cuda.OutOfMemoryError as e:
        t.caught(e, kept_requests=len(PREDICTIONS))
    t.write()


if __name__ == "__main__":
    main()
