"""What a training loop is doing: the forward pass (a call of an outermost module), the backward pass
(torch.autograd.backward) and the optimizer step (the optimizer step hooks), written as
annotations; and what the recorder can name for sure at those moments — the optimizer's parameters,
their gradients and its state tensors after each step, and the tensors fed to a model — written as
Tags. The viewer decides every block's category from both (docs/categories.md). Hooks only queue;
the recorder's writer thread encodes.

No global module hooks. PyTorch's register_module_forward_pre_hook/register_module_forward_hook
make torch.compile warn at every compiled call and run the hooks an extra time for the
OptimizedModule, and code that dynamo traces through them is split where they run (a program under
mode="reduce-overhead" went from 108 MB to 149 MB peak allocated). Instead the outermost modules
are found as they are built, through PyTorch's registration hooks, which run when a module is
given a child, a parameter or a buffer (`parent.child = module`, add_module, register_parameter,
register_buffer) and which torch.compile does not look at: a module that has a child, a parameter
or a buffer and is nobody's child is a root and gets a forward pre-hook (with keyword arguments)
and an always-called forward hook of its own; when it becomes someone's child (a bigger model,
DistributedDataParallel(model), torch.compile(model)'s OptimizedModule), its hooks move to the new
parent. So a compiled model is annotated from its OptimizedModule's hooks, which run outside the
compiled code, and nothing of ours is inside what dynamo traces. Every hook first asks
torch.compiler.is_compiling() and does nothing while dynamo traces (a module called inside a
torch.compile'd function, model.compile()): it is traced as an empty function, no graph break, no
guard on the recorder's state. Modules built before the recorder started (vramscope.start() in a
running program) are found once at start from the heap.

Hooks never raise into the program: a failure is counted and reported once per place as a
recorder warning in the capture (`problems`). The hook functions are module-level functions that
do nothing when no recording is active, so that copy.deepcopy(model) (EMA, AveragedModel) copies
them as they are and a model pickled whole names them (loading it needs vramscope importable).
"""
import collections
import functools
import gc
import threading
import time
import weakref

from . import vscap

FORWARD, BACKWARD, OPTIMIZER = "forward", "backward", "optimizer.step"
INPUTS = "inputs"  # the tagging of a forward pass's inputs (OPTIMIZER: of the optimizer's tensors)

_ACTIVE = None  # the installed PhaseTracker


def _never_compiling():
    return False


# torch.compiler.is_compiling once a tracker is installed (never reset: code compiled later
# must find the same function, which dynamo folds to True while it traces)
_is_compiling = _never_compiling


def now_us():
    return time.time_ns() // 1000


# ---- the hook functions (module-level: see the module's docstring)
def _root_pre(module, args, kwargs):
    if _is_compiling():
        return None
    t = _ACTIVE
    if t is not None:
        t._forward_pre(module, args, kwargs)
    return None


def _root_pre_positional(module, args):  # torch < 2.0: no with_kwargs
    return _root_pre(module, args, None)


def _root_post(module, args, output):
    if _is_compiling():
        return None
    t = _ACTIVE
    if t is not None:
        t._forward_post(module)
    return None


def _on_module(parent, name, child):
    if _is_compiling():
        return None
    t = _ACTIVE
    if t is not None:
        t._registered(parent, child)
    return None


def _on_state(module, name, value):
    if _is_compiling():
        return None
    t = _ACTIVE
    if t is not None:
        t._has_state(module)
    return None


def _step_pre(optimizer, args, kwargs):
    if _is_compiling():
        return None
    t = _ACTIVE
    if t is not None:
        t._step_pre(optimizer)
    return None


def _step_post(optimizer, args, kwargs):
    if _is_compiling():
        return None
    t = _ACTIVE
    if t is not None:
        t._step_post(optimizer)
    return None


