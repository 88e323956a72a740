"""A real transformers Trainer run with vramscope's TransformersCallback: a small GPT-2 built from its
config (nothing downloaded), 3 epochs with an evaluation after each. `leak`: from the second epoch on,
compute_loss keeps every step's logits with their graph (the leaking line below); `clean`: nothing
kept. Run under `python -m vramscope record` so the warning can name the line.

    python -m vramscope record -o hf.vscap -- hf_trainer_run.py leak|clean OUTDIR"""
import sys
import tempfile
import warnings

import torch
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments

import vramscope
from vramscope.callbacks import TransformersCallback

KEPT = []


class Tokens(torch.utils.data.Dataset):
    def __init__(self, n, seq=128, vocab=2048):
        g = torch.Generator().manual_seed(0)
        self.ids = torch.randint(0, vocab, (n, seq), generator=g)

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, i):
        return {"input_ids": self.ids[i], "labels": self.ids[i]}


class KeepingTrainer(Trainer):
    leak = False

    def compute_loss(self, model, inputs, return_outputs=False, **kwargs):
        outputs = model(**inputs)
        if self.leak and self.state.epoch >= 1:
            KEPT.append(outputs.logits)                       # the leak: logits kept with their graph
        return (outputs.loss, outputs) if return_outputs else outputs.loss


def main(mode, outdir):
    config = GPT2Config(n_layer=4, n_head=4, n_embd=256, vocab_size=2048, n_positions=128)
    model = GPT2LMHeadModel(config)
    args = TrainingArguments(output_dir=outdir, num_train_epochs=3, per_device_train_batch_size=16,
                             per_device_eval_batch_size=16, eval_strategy="epoch", save_strategy="no",
                             logging_strategy="no", report_to=[], disable_tqdm=True, dataloader_num_workers=0)
    callback = TransformersCallback(threshold=5)
    trainer = KeepingTrainer(model=model, args=args, train_dataset=Tokens(320), eval_dataset=Tokens(64),
                             callbacks=[callback])
    trainer.leak = mode == "leak"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", vramscope.PeakGrowthWarning)
        trainer.train()
    grew = [w for w in caught if issubclass(w.category, vramscope.PeakGrowthWarning)]
    for phase, peaks in callback.peaks.peaks.items():
        print("hf %s %s peaks: %s" % (mode, phase, ", ".join("%d: %s" % (p.index, p.text()) for p in peaks)))
    print("hf %s warnings: %d" % (mode, len(grew)))
    for w in grew:
        print("hf %s WARNING: %s" % (mode, str(w.message).replace("\n", "\n    ")))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp())
