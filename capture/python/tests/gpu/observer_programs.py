"""Small programs whose memory figures the recorder must not change (issue 30, item 1). Each prints,
at its end, one line `VRAMSCOPE_MEM {json}` with max_memory_allocated, max_memory_reserved,
memory_allocated and memory_reserved of device 0.
    python observer_programs.py MODE [--history]
MODE: eager, compile_default, compile_reduce_overhead, cuda_graph, amp, ddp, hf_trainer.
--history: under PyTorch's own torch.cuda.memory._record_memory_history (stacks="python")."""
import json
import os
import sys
import tempfile

import torch
from torch import nn

DEV = "cuda"


def emit():
    torch.cuda.synchronize()
    figures = {"max_allocated": torch.cuda.max_memory_allocated(), "max_reserved": torch.cuda.max_memory_reserved(),
               "allocated": torch.cuda.memory_allocated(), "reserved": torch.cuda.memory_reserved()}
    print("VRAMSCOPE_MEM " + json.dumps(figures, sort_keys=True), flush=True)


def mlp():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(512, 2048), nn.GELU(), nn.Linear(2048, 2048), nn.GELU(),
                         nn.Linear(2048, 512)).to(DEV)


def batches(n, size=64):
    g = torch.Generator(device="cpu").manual_seed(1)
    return [(torch.randn(size, 512, generator=g).to(DEV), torch.randn(size, 512, generator=g).to(DEV)) for _ in range(n)]


def train(model, data, step_begin=None):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for x, y in data:
        if step_begin:
            step_begin()
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    return opt


def evaluate(model, data, step_begin=None):
    out = 0.0
    with torch.no_grad():
        for x, y in data:
            if step_begin:
                step_begin()
            out += float(nn.functional.mse_loss(model(x), y))
    return out


def eager():
    model = mlp()
    train(model, batches(20))
    evaluate(model.eval(), batches(5))


def compile_default():
    model = mlp()
    compiled = torch.compile(model)
    train(compiled, batches(20))
    evaluate(compiled.eval(), batches(5))


def compile_reduce_overhead():
    model = mlp()
    compiled = torch.compile(model, mode="reduce-overhead")
    mark = torch.compiler.cudagraph_mark_step_begin
    train(compiled, batches(20), mark)
    evaluate(compiled.eval(), batches(5), mark)


def cuda_graph():
    """A whole training step captured by hand (PyTorch's "whole network capture" recipe)."""
    model = mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    data = batches(21)
    static_x, static_y = data[0][0].clone(), data[0][1].clone()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            opt.zero_grad(set_to_none=True)
            nn.functional.mse_loss(model(static_x), static_y).backward()
            opt.step()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    opt.zero_grad(set_to_none=True)
    with torch.cuda.graph(g):
        static_loss = nn.functional.mse_loss(model(static_x), static_y)
        static_loss.backward()
        opt.step()
    for x, y in data[1:]:
        static_x.copy_(x)
        static_y.copy_(y)
        g.replay()
    torch.cuda.synchronize()


def amp():
    model = mlp()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cuda")
    for x, y in batches(20):
        with torch.autocast("cuda", dtype=torch.float16):
            loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()


def ddp():
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel
    d = tempfile.mkdtemp()
    dist.init_process_group("gloo", init_method="file://" + os.path.join(d, "init"), rank=0, world_size=1)
    try:
        model = DistributedDataParallel(mlp(), device_ids=[0])
        train(model, batches(10))
    finally:
        dist.destroy_process_group()


def hf_trainer():
    import transformers
    from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments
    transformers.logging.set_verbosity_error()
    torch.manual_seed(0)
    config = GPT2Config(n_layer=2, n_embd=128, n_head=2, vocab_size=1000, n_positions=64)
    model = GPT2LMHeadModel(config)

    class Random(torch.utils.data.Dataset):
        def __init__(self):
            g = torch.Generator().manual_seed(2)
            self.ids = torch.randint(0, 1000, (160, 64), generator=g)

        def __len__(self):
            return len(self.ids)

        def __getitem__(self, i):
            return {"input_ids": self.ids[i], "labels": self.ids[i]}

    out = tempfile.mkdtemp()
    args = TrainingArguments(output_dir=out, max_steps=20, per_device_train_batch_size=8, report_to=[],
                             save_strategy="no", logging_strategy="no", disable_tqdm=True,
                             dataloader_num_workers=0, seed=0)
    Trainer(model=model, args=args, train_dataset=Random()).train()


MODES = {f.__name__: f for f in (eager, compile_default, compile_reduce_overhead, cuda_graph, amp, ddp, hf_trainer)}


def main():
    mode = sys.argv[1]
    if "--history" in sys.argv:
        torch.cuda.memory._record_memory_history(enabled="all", context="all", stacks="python", max_entries=100000)
    MODES[mode]()
    emit()


if __name__ == "__main__":
    main()
