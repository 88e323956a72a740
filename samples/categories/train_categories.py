"""A real training program for the categories and the both-levels recording (issue 17): torchvision's
ResNet-18 (random weights: the GPU machine has no internet) trained with Adam on random images,
mixed precision off, cuDNN and cuBLAS on (they allocate outside PyTorch). After the optimizer step of
step --truth-step the program stops, synchronises and writes what it computes itself about its own
memory: the bytes of its parameters, of their .grad, of the optimizer's state tensors, of the batch,
memory_allocated/reserved, and the driver's used memory (cuMemGetInfo, NVML for this process); then
it marks the moment (vramscope.mark("truth", step)) and waits 0.5 s so that the recorder samples the
driver at that state.
    python train_categories.py TRUTH.json [--steps N] [--truth-step K] [--batch B] [--optim adam|sgd]"""
import argparse
import ctypes
import json
import os
import time

import torch
import torchvision


def rounded(nbytes):
    """The caching allocator's block size for a request (c10 round_size: 512-byte multiples)."""
    return max(512, (nbytes + 511) // 512 * 512)


def storages(tensors):
    seen = {}
    for t in tensors:
        if t is not None and t.is_cuda:
            s = t.untyped_storage()
            seen[s.data_ptr()] = s.nbytes()
    return seen


def nvml_process_used():
    try:
        lib = ctypes.CDLL("libnvidia-ml.so.1")
        lib.nvmlInit_v2()

        class P(ctypes.Structure):
            _fields_ = [("pid", ctypes.c_uint), ("used", ctypes.c_ulonglong), ("g", ctypes.c_uint), ("c", ctypes.c_uint)]
        h = ctypes.c_void_p()
        uuid = str(torch.cuda.get_device_properties(0).uuid)
        uuid = uuid if uuid.startswith("GPU-") else "GPU-" + uuid
        lib.nvmlDeviceGetHandleByUUID(uuid.encode(), ctypes.byref(h))
        n = ctypes.c_uint(64)
        procs = (P * 64)()
        lib.nvmlDeviceGetComputeRunningProcesses_v3(h, ctypes.byref(n), procs)
        return next((procs[i].used for i in range(n.value) if procs[i].pid == os.getpid()), 0)
    except Exception as e:
        return "unavailable: %s" % e


def category_truth(model, opt, batch):
    params = storages(model.parameters())
    grads = storages(p.grad for p in model.parameters())
    state = storages(v for st in opt.state.values() for v in st.values() if isinstance(v, torch.Tensor))
    inputs = storages(batch)
    out = {}
    for name, d in (("parameter", params), ("gradient", grads), ("optimizer_state", state), ("input", inputs)):
        out[name] = {"tensors": len(d), "bytes": sum(d.values()), "block_bytes": sum(rounded(b) for b in d.values()),
                     "addresses": sorted(d)}
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("truth")
    p.add_argument("--steps", type=int, default=12)
    p.add_argument("--truth-step", type=int, default=8)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--optim", default="adam")
    p.add_argument("--step-ms", type=float, default=0)
    a = p.parse_args()
    torch.manual_seed(0)
    dev = torch.device("cuda")
    model = torchvision.models.resnet18(num_classes=100).to(dev)
    opt = (torch.optim.Adam(model.parameters(), lr=1e-3) if a.optim == "adam"
           else torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9))
    loss_fn = torch.nn.CrossEntropyLoss()
    try:
        import vramscope
    except ImportError:
        vramscope = None
    truth = {"program": os.path.basename(__file__), "argv": vars(a), "torch": torch.__version__, "steps": []}
    times = []
    for step in range(a.steps):
        t0 = time.perf_counter()
        x = torch.randn(a.batch, 3, 224, 224).to(dev)
        y = torch.randint(0, 100, (a.batch,)).to(dev)
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
        if vramscope:
            vramscope.mark("step", step)
        if step == a.truth_step:
            free, total = torch.cuda.mem_get_info()
            truth["at_step"] = {"step": step, "time_us": time.time_ns() // 1000,
                                "categories": category_truth(model, opt, [x, y]),
                                "memory_allocated": torch.cuda.memory_allocated(),
                                "memory_reserved": torch.cuda.memory_reserved(),
                                "device_used": total - free, "process_used_nvml": nvml_process_used()}
            if vramscope:
                vramscope.mark("truth", step)
            time.sleep(0.5)
        del x, y, loss
        if a.step_ms:
            time.sleep(a.step_ms / 1000)
    truth["step_ms_median"] = sorted(times[2:])[len(times[2:]) // 2] * 1000 if len(times) > 2 else None
    json.dump(truth, open(a.truth, "w"), indent=1)
    print("median step %.2f ms" % truth["step_ms_median"])


if __name__ == "__main__":
    main()
