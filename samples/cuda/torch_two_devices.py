"""Two GPUs seen at the CUDA level by the CUPTI agent: different amounts on cuda:0 and cuda:1; prints
each device's memory_reserved() at the end, which each recorded device's reserved must equal."""
import torch

kept = []
for d, n in ((0, 6), (1, 11)):
    for i in range(n):
        kept.append(torch.empty((i + 1) << 20, dtype=torch.uint8, device=f"cuda:{d}"))
    tmp = torch.empty(64 << 20, dtype=torch.uint8, device=f"cuda:{d}")
    del tmp
for d in (0, 1):
    torch.cuda.synchronize(d)
    print(f"memory_reserved {d} {torch.cuda.memory_reserved(d)}")
