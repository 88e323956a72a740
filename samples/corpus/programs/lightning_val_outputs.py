"""A PyTorch Lightning run whose LightningModule collects its validation outputs the way the Lightning
2 docs show (validation_step appends to self.validation_step_outputs, on_validation_epoch_end
concatenates and clears them): every validation batch's logits stay on the GPU until the validation
epoch ends, so memory climbs through each validation (after every training epoch) to several times a
training step's and falls at its end. Validation is short (about 1/30 of the run) and has no step of
its own. An accumulation, released at evaluation end. --clean appends logits.cpu().
    python lightning_val_outputs.py TRUTH.json [--clean] [--epochs E] [--steps N] [--val-batches V] [--step-ms MS]"""
import time
import warnings

import lightning as L
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from corpus_common import parser, phase_step, truth

warnings.filterwarnings("ignore")


class Classifier(L.LightningModule):
    def __init__(self, a, truth):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(256, 2048), nn.ReLU(), nn.Linear(2048, 2048))
        self.a, self.truth = a, truth
        self.validation_step_outputs = []
        self.val_acc = []

    def training_step(self, batch, batch_idx):
        x, y = batch
        if self.a.step_ms:
            time.sleep(self.a.step_ms / 1000)  # stands in for data loading
        return F.cross_entropy(self.net(x), y)

    def on_train_batch_end(self, outputs, batch, batch_idx):
        self.truth.step(self.current_epoch, batch_idx)

    def validation_step(self, batch, batch_idx):
        x, y = batch
        logits = self.net(x)  # ALLOC-SITE: [1024, 2048] validation logits (8 MiB) per batch
        if self.a.clean:
            self.validation_step_outputs.append((logits.cpu(), y.cpu()))
        else:
            self.validation_step_outputs.append((logits, y))  # HOLD-SITE: until the validation epoch ends
        if self.a.step_ms:
            time.sleep(self.a.step_ms / 4000)
        phase_step(self.truth, self.current_epoch, batch_idx, "eval")

    def on_validation_epoch_end(self):
        logits = torch.cat([o[0] for o in self.validation_step_outputs])
        y = torch.cat([o[1] for o in self.validation_step_outputs])
        self.val_acc.append((logits.argmax(-1) == y).float().mean().item())
        self.validation_step_outputs.clear()

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-3)


def main():
    p = parser(__doc__, steps=30, step_ms=22)
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--val-batches", type=int, default=24)
    a = p.parse_args()
    t = truth(a, __file__, leak=dict(kind="accumulation", holder="list MODEL.validation_step_outputs (GPU logits)",
                                     unit="per evaluation batch", released="at evaluation end",
                                     shape="lightning-validation-accumulation"),
              clean=dict(holder="list MODEL.validation_step_outputs (CPU logits)", unit="per evaluation batch",
                         released="at evaluation end", shape="lightning-validation-flat"))
    L.seed_everything(a.seed, verbose=False)
    train = TensorDataset(torch.randn(a.steps * 128, 256), torch.randint(0, 2048, (a.steps * 128,)))
    val = TensorDataset(torch.randn(a.val_batches * 1024, 256), torch.randint(0, 2048, (a.val_batches * 1024,)))
    model = Classifier(a, t)
    trainer = L.Trainer(max_epochs=a.epochs, accelerator="gpu", devices=1, logger=False, enable_checkpointing=False,
                        enable_progress_bar=False, enable_model_summary=False, num_sanity_val_steps=0)
    trainer.fit(model, DataLoader(train, batch_size=128, shuffle=True), DataLoader(val, batch_size=1024))
    t.d["val_acc"] = model.val_acc
    t.write()


if __name__ == "__main__":
    main()