class PhaseTracker:
    # Tagging walks every parameter after each step and the inputs of each forward pass: a few µs per
    # tensor. Both together may take at most this share of the run (half each); steps beyond it are
    # tagged less often (the viewer carries categories from a tagged allocation to the later ones of
    # the same call site).
    MAX_TAG_SHARE = 0.01

    def __init__(self, torch, device_of, adopt_existing=True):
        self.torch = torch
        self.device_of = device_of
        # False when no module of the program can exist yet (python -m vramscope record starts
        # before the program): the look for them walks every object (80 ms on the H200, cProfile)
        self.adopt_existing = adopt_existing
        self.annotations = collections.deque()  # (device, µs, stage, name)
        self.tags = collections.deque()         # (device, µs, [(address, category)])
        self.problems = collections.deque()     # sentences for the capture's warnings
        self._failures = {}                     # where -> count
        self._local = threading.local()
        self._handles = []
        self._roots = {}     # id(module) -> (weakref, [handles]): hooked outermost modules
        self._children = {}  # id(module) -> weakref: modules that are someone's child
        self._original_backward = None
        self._backward = None
        self._tag_seconds = {INPUTS: 0.0, OPTIMIZER: 0.0}  # what each kind of tagging has cost so far
        self._started = time.perf_counter()
        self._fresh_iteration = True
        self.forward_hooks = False  # whether forward phases can be seen (registration hooks exist)

    # ---- install / remove
    def install(self):
        global _ACTIVE
        if _ACTIVE is not None and _ACTIVE is not self:
            raise RuntimeError("another phase tracker is installed")
        try:
            self._install()
        except Exception:
            self.remove()
            raise
        return self

    def _install(self):
        global _ACTIVE, _is_compiling
        import importlib
        t = self.torch
        compiler = getattr(t, "compiler", None)
        check = getattr(compiler, "is_compiling", None)
        if check is None:
            dynamo = getattr(t, "_dynamo", None)
            check = getattr(dynamo, "is_compiling", None)
        if check is not None and _is_compiling is _never_compiling:
            _is_compiling = check
        _ACTIVE = self
        modules = importlib.import_module("torch.nn.modules.module")
        try:
            self._handles.append(modules.register_module_module_registration_hook(_on_module))
            self._handles.append(modules.register_module_parameter_registration_hook(_on_state))
            self._handles.append(modules.register_module_buffer_registration_hook(_on_state))
            self.forward_hooks = True
        except AttributeError:  # torch < 2.0: no forward phases (backward and the optimizer still)
            self.problems.append("recorder: this torch has no module registration hooks: no forward phases")
        if self.forward_hooks and self.adopt_existing:
            self._adopt_existing()
        optim = importlib.import_module("torch.optim.optimizer")
        self._handles.append(optim.register_optimizer_step_pre_hook(_step_pre))
        self._handles.append(optim.register_optimizer_step_post_hook(_step_post))
        # Tensor.backward calls torch.autograd.backward through the module attribute: one wrapper
        # sees both (Lightning, Accelerate and AMP's scaler all end there)
        self._original_backward = t.autograd.backward
        original = self._original_backward
        tracker = self

        @functools.wraps(original)
        def backward(*args, **kwargs):
            if _is_compiling() or _ACTIVE is not tracker:
                return original(*args, **kwargs)
            tracker._annotate(0, BACKWARD)
            try:
                return original(*args, **kwargs)
            finally:
                tracker._annotate(1, BACKWARD)
                tracker._fresh_iteration = True
        self._backward = backward
        t.autograd.backward = backward

    def remove(self):
        global _ACTIVE
        if _ACTIVE is self:
            _ACTIVE = None
        for h in self._handles:
            self._quietly(h.remove)
        self._handles = []
        roots, self._roots = self._roots, {}
        for ref, handles in roots.values():
            for h in handles:
                self._quietly(h.remove)
        self._children = {}
        if self._original_backward is not None:
            if getattr(self.torch.autograd, "backward", None) is self._backward:
                self.torch.autograd.backward = self._original_backward
            self._original_backward = None

    @staticmethod
    def _quietly(fn):
        try:
            fn()
        except Exception:
            pass

    def _failed(self, where, e):
        n = self._failures.get(where, 0)
        self._failures[where] = n + 1
        if n == 0:
            self.problems.append("recorder: %s failed (%s: %s); the program went on, later failures there are "
                                 "counted at the end" % (where, type(e).__name__, e))

    def failure_summary(self):
        return ["recorder: %s failed %d times in all" % (w, n) for w, n in self._failures.items() if n > 1]

    # ---- outermost modules
    def _registered(self, parent, child):
        try:
            if child is not None:
                self._demote(child)
            self._promote(parent)
        except Exception as e:
            self._failed("the module registration hook", e)

    def _has_state(self, module):
        try:
            self._promote(module)
        except Exception as e:
            self._failed("the parameter/buffer registration hook", e)

    def _forget(self, table, key):
        def gone(ref, table=table, key=key):
            entry = table.get(key)
            if entry is not None and (entry is ref or (type(entry) is tuple and entry[0] is ref)):
                table.pop(key, None)
        return gone

    def _promote(self, m):
        k = id(m)
        c = self._children.get(k)
        if c is not None and c() is m:
            return
        r = self._roots.get(k)
        if r is not None and r[0]() is m:
            return
        ref = weakref.ref(m, self._forget(self._roots, k))
        handles = []
        try:
            handles.append(m.register_forward_pre_hook(_root_pre, with_kwargs=True))
        except TypeError:
            handles.append(m.register_forward_pre_hook(_root_pre_positional))
        try:
            handles.append(m.register_forward_hook(_root_post, always_call=True))
        except TypeError:  # torch < 2.1: an exception in forward leaves the phase open
            handles.append(m.register_forward_hook(_root_post))
        self._roots[k] = (ref, handles)

    def _demote(self, m):
        k = id(m)
        self._children[k] = weakref.ref(m, self._forget(self._children, k))
        r = self._roots.pop(k, None)
        if r is not None:
            for h in r[1]:
                h.remove()

    def _adopt_existing(self):
        """Modules built before the recorder started: the roots among them get their hooks now."""
        module_type = self.torch.nn.Module
        found = []
        try:
            for o in gc.get_objects():
                if issubclass(type(o), module_type):  # type(): never the object's __class__
                    found.append(o)
        except Exception as e:
            self._failed("looking for modules built before the recording", e)
            return
        children = set()
        for m in found:
            try:
                for c in dict.values(object.__getattribute__(m, "_modules")):
                    if c is not None:
                        children.add(id(c))
                        self._children[id(c)] = weakref.ref(c, self._forget(self._children, id(c)))
            except Exception:
                continue
        for m in found:
            try:
                d = object.__getattribute__(m, "__dict__")
                if id(m) not in children and (d.get("_modules") or d.get("_parameters") or d.get("_buffers")):
                    self._promote(m)
            except Exception as e:
                self._failed("hooking a module built before the recording", e)

    # ---- hooks
    def _forward_pre(self, module, args, kwargs):
        try:
            depth = getattr(self._local, "depth", 0)
            self._local.depth = depth + 1
            if depth == 0:
                self._annotate(0, FORWARD)
                # The tensors handed to the outermost call are the input data, if no autograd op
                # made them. Without grad mode only the first call of an iteration counts (eval:
                # model(x), then a metric module(out, y)).
                if self.torch.is_grad_enabled() or self._fresh_iteration:
                    self._tag(INPUTS, self._tag_inputs, (args, kwargs))
                self._fresh_iteration = False
        except Exception as e:
            self._failed("the forward pre-hook", e)

    def _forward_post(self, module):
        try:
            depth = max(getattr(self._local, "depth", 0) - 1, 0)
            self._local.depth = depth
            if depth == 0:
                self._annotate(1, FORWARD)
        except Exception as e:
            self._failed("the forward hook", e)

    def _step_pre(self, optimizer):
        self._annotate(0, OPTIMIZER)

    def _step_post(self, optimizer):
        self._annotate(1, OPTIMIZER)
        self._fresh_iteration = True
        try:
            self._tag(OPTIMIZER, self._tag_optimizer, optimizer)
        except Exception as e:
            self._failed("tagging the optimizer's tensors", e)

    def _tag(self, kind, tagger, what):
        """tagger(what), if tagging of this kind (INPUTS, OPTIMIZER) is within its half of the share of
        the run so far, charged to it: each kind has its own, so that the inputs of the first forward
        pass never use up the first optimizer step's."""
        if self._tag_seconds[kind] > self.MAX_TAG_SHARE / 2 * (time.perf_counter() - self._started):
            return
        t0 = time.perf_counter()
        try:
            tagger(what)
        finally:
            self._tag_seconds[kind] += time.perf_counter() - t0

    # ---- what is queued
    def _annotate(self, stage, name):
        try:
            try:
                device = self.device_of()
            except Exception:
                device = 0
            self.annotations.append((device, now_us(), stage, name))
        except Exception as e:
            self._failed("annotating a phase", e)

    def _tag_inputs(self, args):
        tensor = self.torch.Tensor
        found = []
        for a in _tensors(args, tensor):
            if a.is_cuda and a.grad_fn is None and not a.requires_grad:
                found.append((a, vscap.TAG_INPUT))
        self._queue(found)

    def _tag_optimizer(self, optimizer):
        tensor = self.torch.Tensor
        found = []
        state = optimizer.state
        for group in optimizer.param_groups:
            for p in group["params"]:
                if not p.is_cuda:
                    continue
                found.append((p, vscap.TAG_PARAMETER))
                if p.grad is not None:
                    found.append((p.grad, vscap.TAG_GRADIENT))
                for v in (state.get(p, None) or {}).values():
                    if issubclass(type(v), tensor) and v.is_cuda:
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
                if address:
                    by_device.setdefault(tensor.device.index or 0, {})[address] = category
            except Exception:  # a tensor subclass without storage (DTensor, FakeTensor...)
                continue
        for device, tags in by_device.items():
            self.tags.append((device, t, sorted(tags.items())))

    def drain(self, interner):
        """The queued annotations and tags as records; strings through the recorder's interner."""
        records = bytearray()
        while self.annotations:
            device, t, stage, name = self.annotations.popleft()
            records += vscap.annotation_record(device, t, stage, interner.string(name))
        while self.tags:
            device, t, tags = self.tags.popleft()
            records += vscap.tags_record(device, t, tags)
        return bytes(interner.take_records() + records)


def _tensors(value, tensor, depth=0):
    """Tensors in a call's arguments: the values themselves, and one level into lists, tuples and
    dicts (a batch dict of input_ids, attention_mask, labels), down to three levels. Types are
    told by type(), never by asking the value."""
    t = type(value)
    if issubclass(t, tensor):
        yield value
    elif depth < 3 and issubclass(t, (list, tuple)):
        for v in list(value):
            yield from _tensors(v, tensor, depth + 1)
    elif depth < 3 and issubclass(t, dict):
        for v in list(dict.values(value)):
            yield from _tensors(v, tensor, depth + 1)
