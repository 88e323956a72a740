"""The driver's own figures for the gap between what the allocators explain and what nvidia-smi
shows: cuMemGetInfo's used bytes per device (through torch, only on devices this process already
has a context on: asking another device would create one, ~500 MiB) and NVML's used bytes of this
process (nvidia-smi's per-process column), read with ctypes from libnvidia-ml.so.1 so that no
Python package is needed. NVML devices are matched to CUDA ordinals by UUID (CUDA_VISIBLE_DEVICES
reorders them)."""
import ctypes
import os
import threading


class _Memory(ctypes.Structure):
    _fields_ = [("total", ctypes.c_ulonglong), ("free", ctypes.c_ulonglong), ("used", ctypes.c_ulonglong)]


class _Process(ctypes.Structure):  # nvmlProcessInfo_t (v2/v3 layout)
    _fields_ = [("pid", ctypes.c_uint), ("usedGpuMemory", ctypes.c_ulonglong),
                ("gpuInstanceId", ctypes.c_uint), ("computeInstanceId", ctypes.c_uint)]


class Nvml:
    def __init__(self):
        self.lib = None
        self.reason = None
        try:
            lib = ctypes.CDLL("libnvidia-ml.so.1")
            if lib.nvmlInit_v2() != 0:
                raise OSError("nvmlInit_v2 failed")
            self.lib = lib
        except (OSError, AttributeError) as e:
            self.reason = str(e)
        self._handles = {}

    def handle(self, uuid):
        if self.lib is None or not uuid:
            return None
        if uuid not in self._handles:
            h = ctypes.c_void_p()
            ok = self.lib.nvmlDeviceGetHandleByUUID(uuid.encode(), ctypes.byref(h)) == 0
            self._handles[uuid] = h if ok else None
        return self._handles[uuid]

    def process_used(self, handle, pid):
        """This process's used bytes on the device, or 0 when NVML does not list it (another PID
        namespace in a container, no permission)."""
        for name in ("nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2"):
            fn = getattr(self.lib, name, None)
            if fn is None:
                continue
            count = ctypes.c_uint(64)
            procs = (_Process * 64)()
            if fn(handle, ctypes.byref(count), procs) != 0:
                return 0
            for i in range(min(count.value, 64)):
                if procs[i].pid == pid and procs[i].usedGpuMemory < (1 << 63):
                    return procs[i].usedGpuMemory
            return 0
        return 0


class CaptureWatch:
    """Knows when a CUDA graph is being captured in this process (torch.cuda.CUDAGraph.capture_begin
    to capture_end, which torch.cuda.graph and torch.compile's CUDA graphs both go through). A
    capture in the default "global" mode fails when any other thread makes a potentially unsafe
    CUDA call meanwhile, as cudaMemGetInfo may be: the sampler holds `lock` for its call and skips
    while a capture is on, and a capture waits for a call under way (microseconds)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.capturing = 0
        self._restore = []

    def install(self, torch):
        cls = getattr(getattr(torch, "cuda", None), "CUDAGraph", None)
        if cls is None or "capture_begin" not in vars(cls) or "capture_end" not in vars(cls):
            return self
        begin, end = vars(cls)["capture_begin"], vars(cls)["capture_end"]
        watch = self

        def capture_begin(self, *args, **kwargs):
            with watch.lock:
                watch.capturing += 1
            try:
                return begin(self, *args, **kwargs)
            except BaseException:
                with watch.lock:
                    watch.capturing -= 1
                raise

        def capture_end(self, *args, **kwargs):
            try:
                return end(self, *args, **kwargs)
            finally:
                with watch.lock:
                    watch.capturing = max(0, watch.capturing - 1)
        for name, fn, orig in (("capture_begin", capture_begin, begin), ("capture_end", capture_end, end)):
            fn.__wrapped__ = orig
            fn.__name__, fn.__qualname__, fn.__doc__ = orig.__name__, orig.__qualname__, orig.__doc__
            setattr(cls, name, fn)
            self._restore.append((cls, name, orig, fn))
        return self

    def remove(self):
        for cls, name, orig, fn in self._restore:
            if vars(cls).get(name) is fn:
                setattr(cls, name, orig)
        self._restore = []


class DriverSampler:
    """Samples both figures for every device this process has a context on."""

    def __init__(self, torch, watch=None):
        self.watch = watch
        self.torch = torch
        self.nvml = Nvml()
        self.pid = os.getpid()
        self.uuids = {}
        for d in range(torch.cuda.device_count()):
            uuid = getattr(torch.cuda.get_device_properties(d), "uuid", None)
            text = str(uuid) if uuid is not None else ""
            self.uuids[d] = (text if text.startswith("GPU-") else "GPU-" + text) if text else None

    def sample(self):
        """[(device, device used bytes, process used bytes)] (0 = not known)."""
        out = []
        has_context = getattr(self.torch._C, "_cuda_hasPrimaryContext", None)
        for d, uuid in self.uuids.items():
            if has_context is not None and not has_context(d):
                continue
            device_used = 0
            if self.watch is None:
                try:
                    free, total = self.torch.cuda.mem_get_info(d)
                    device_used = total - free
                except Exception:
                    pass
            else:
                with self.watch.lock:
                    if self.watch.capturing:
                        return []  # no sample while a CUDA graph is captured
                    try:
                        free, total = self.torch.cuda.mem_get_info(d)
                        device_used = total - free
                    except Exception:
                        pass
            h = self.nvml.handle(uuid)
            process_used = self.nvml.process_used(h, self.pid) if h is not None else 0
            out.append((d, device_used, process_used))
        return out
