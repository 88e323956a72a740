"""A PyTorch Lightning run with a callback that collects predictions for a confusion matrix:
training_step returns {"loss", "logits"} and the callback's on_train_batch_end appends
outputs["logits"] to its list on every batch, on the GPU, and never clears it. The callback is a
module global (COLLECTOR): the logits outlive fit(). --clean keeps the predicted classes on the CPU.
    python lightning_callback_collect.py TRUTH.json [--clean] [--epochs E] [--steps N] [--step-ms MS]"""
import time
import warnings

import lightning as L
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from corpus_common import parser, truth

warnings.filterwarnings("ignore")


class Classifier(L.LightningModule):
    def __init__(self, step_ms):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(256, 1024), nn.ReLU(), nn.Linear(1024, 4096))
        self.step_ms = step_ms

    def training_step(self, batch, batch_idx):
        x, y = batch
        logits = self.net(x)  # ALLOC-SITE: [128, 4096] logits, 2 MiB a batch
        if self.step_ms:
            time.sleep(self.step_ms / 1000)  # stands in for data loading
        return {"loss": F.cross_entropy(logits, y), "logits": logits}

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-3)


class PredictionCollector(L.Callback):
    def __init__(self, clean, truth):
        self.clean, self.truth, self.preds = clean, truth, []

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        if self.clean:
            self.preds.append(outputs["logits"].argmax(-1).cpu())
        else:
            self.preds.append(outputs["logits"])  # HOLD-SITE: every batch's logits, never cleared
        self.truth.step(trainer.current_epoch, batch_idx)


COLLECTOR = None


def main():
    global COLLECTOR
    p = parser(__doc__, steps=50, step_ms=22)
    p.add_argument("--epochs", type=int, default=2)
    a = p.parse_args()
    t = truth(a, __file__, leak=dict(holder="list COLLECTOR.preds (a Lightning callback)", unit="per step",
                                     released="never", shape="lightning-callback"),
              clean=dict(holder="list COLLECTOR.preds (class ids on the CPU)", unit="per step", released="never",
                         shape="lightning-flat"))
    L.seed_everything(a.seed, verbose=False)
    n = a.steps * 128
    data = TensorDataset(torch.randn(n, 256), torch.randint(0, 4096, (n,)))
    loader = DataLoader(data, batch_size=128, shuffle=True, num_workers=0)
    COLLECTOR = PredictionCollector(a.clean, t)
    trainer = L.Trainer(max_epochs=a.epochs, accelerator="gpu", devices=1, logger=False, enable_checkpointing=False,
                        enable_progress_bar=False, enable_model_summary=False, callbacks=[COLLECTOR])
    trainer.fit(Classifier(a.step_ms), loader)
    t.write()


if __name__ == "__main__":
    main()
