"""EpochPeaks as a Lightning Callback: each training epoch's and each validation's peak, a
PeakGrowthWarning when a training epoch's grows past the threshold, the epochs marked in the
recording. The sanity check's validation is not counted.

LightningCallback subclasses lightning.pytorch's Callback (else pytorch_lightning's, when only that is
installed); PytorchLightningCallback always pytorch_lightning's: a Trainer takes only its own
package's callbacks, and both packages may be installed side by side."""
from ..epoch_peaks import EpochPeaks


def _make(base):
    class Callback(base):
        def __init__(self, threshold=5.0, *, record=None, cli_path=None, reset_peak=False):
            super().__init__()
            self.peaks = EpochPeaks(threshold, record=record, cli_path=cli_path, reset_peak=reset_peak)

        def on_train_epoch_start(self, trainer, pl_module):
            self.peaks.begin("epoch", trainer.current_epoch)

        def on_train_epoch_end(self, trainer, pl_module):
            self.peaks.end("epoch")

        def on_validation_epoch_start(self, trainer, pl_module):
            if not trainer.sanity_checking:
                self.peaks.begin("evaluation")

        def on_validation_epoch_end(self, trainer, pl_module):
            if not trainer.sanity_checking:
                self.peaks.end("evaluation")

        def on_fit_end(self, trainer, pl_module):
            self.peaks.close()
    return Callback


def __getattr__(name):
    # built on first use: only the framework asked for is imported
    if name == "LightningCallback":
        try:
            from lightning.pytorch import Callback
        except ImportError:
            from pytorch_lightning import Callback
    elif name == "PytorchLightningCallback":
        from pytorch_lightning import Callback
    else:
        raise AttributeError(name)
    cls = _make(Callback)
    cls.__name__ = cls.__qualname__ = name
    globals()[name] = cls
    return cls
