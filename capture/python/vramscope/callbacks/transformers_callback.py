"""EpochPeaks as a transformers TrainerCallback: each epoch's and each evaluation's peak, a
PeakGrowthWarning when an epoch's grows past the threshold, the epochs marked in the recording.
The peaks are in callback.peaks.peaks (the Trainer's own state is left as it is)."""
from transformers import TrainerCallback

from ..epoch_peaks import EpochPeaks


class TransformersCallback(TrainerCallback):
    def __init__(self, threshold=5.0, *, record=None, cli_path=None, reset_peak=False):
        self.peaks = EpochPeaks(threshold, record=record, cli_path=cli_path, reset_peak=reset_peak)
        self._epoch = 0
        self._evaluating = False

    def on_epoch_begin(self, args, state, control, **kwargs):
        self.peaks.begin("epoch", self._epoch)

    def on_epoch_end(self, args, state, control, **kwargs):
        self.peaks.end("epoch")
        self._epoch += 1

    def on_prediction_step(self, args, state, control, **kwargs):
        # the Trainer has no "evaluation begins": its first prediction step is where it begins
        if not self._evaluating:
            self._evaluating = True
            self.peaks.begin("evaluation")

    def on_evaluate(self, args, state, control, **kwargs):
        if self._evaluating:
            self._evaluating = False
            self.peaks.end("evaluation")

    def on_train_end(self, args, state, control, **kwargs):
        self.peaks.close()
