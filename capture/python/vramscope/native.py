"""Builds (once, cached) and loads the native allocator tracker, _tracker.cpp, against the torch
that is installed. Returns the module, or None and the reason when no compiler/headers are there."""
import ctypes.util
import hashlib
import os
import sys

_cached = None


def _cache_dir(torch, source):
    sha = hashlib.sha1(open(source, "rb").read())
    sha.update(open(os.path.join(os.path.dirname(source), "_vscap_encode.h"), "rb").read())  # its encoders
    digest = sha.hexdigest()[:12]
    base = os.environ.get("VRAMSCOPE_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "vramscope")
    tag = "torch%s-py%d%d-%s" % (torch.__version__.replace("+", "_"), sys.version_info[0], sys.version_info[1], digest)
    path = os.path.join(base, tag)
    os.makedirs(path, exist_ok=True)
    return path


def _zstd_flags():
    has_header = any(os.path.exists(os.path.join(d, "zstd.h")) for d in ("/usr/include", "/usr/local/include"))
    if has_header and ctypes.util.find_library("zstd"):
        return ["-DVRAMSCOPE_ZSTD"], ["-lzstd"]
    return [], []


def load():
    """(module, None) or (None, reason)."""
    global _cached
    if _cached is not None:
        return _cached
    if os.environ.get("VRAMSCOPE_NO_NATIVE"):
        _cached = (None, "VRAMSCOPE_NO_NATIVE is set")
        return _cached
    try:
        import torch
        from torch.utils import cpp_extension
        source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_tracker.cpp")
        cflags, ldflags = _zstd_flags()
        module = cpp_extension.load(name="vramscope_tracker", sources=[source], extra_cflags=["-O2"] + cflags,
                                    extra_ldflags=ldflags, build_directory=_cache_dir(torch, source),
                                    with_cuda=True, verbose=bool(os.environ.get("VRAMSCOPE_VERBOSE")))
        _cached = (module, None)
    except Exception as e:  # no compiler, no headers, no ninja...: the fallback still records
        reason = str(e).strip().splitlines()
        _cached = (None, "%s: %s" % (type(e).__name__, reason[-1] if reason else ""))
    return _cached
