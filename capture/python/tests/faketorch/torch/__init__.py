"""A stand-in for torch, enough of it for the recorder's in-process parts to run without a GPU:
CUDA "tensors" that own fake blocks (their live set is the allocator's state), a caching
allocator's snapshot of them, nn.Module with PyTorch's registration and per-module forward hooks
(and the global forward hooks, which record that somebody used them), the optimizer step hooks,
torch.autograd.backward and torch.compiler.is_compiling. Put this directory on PYTHONPATH (as
`torch`) only where the real torch is not installed; the offline tests do.

FAKE_TORCH_TRACE=1 keeps an allocator history of the tensors made (alloc entries with the caller's
frame) in the snapshot's device_traces, for the polling recorder to stream (the remote tests).

FAKE_TORCH_FAIL=retention makes the snapshot that a retention graph asks for raise (a recorder
failure inside the program's process); FAKE_TORCH_FAIL=history makes _record_memory_history
raise (the recorder cannot start)."""
import collections
import itertools
import os
import sys
import time
import types
import weakref

__version__ = "0.0.fake"
_live = weakref.WeakValueDictionary()  # address -> Tensor
_next = itertools.count()
_grad = [True]
_TRACE = [] if os.environ.get("FAKE_TORCH_TRACE") == "1" else None


def _fail(what):
    return os.environ.get("FAKE_TORCH_FAIL") == what


class _Storage:
    def __init__(self, ptr):
        self._ptr = ptr

    def data_ptr(self):
        return self._ptr


class device:
    def __init__(self, index=0):
        self.index = index
        self.type = "cuda"


