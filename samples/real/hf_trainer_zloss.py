"""A Hugging Face transformers Trainer run of a small randomly initialised GPT-2 on random tokens.
--leaky: compute_loss also sums a monitored z-loss (logsumexp of the logits) into self.total without
.item()/.detach(): each step's term keeps its autograd graph, and with it that step's logits, alive
until the end of the run (a leak). (Summing the training loss itself would keep only CPU-side graph
nodes: backward() has already freed their saved tensors.)
    python hf_trainer_zloss.py TRUTH.json [--leaky] [--seed S] [--steps N] [--layers L] [--step-ms MS]"""
import argparse
import os
import time
import warnings

import torch
from torch.utils.data import Dataset
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainerCallback, TrainingArguments
from transformers.utils import logging as hf_logging

from truth import Truth

warnings.filterwarnings("ignore")
hf_logging.set_verbosity_error()


class RandomTokens(Dataset):
    def __init__(self, n, seq, vocab, seed):
        g = torch.Generator().manual_seed(seed)
        self.ids = torch.randint(0, vocab, (n, seq), generator=g)

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, i):
        return {"input_ids": self.ids[i], "labels": self.ids[i]}


class ZLossTrainer(Trainer):
    def __init__(self, *args, leaky=False, **kwargs):
        super().__init__(*args, **kwargs)
        self.leaky = leaky
        self.total = 0.0

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        loss, outputs = super().compute_loss(model, inputs, return_outputs=True,  # ALLOC-SITE (logits)
                                             num_items_in_batch=num_items_in_batch)
        if self.leaky:
            self.total = self.total + torch.logsumexp(outputs.logits, -1).mean()  # HOLD-SITE: no .item()
        return (loss, outputs) if return_outputs else loss


class StepTruth(TrainerCallback):
    def __init__(self, truth, step_ms):
        self.truth, self.step_ms = truth, step_ms

    def on_step_end(self, args, state, control, **kwargs):
        if self.step_ms:
            time.sleep(self.step_ms / 1000)  # stands in for data loading: a step of a real run's length
        self.truth.step(int(state.epoch or 0), state.global_step)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("truth")
    p.add_argument("--leaky", action="store_true")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--seq", type=int, default=128)
    p.add_argument("--vocab", type=int, default=2000)
    p.add_argument("--step-ms", type=float, default=40)
    a = p.parse_args()
    torch.manual_seed(a.seed)
    cfg = GPT2Config(vocab_size=a.vocab, n_positions=a.seq, n_embd=256, n_layer=a.layers, n_head=4)
    model = GPT2LMHeadModel(cfg)
    truth = Truth(a.truth, "leak" if a.leaky else "none", __file__)
    args = TrainingArguments(output_dir="/tmp/hf_trainer_out", per_device_train_batch_size=a.batch,
                             max_steps=a.steps, logging_steps=10_000, save_strategy="no", report_to=[],
                             disable_tqdm=True, dataloader_num_workers=0, seed=a.seed, learning_rate=3e-4)
    trainer = ZLossTrainer(model=model, args=args, leaky=a.leaky,
                           train_dataset=RandomTokens(a.steps * a.batch, a.seq, a.vocab, a.seed),
                           callbacks=[StepTruth(truth, a.step_ms)])
    trainer.train()
    truth.write()
    return trainer


if __name__ == "__main__":
    TRAINER = main()  # a script keeps its trainer to the end (and with it self.total)
