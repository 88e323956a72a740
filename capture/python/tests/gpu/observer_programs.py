"""Small programs whose memory figures the recorder must not change (issue 30, item 1). Each prints,
at its end, one line `VRAMSCOPE_MEM {json}` with max_memory_allocated, max_memory_reserved,
memory_allocated and memory_reserved of device 0.
    python observer_programs.py MODE [--history]
MODE: eager, compile_default, compile_reduce_overhead, cuda_graph, amp, ddp, hf_trainer.
--history: under PyTorch's own torch.cuda.memory._record_memory_history (stacks="python").
Environment, for the overhead runs (overhead_whole.py): OBSERVER_SCALE=K runs K times the steps;
OBSERVER_TIME=1 times each step (synchronized) and prints `VRAMSCOPE_STEPS {json}` with the median;
OBSERVER_MOMENTS=1 prints, from an exit handler, `VRAMSCOPE_MOMENTS {json}`: the wall-clock times
(time.time()) when torch was imported, the program began and ended, and the exit handlers ran."""
import json
import os
import statistics
import sys
import tempfile
import time

import torch
from torch import nn

LOADED = time.time()  # after import torch: fixed_costs.py splits a run's wall time at these moments
DEV = "cuda"
SCALE = int(os.environ.get("OBSERVER_SCALE", "1"))
TIMED = os.environ.get("OBSERVER_TIME") == "1"
STEP_S = []


def timed(items):
    """Yields the items; with OBSERVER_TIME=1 records each loop body's time, the GPU's work included."""
    for item in items:
        if not TIMED:
            yield item
            continue
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        yield item
        torch.cuda.synchronize()
        STEP_S.append(time.perf_counter() - t0)


def emit():
    torch.cuda.synchronize()
    figures = {"max_allocated": torch.cuda.max_memory_allocated(), "max_reserved": torch.cuda.max_memory_reserved(),
               "allocated": torch.cuda.memory_allocated(), "reserved": torch.cuda.memory_reserved()}
    print("VRAMSCOPE_MEM " + json.dumps(figures, sort_keys=True), flush=True)
    if TIMED and STEP_S:
        print("VRAMSCOPE_STEPS " + json.dumps({"n": len(STEP_S), "median_s": statistics.median(STEP_S)}), flush=True)


def mlp():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(512, 2048), nn.GELU(), nn.Linear(2048, 2048), nn.GELU(),
                         nn.Linear(2048, 512)).to(DEV)


def batches(n, size=64):
    n *= SCALE
    g = torch.Generator(device="cpu").manual_seed(1)
    return [(torch.randn(size, 512, generator=g).to(DEV), torch.randn(size, 512, generator=g).to(DEV)) for _ in range(n)]


def train(model, data, step_begin=None):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for x, y in timed(data):
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
        for x, y in timed(data):
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
    for x, y in timed(data[1:]):
        static_x.copy_(x)
        static_y.copy_(y)
        g.replay()
    torch.cuda.synchronize()


def amp():
    model = mlp()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cuda")
    for x, y in timed(batches(20)):
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
    args = TrainingArguments(output_dir=out, max_steps=20 * SCALE, per_device_train_batch_size=8, report_to=[],
                             save_strategy="no", logging_strategy="no", disable_tqdm=True,
                             dataloader_num_workers=0, seed=0)
    trainer = Trainer(model=model, args=args, train_dataset=Random(), callbacks=[step_timer_class()()] if TIMED else None)
    trainer.train()


def step_timer_class():
    from transformers import TrainerCallback

    class StepTimer(TrainerCallback):
        def on_step_begin(self, *args, **kwargs):
            torch.cuda.synchronize()
            self.t0 = time.perf_counter()

        def on_step_end(self, *args, **kwargs):
            torch.cuda.synchronize()
            STEP_S.append(time.perf_counter() - self.t0)
    return StepTimer


def generation():
    """A generation loop: a small GPT-2 decoding greedily with its KV cache, a step per token."""
    from transformers import GPT2Config, GPT2LMHeadModel
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(n_layer=4, n_embd=256, n_head=4, vocab_size=1000, n_positions=256)).to(DEV).eval()
    g = torch.Generator(device="cpu").manual_seed(3)
    with torch.no_grad():
        for _ in range(4 * SCALE):
            ids = torch.randint(0, 1000, (8, 16), generator=g).to(DEV)
            out = model(ids, use_cache=True)
            past = out.past_key_values
            for _ in timed(range(96)):
                nxt = out.logits[:, -1:].argmax(-1)
                ids = torch.cat([ids, nxt], dim=1)
                out = model(nxt, past_key_values=past, use_cache=True)
                past = out.past_key_values


MODES = {f.__name__: f for f in (eager, compile_default, compile_reduce_overhead, cuda_graph, amp, ddp, hf_trainer,
                                 generation)}


def main():
    mode = sys.argv[1]
    begun = time.time()
    if "--history" in sys.argv:
        torch.cuda.memory._record_memory_history(enabled="all", context="all", stacks="python", max_entries=100000)
    MODES[mode]()
    emit()
    if os.environ.get("OBSERVER_MOMENTS") == "1":  # when the program began and ended, and its exit handlers ran
        ended = time.time()
        import atexit
        atexit.register(lambda: print("VRAMSCOPE_MOMENTS " + json.dumps(
            {"loaded": LOADED, "begun": begun, "ended": ended, "atexit": time.time()}), flush=True))


if __name__ == "__main__":
    main()
