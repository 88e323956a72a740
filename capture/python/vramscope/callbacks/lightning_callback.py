"""EpochPeaks as a Lightning Callback (lightning.pytorch, else pytorch_lightning): each training
epoch's and each validation's peak, a PeakGrowthWarning when a training epoch's grows past the
threshold, the epochs marked in the recording. The sanity check's validation is not counted."""
try:
    from lightning.pytorch import Callback
except ImportError:
    from pytorch_lightning import Callback

from ..epoch_peaks import EpochPeaks


class LightningCallback(Callback):
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
