"""EpochPeaks for the training loops people use, each imported only when asked for (its framework
is imported with it):

    from vramscope.callbacks import TransformersCallback   # transformers.Trainer(callbacks=[...])
    from vramscope.callbacks import LightningCallback      # lightning.Trainer(callbacks=[...])
    from vramscope.callbacks import PytorchLightningCallback  # pytorch_lightning.Trainer, beside lightning
"""
_WHERE = {"TransformersCallback": ".transformers_callback", "LightningCallback": ".lightning_callback",
          "PytorchLightningCallback": ".lightning_callback"}


def __getattr__(name):
    if name not in _WHERE:
        raise AttributeError(name)
    import importlib
    return getattr(importlib.import_module(_WHERE[name], __name__), name)


__all__ = list(_WHERE)