class Tensor:
    """A CUDA tensor of `size` bytes with an address of its own, alive as long as the object."""

    def __init__(self, size=1024, requires_grad=False):
        self.size = (size + 511) // 512 * 512
        self.ptr = 0x7F0000000000 + next(_next) * (1 << 20)
        self.is_cuda = True
        self.requires_grad = requires_grad
        self.grad = None
        self.grad_fn = None
        self.is_leaf = True
        self.device = device(0)
        self.shape = [size // 4]
        self.dtype = "torch.float32"
        _live[self.ptr] = self
        if _TRACE is not None:
            f = sys._getframe(1)
            while f.f_back is not None and f.f_code.co_filename == __file__:
                f = f.f_back
            _TRACE.append({"action": "alloc", "addr": self.ptr, "size": self.size, "stream": 0,
                           "time_us": int(time.time() * 1e6),
                           "frames": [{"filename": f.f_code.co_filename, "line": f.f_lineno, "name": f.f_code.co_name}]})

    def untyped_storage(self):
        return _Storage(self.ptr)

    def backward(self):
        return autograd.backward(self)


class Parameter(Tensor):
    def __init__(self, size=1024):
        super().__init__(size, requires_grad=True)


def empty(size):
    return Tensor(size)


def is_grad_enabled():
    return _grad[0]


class no_grad:
    def __enter__(self):
        self.prev, _grad[0] = _grad[0], False

    def __exit__(self, *a):
        _grad[0] = self.prev


# ---- torch.cuda
def _snapshot():
    if _fail("retention") and any(f.f_code.co_name == "_collect_retention" for f in _frames()):
        raise RuntimeError("fake torch: the snapshot failed (FAKE_TORCH_FAIL=retention)")
    blocks = [{"address": a, "size": t.size, "requested_size": t.size, "state": "active_allocated"}
              for a, t in sorted(_live.items())]
    segments = [{"device": 0, "address": b["address"], "total_size": 1 << 20, "stream": 0,
                 "segment_type": "large", "blocks": [b]} for b in blocks]
    return {"segments": segments, "device_traces": [list(_TRACE or [])], "allocator_settings": {}}


def _frames():
    f = sys._getframe(1)
    while f is not None:
        yield f
        f = f.f_back


def _record_memory_history(enabled="all", context=None, stacks="python", max_entries=0):
    if _fail("history"):
        raise RuntimeError("fake torch: no memory history (FAKE_TORCH_FAIL=history)")


memory = types.ModuleType("torch.cuda.memory")
memory._snapshot = _snapshot
memory._record_memory_history = _record_memory_history

cuda = types.ModuleType("torch.cuda")
cuda.memory = memory
cuda.is_available = lambda: True
cuda.device_count = lambda: 1
cuda.current_device = lambda: 0
cuda.init = lambda: None
cuda.get_device_properties = lambda i: types.SimpleNamespace(name="Fake GPU", total_memory=1 << 34, uuid="GPU-fake")
cuda.mem_get_info = lambda d=0: ((1 << 34) - sum(t.size for t in _live.values()), 1 << 34)


def _stats(d=0):
    return {"allocated_bytes": {"all": {"current": sum(t.size for t in list(_live.values()))}}}


cuda.memory_stats_as_nested_dict = _stats

_C = types.ModuleType("torch._C")
_C._cuda_getDevice = lambda: 0
_C._cuda_hasPrimaryContext = lambda d: True

compiler = types.ModuleType("torch.compiler")
_compiling = [False]
compiler.is_compiling = lambda: _compiling[0]


# ---- torch.autograd
autograd = types.ModuleType("torch.autograd")


def _backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    if tensors is None:
        raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
    for p in list(_live.values()):
        if p.requires_grad:
            p.grad = Tensor(p.size)


autograd.backward = _backward


# ---- torch.nn
class _Handle:
    _ids = itertools.count()

    def __init__(self, *dicts):
        self.id = next(_Handle._ids)
        self.dicts = dicts

    def remove(self):
        for d in self.dicts:
            d.pop(self.id, None)


_global_module_registration_hooks = collections.OrderedDict()
_global_parameter_registration_hooks = collections.OrderedDict()
_global_buffer_registration_hooks = collections.OrderedDict()
_global_forward_pre_hooks = collections.OrderedDict()
_global_forward_hooks = collections.OrderedDict()
GLOBAL_HOOK_USERS = []  # who registered a global forward hook (torch.compile warns about them)


def _registration(table):
    def register(hook):
        h = _Handle(table)
        table[h.id] = hook
        return h
    return register


def register_module_forward_pre_hook(hook):
    GLOBAL_HOOK_USERS.append(hook)
    return _registration(_global_forward_pre_hooks)(hook)


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    GLOBAL_HOOK_USERS.append(hook)
    return _registration(_global_forward_hooks)(hook)


class Module:
    def __init__(self):
        for name in ("_modules", "_parameters", "_buffers", "_forward_pre_hooks", "_forward_pre_hooks_with_kwargs",
                     "_forward_hooks", "_forward_hooks_always_called"):
            object.__setattr__(self, name, collections.OrderedDict())

    def __setattr__(self, name, value):
        if isinstance(value, Module):
            for hook in list(_global_module_registration_hooks.values()):
                out = hook(self, name, value)
                value = value if out is None else out
            self._modules[name] = value
        elif isinstance(value, Parameter):
            for hook in list(_global_parameter_registration_hooks.values()):
                out = hook(self, name, value)
                value = value if out is None else out
            self._parameters[name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        for table in ("_modules", "_parameters", "_buffers"):
            d = self.__dict__.get(table)
            if d is not None and name in d:
                return d[name]
        raise AttributeError(name)

    def add_module(self, name, module):
        for hook in list(_global_module_registration_hooks.values()):
            out = hook(self, name, module)
            module = module if out is None else out
        self._modules[name] = module

    def register_buffer(self, name, tensor):
        for hook in list(_global_buffer_registration_hooks.values()):
            out = hook(self, name, tensor)
            tensor = tensor if out is None else out
        self._buffers[name] = tensor

    def parameters(self):
        seen = []
        for p in self._parameters.values():
            seen.append(p)
        for m in self._modules.values():
            seen.extend(m.parameters())
        return seen

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        h = _Handle(self._forward_pre_hooks, self._forward_pre_hooks_with_kwargs)
        self._forward_pre_hooks[h.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[h.id] = True
        return h

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        h = _Handle(self._forward_hooks, self._forward_hooks_always_called)
        self._forward_hooks[h.id] = hook
        if always_call:
            self._forward_hooks_always_called[h.id] = True
        return h

    def __call__(self, *args, **kwargs):
        for hook in list(_global_forward_pre_hooks.values()):
            hook(self, args)
        for k, hook in list(self._forward_pre_hooks.items()):
            if k in self._forward_pre_hooks_with_kwargs:
                hook(self, args, kwargs)
            else:
                hook(self, args)
        out = None
        try:
            out = self.forward(*args, **kwargs)
        finally:
            for hook in list(_global_forward_hooks.values()):
                hook(self, args, out)
            for hook in list(self._forward_hooks.values()):
                hook(self, args, out)
        return out


class Linear(Module):
    def __init__(self, n=256):
        super().__init__()
        self.weight = Parameter(n * 4)

    def forward(self, x):
        return Tensor(x.size)


class Sequential(Module):
    def __init__(self, *mods):
        super().__init__()
        for i, m in enumerate(mods):
            self.add_module(str(i), m)

    def forward(self, x, *more, **options):
        for m in self._modules.values():
            x = m(x) if type(x) is Tensor else m(Tensor(64))
        return x


class OptimizedModule(Module):
    """torch.compile(model)'s wrapper: its forward is what dynamo traces (here: hooks of the
    wrapped module run with is_compiling() true, as while dynamo traces them)."""

    def __init__(self, mod):
        object.__setattr__(self, "_orig_mod", mod)
        super().__init__()
        self._orig_mod = mod

    def forward(self, *args, **kwargs):
        _compiling[0] = True
        try:
            return self._orig_mod(*args, **kwargs)
        finally:
            _compiling[0] = False


def compile(model, **kw):
    return OptimizedModule(model)


nn = types.ModuleType("torch.nn")
nn.Module, nn.Linear, nn.Sequential, nn.Parameter = Module, Linear, Sequential, Parameter
nn_modules = types.ModuleType("torch.nn.modules")
module_mod = types.ModuleType("torch.nn.modules.module")
for _n in ("register_module_forward_pre_hook", "register_module_forward_hook", "Module",
           "_global_module_registration_hooks", "_global_forward_pre_hooks", "_global_forward_hooks"):
    setattr(module_mod, _n, globals()[_n])
module_mod.register_module_module_registration_hook = _registration(_global_module_registration_hooks)
module_mod.register_module_parameter_registration_hook = _registration(_global_parameter_registration_hooks)
module_mod.register_module_buffer_registration_hook = _registration(_global_buffer_registration_hooks)
nn.modules = nn_modules
nn_modules.module = module_mod


# ---- torch.optim
_optimizer_pre = collections.OrderedDict()
_optimizer_post = collections.OrderedDict()


class Optimizer:
    def __init__(self, params):
        self.param_groups = [{"params": list(params)}]
        self.state = collections.defaultdict(dict)

    def step(self):
        for h in list(_optimizer_pre.values()):
            h(self, (), {})
        for p in self.param_groups[0]["params"]:
            if p not in self.state:  # identity-hashed, as torch's
                self.state[p] = {"exp_avg": Tensor(p.size)}
        for h in list(_optimizer_post.values()):
            h(self, (), {})


optim = types.ModuleType("torch.optim")
optimizer_mod = types.ModuleType("torch.optim.optimizer")
optimizer_mod.Optimizer = optim.Optimizer = optim.SGD = Optimizer
optimizer_mod.register_optimizer_step_pre_hook = _registration(_optimizer_pre)
optimizer_mod.register_optimizer_step_post_hook = _registration(_optimizer_post)
optim.optimizer = optimizer_mod

for _name, _m in (("torch.cuda", cuda), ("torch.cuda.memory", memory), ("torch._C", _C),
                  ("torch.compiler", compiler), ("torch.autograd", autograd), ("torch.nn", nn),
                  ("torch.nn.modules", nn_modules), ("torch.nn.modules.module", module_mod),
                  ("torch.optim", optim), ("torch.optim.optimizer", optimizer_mod)):
    sys.modules.setdefault(_name, _m)
