"""A real Lightning run with vramscope's Lightning callback: a small MLP, 3 epochs, a validation after
each. `leak`: from the second epoch on, training_step keeps every step's hidden features "for an
epoch-end plot" on the GPU and never clears them (the leaking line below: 2 MiB a step; a loss kept
with its graph would keep almost nothing, Lightning's backward frees what the graph saved);
`clean`: nothing kept. Run under `python -m vramscope record`.

    python -m vramscope record -o pl.vscap -- lightning_run.py leak|clean"""
import sys
import warnings

import torch

try:
    import lightning.pytorch as pl
    from vramscope.callbacks import LightningCallback as Callback
except ImportError:
    import pytorch_lightning as pl
    from vramscope.callbacks import PytorchLightningCallback as Callback

import vramscope

KEPT = []


class Net(pl.LightningModule):
    def __init__(self, leak):
        super().__init__()
        self.leak = leak
        self.net = torch.nn.Sequential(torch.nn.Linear(1024, 2048), torch.nn.ReLU(), torch.nn.Linear(2048, 10))

    def training_step(self, batch, i):
        x, y = batch
        hidden = self.net[1](self.net[0](x))
        loss = torch.nn.functional.cross_entropy(self.net[2](hidden), y)
        if self.leak and self.current_epoch >= 1:
            KEPT.append(hidden)                               # the leak: features kept on the GPU, never cleared
        return loss

    def validation_step(self, batch, i):
        x, y = batch
        return torch.nn.functional.cross_entropy(self.net(x), y)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)


def loader(n):
    g = torch.Generator().manual_seed(0)
    data = torch.utils.data.TensorDataset(torch.randn(n, 1024, generator=g), torch.randint(0, 10, (n,), generator=g))
    return torch.utils.data.DataLoader(data, batch_size=256)


def main(mode):
    callback = Callback(threshold=5)
    trainer = pl.Trainer(max_epochs=3, accelerator="gpu", devices=1, logger=False, enable_checkpointing=False,
                         enable_progress_bar=False, enable_model_summary=False, callbacks=[callback])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", vramscope.PeakGrowthWarning)
        trainer.fit(Net(mode == "leak"), loader(256 * 40), loader(256 * 8))
    grew = [w for w in caught if issubclass(w.category, vramscope.PeakGrowthWarning)]
    for phase, peaks in callback.peaks.peaks.items():
        print("pl %s %s peaks: %s" % (mode, phase, ", ".join("%d: %s" % (p.index, p.text()) for p in peaks)))
    print("pl %s warnings: %d" % (mode, len(grew)))
    for w in grew:
        print("pl %s WARNING: %s" % (mode, str(w.message).replace("\n", "\n    ")))


if __name__ == "__main__":
    main(sys.argv[1])
