"""PyTorch seen at the CUDA level by the CUPTI agent: prints memory_reserved() at the end, which the
recorded reserved memory must equal (run with and without expandable segments)."""
import torch

x = []
for i in range(20):
    x.append(torch.randn(1024, 1024 + i * 64, device="cuda"))
    if i % 3 == 0:
        x.pop(0)
y = torch.empty(300 << 20, dtype=torch.uint8, device="cuda")
del y
torch.cuda.synchronize()
print("memory_reserved", torch.cuda.memory_reserved())
print("memory_allocated", torch.cuda.memory_allocated())
