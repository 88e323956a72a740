"""A program may turn PyTorch's memory history on itself while it is recorded (a flag that dumps a
memory_viz snapshot: torch.cuda.memory._record_memory_history(), whose default is stacks="all").
From then on its events carry C++ frames, which only PyTorch's symbolization reads, and that imports
torch._inductor lazily (3.5-5 s) - on the recorder's writer thread, racing the program's own imports
(two threads importing the same modules cyclically get half-initialised modules). So while it
records, the recorder wraps torch.cuda.memory._record_memory_history: a call that turns on a history
with C++ frames first imports torch._inductor on the program's own thread, as the program's own
first _snapshot() would, and then does what it did. The wrapper stays harmless after the recording
(a program may have kept a reference to it): it only ever adds that import."""
import functools
import importlib


def import_inductor():
    """What PyTorch's symbolization of a stack would import lazily, imported on the calling thread
    (a torch without it symbolizes without it)."""
    try:
        importlib.import_module("torch._inductor")
    except Exception:
        pass


def needs_cpp_symbols(args, kwargs):
    """Whether _record_memory_history(*args, **kwargs) turns on a history whose stacks have C++ frames:
    stacks="all" (the default) with a context, or the older boolean form with record_context_cpp."""
    enabled = args[0] if args else kwargs.get("enabled", "all")
    if enabled is None or enabled is False:
        return False
    if enabled is True:  # (enabled, record_context, trace_alloc_max_entries, trace_alloc_record_context,
        #                  device, record_context_cpp)
        return bool(args[5] if len(args) > 5 else kwargs.get("record_context_cpp", False))
    context = args[1] if len(args) > 1 else kwargs.get("context", "all")
    stacks = args[2] if len(args) > 2 else kwargs.get("stacks", "all")
    return context is not None and stacks != "python"


class HistoryGuard:
    def __init__(self):
        self._restore = None

    def install(self, torch):
        memory = torch.cuda.memory
        original = memory._record_memory_history

        def guarded(*args, **kwargs):
            if needs_cpp_symbols(args, kwargs):
                import_inductor()
            return original(*args, **kwargs)
        functools.update_wrapper(guarded, original)
        memory._record_memory_history = guarded
        self._restore = (memory, original, guarded)
        return self

    def remove(self):
        if self._restore is None:
            return
        memory, original, guarded = self._restore
        if getattr(memory, "_record_memory_history", None) is guarded:  # not replaced by someone else since
            memory._record_memory_history = original
        self._restore = None
