"""What a training loop is doing, seen from PyTorch's own global hooks: the forward pass (top-level
module calls), the backward pass (torch.autograd.backward) and the optimizer step (the optimizer
step hooks), written as annotations; and what the recorder can name for sure at those moments — the
optimizer's parameters, their gradients and its state tensors after each step, and the tensors fed
to a model — written as Tags. The viewer decides every block's category from both
(docs/categories.md). Hooks only queue; the recorder's writer thread encodes."""
import collections
import threading
import time

from . import vscap

FORWARD, BACKWARD, OPTIMIZER = "forward", "backward", "optimizer.step"


def now_us():
    return time.time_ns() // 1000


class PhaseTracker:
    # Tagging walks every parameter after each step: a few µs per tensor. It may take at most this
    # share of the run; steps beyond it are tagged less often (the viewer carries categories from a
    # tagged allocation to the later ones of the same call site).
    MAX_TAG_SHARE = 0.01

    def __init__(self, torch, device_of):
        self.torch = torch
        self.device_of = device_of
        self.annotations = collections.deque()  # (device, µs, stage, name)
        self.tags = collections.deque()         # (device, µs, [(address, category)])
        self._local = threading.local()
        self._handles = []
        self._original_backward = None
        self._tag_seconds = 0.0
        # Outermost modules get a hook of their own that also sees keyword arguments (global hooks
        # get positional ones only; Hugging Face models take model(**batch)): from their next call on.
        import weakref
        self._with_kwargs = weakref.WeakSet()
        self._instance_handles = []
        self._started = time.perf_counter()
        self._fresh_iteration = True

    # ---- install / remove
    def install(self):
        try:
            return self._install()
        except Exception:
            self.remove()
            raise

    def _install(self):
        import importlib
        t = self.torch
        modules = importlib.import_module("torch.nn.modules.module")
        self._handles.append(modules.register_module_forward_pre_hook(self._forward_pre))
        try:
            self._handles.append(modules.register_module_forward_hook(self._forward_post, always_call=True))
        except TypeError:  # torch < 2.1: no always_call (an exception in forward leaves the phase open)
            self._handles.append(modules.register_module_forward_hook(self._forward_post))
        optim = importlib.import_module("torch.optim.optimizer")
        self._handles.append(optim.register_optimizer_step_pre_hook(self._step_pre))
        self._handles.append(optim.register_optimizer_step_post_hook(self._step_post))
        # Tensor.backward calls torch.autograd.backward through the module attribute: one wrapper
        # sees both (Lightning, Accelerate and AMP's scaler all end there)
        self._original_backward = t.autograd.backward
        original = self._original_backward

        def backward(*args, **kwargs):
            self._annotate(0, BACKWARD)
            try:
                return original(*args, **kwargs)
            finally:
                self._annotate(1, BACKWARD)
                self._fresh_iteration = True
        t.autograd.backward = backward
        return self

    def remove(self):
        for h in self._handles + self._instance_handles:
            h.remove()
        self._handles = []
        self._instance_handles = []
        if self._original_backward is not None:
            self.torch.autograd.backward = self._original_backward
            self._original_backward = None

    # ---- hooks
    def _depth(self):
        return getattr(self._local, "depth", 0)

    def _forward_pre(self, module, args):
        depth = self._depth()
        self._local.depth = depth + 1
        if depth == 0:
            self._annotate(0, FORWARD)
            if module not in self._with_kwargs:
                self._inputs(args)
                self._hook_kwargs(module)

    def _inputs(self, values):
        # The tensors handed to the outermost call are the input data, if no autograd op made
        # them (a loss module's logits have a grad_fn; its labels do not). Without grad mode
        # only the first call of an iteration counts (eval: model(x), then a metric(out, y)).
        if self.torch.is_grad_enabled() or self._fresh_iteration:
            self._tag_inputs(values)
        self._fresh_iteration = False

    def _hook_kwargs(self, module):
        try:
            handle = module.register_forward_pre_hook(self._instance_pre, with_kwargs=True)
        except (TypeError, AttributeError):  # torch < 2.0
            return
        self._with_kwargs.add(module)
        self._instance_handles.append(handle)

    def _instance_pre(self, module, args, kwargs):
        if self._depth() == 1:  # called outermost (the global pre-hook ran first and counted it)
            self._inputs((args, kwargs))
        return None

    def _forward_post(self, module, args, output):
        depth = max(self._depth() - 1, 0)
        self._local.depth = depth
        if depth == 0:
            self._annotate(1, FORWARD)

    def _step_pre(self, optimizer, args, kwargs):
        self._annotate(0, OPTIMIZER)

    def _step_post(self, optimizer, args, kwargs):
        self._annotate(1, OPTIMIZER)
        self._fresh_iteration = True
        elapsed = time.perf_counter() - self._started
        if self._tag_seconds > self.MAX_TAG_SHARE * elapsed:
            return
        t0 = time.perf_counter()
        try:
            self._tag_optimizer(optimizer)
        finally:
            self._tag_seconds += time.perf_counter() - t0

    # ---- what is queued
    def _annotate(self, stage, name):
        try:
            device = self.device_of()
        except Exception:
            device = 0
        self.annotations.append((device, now_us(), stage, name))

    def _tag_inputs(self, args):
        found = []
        for a in _tensors(args):
            if a.is_cuda and a.grad_fn is None and not a.requires_grad:
                found.append((a, vscap.TAG_INPUT))
        self._queue(found)

    def _tag_optimizer(self, optimizer):
        found = []
        for group in optimizer.param_groups:
            for p in group["params"]:
                if not p.is_cuda:
                    continue
                found.append((p, vscap.TAG_PARAMETER))
                if p.grad is not None:
                    found.append((p.grad, vscap.TAG_GRADIENT))
                for v in optimizer.state.get(p, {}).values():
                    if isinstance(v, self.torch.Tensor) and v.is_cuda:
                        found.append((v, vscap.TAG_OPTIMIZER_STATE))
        self._queue(found)

    def _queue(self, found):
        if not found:
            return
        t = now_us()
        by_device = {}
        for tensor, category in found:
            try:
                address = tensor.untyped_storage().data_ptr()
            except Exception:  # a tensor subclass without storage (DTensor, FakeTensor...)
                continue
            if address:
                by_device.setdefault(tensor.device.index or 0, {})[address] = category
        for device, tags in by_device.items():
            self.tags.append((device, t, sorted(tags.items())))

    def drain(self, interner):
        """The queued annotations and tags as records; strings through the recorder's interner."""
        out = bytearray()
        records = bytearray()
        while self.annotations:
            device, t, stage, name = self.annotations.popleft()
            records += vscap.annotation_record(device, t, stage, interner.string(name))
        while self.tags:
            device, t, tags = self.tags.popleft()
            records += vscap.tags_record(device, t, tags)
        out += interner.take_records()
        return bytes(out + records)


def _tensors(value, depth=0):
    """Tensors in a call's arguments: the values themselves, and one level into lists, tuples and
    dicts (a batch dict of input_ids, attention_mask, labels), down to three levels."""
    import torch
    if isinstance(value, torch.Tensor):
        yield value
    elif depth < 3 and isinstance(value, (list, tuple)):
        for v in value:
            yield from _tensors(v, depth + 1)
    elif depth < 3 and isinstance(value, dict):
        for v in value.values():
            yield from _tensors(v, depth + 1)
