"""A PyTorch Lightning LightningModule trained on random data. Clean: training_step returns the loss.
--leaky: training_step also appends its logits (with their autograd graph) to self.outputs for an
epoch-end metric, and on_train_epoch_end clears the list: memory rises during each epoch and is
released at its end (an accumulation).
    python lightning_outputs.py TRUTH.json [--leaky] [--seed S] [--epochs E] [--steps N] [--width W] [--step-ms MS]"""
import argparse
import time
import warnings

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

import lightning as L

from truth import Truth

warnings.filterwarnings("ignore")


class Classifier(L.LightningModule):
    def __init__(self, width, classes, leaky, step_ms):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(256, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU(),
                                 nn.Linear(width, classes))
        self.leaky = leaky
        self.step_ms = step_ms
        self.outputs = []

    def training_step(self, batch, batch_idx):
        x, y = batch
        logits = self.net(x)  # ALLOC-SITE (the leaky run keeps these logits and their graph)
        loss = nn.functional.cross_entropy(logits, y)
        if self.leaky:
            self.outputs.append(logits)  # HOLD-SITE: kept with its graph until the epoch ends
        if self.step_ms:
            time.sleep(self.step_ms / 1000)  # stands in for data loading: a step of a real run's length
        return loss

    def on_train_epoch_end(self):
        if self.outputs:
            acc = torch.cat(self.outputs).argmax(1).float().mean()
            self.log("pred_mean", acc)
            self.outputs.clear()

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-3)


class StepTruth(L.Callback):
    def __init__(self, truth):
        self.truth = truth

    def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
        self.truth.step(trainer.current_epoch, batch_idx)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("truth")
    p.add_argument("--leaky", action="store_true")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--steps", type=int, default=150)
    p.add_argument("--width", type=int, default=2048)
    p.add_argument("--batch", type=int, default=128)
    p.add_argument("--step-ms", type=float, default=40)
    a = p.parse_args()
    L.seed_everything(a.seed)
    classes = 1000
    n = a.steps * a.batch
    data = TensorDataset(torch.randn(n, 256), torch.randint(0, classes, (n,)))
    loader = DataLoader(data, batch_size=a.batch, shuffle=True, num_workers=0)
    truth = Truth(a.truth, "accumulation" if a.leaky else "none", __file__)
    model = Classifier(a.width, classes, a.leaky, a.step_ms)
    trainer = L.Trainer(max_epochs=a.epochs, accelerator="gpu", devices=1, logger=False,
                        enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False,
                        callbacks=[StepTruth(truth)])
    trainer.fit(model, loader)
    truth.write()


if __name__ == "__main__":
    main()
