"""Builds (once per machine, torch and Python version) and loads the native allocator tracker,
_tracker.cpp with _codec.cpp, against the torch that is installed. Returns the module, or None and
the reason when no compiler/headers are there.

The records are encoded by core's codec, compiled from its own files (CODEC_HEADERS, under core/ of
the repository): a source checkout finds them there, an installed package in its _core/ directory,
where scripts/build-wheel.sh and the install rules copy them.

The cache: $VRAMSCOPE_CACHE (a CI recipe names a directory it keeps between jobs), else
$XDG_CACHE_HOME/vramscope, else ~/.cache/vramscope. In it one directory per build key (torch
version, its CUDA, Python, machine, a digest of the sources and flags) holds vramscope_tracker.so.
A build happens in a fresh private directory beside them (mkdtemp: mode 0700) and is renamed into
place when it is complete, so a reader never sees half a build and two first runs at once cost two
builds, not a broken one (the loser's is discarded). The cache directory and each build directory
must be real directories (not symlinks), owned by this user and closed to group and others (made
so when they are ours); otherwise the cache is not used and the extension is built in a private
temporary directory for this run only, with the reason said. The library is loaded through the
already opened, checked directory (/proc/self/fd), so nothing can be swapped in between.
"""
import ctypes.util
import hashlib
import importlib.machinery
import importlib.util
import os
import platform
import shutil
import stat
import sys
import tempfile

NAME = "vramscope_tracker"
LIBRARY = NAME + ".so"

_cached = None


class UnsafeCache(Exception):
    pass


def cache_root():
    return os.environ.get("VRAMSCOPE_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "vramscope")


HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = ("_tracker.cpp", "_codec.cpp", "_py_frames.cpp", "_heap_index.cpp")
OWN_HEADERS = ("_codec.h", "_interner.h", "_stack_cache.h", "_own_stacks.h", "_py_frames.h", "_heap_index.h",
               "_traceback_access.h", "_own_symbols.h", "_allocator_state.h")
CODEC_HEADERS = ("io/VscapFormat.h", "io/VscapEncode.h", "io/VscapEncodeState.h", "io/VscapEvents.h",
                 "model/Action.h")  # core's codec, relative to core/


def core_dir():
    """Where core's codec headers are: the package's copy of them, else the source tree's core/."""
    for d in (os.path.join(HERE, "_core"), os.path.join(HERE, "..", "..", "..", "core")):
        if all(os.path.isfile(os.path.join(d, h)) for h in CODEC_HEADERS):
            return os.path.normpath(d)
    raise FileNotFoundError("core's codec headers (%s) are neither in %s/_core nor in the source tree"
                            % (CODEC_HEADERS[0], HERE))


def _sources():
    """Every file the module is built from: its sources first."""
    core = core_dir()
    return ([os.path.join(HERE, f) for f in SOURCES + OWN_HEADERS] +
            [os.path.join(core, h) for h in CODEC_HEADERS])


def build_key(torch, flags):
    sha = hashlib.sha1()
    for path in _sources():
        with open(path, "rb") as f:
            sha.update(f.read())
    sha.update(repr(flags).encode())
    cuda = getattr(getattr(torch, "version", None), "cuda", None) or "cpu"
    return "torch%s-cu%s-py%d%d-%s-%s" % (torch.__version__.replace("+", "_"), cuda, sys.version_info[0],
                                          sys.version_info[1], platform.machine() or "any", sha.hexdigest()[:12])


def private_dir(path, create=True):
    """Makes `path` (mode 0700) or checks it: a real directory of ours, closed to group and others
    (a directory of ours that is not gets chmod 0700). Raises UnsafeCache with the reason."""
    if create:
        parent = os.path.dirname(path.rstrip("/"))
        if parent and not os.path.isdir(parent):
            os.makedirs(parent, 0o700, exist_ok=True)
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            pass
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        raise UnsafeCache("%s is a symlink" % path)
    if not stat.S_ISDIR(st.st_mode):
        raise UnsafeCache("%s is not a directory" % path)
    if st.st_uid != os.geteuid():
        raise UnsafeCache("%s belongs to uid %d, not to this user (uid %d)" % (path, st.st_uid, os.geteuid()))
    if st.st_mode & 0o077:
        os.chmod(path, 0o700)  # ours, checked not to be a symlink just now
    return path


def _open_dir(path):
    """An fd on the directory itself (O_NOFOLLOW: never through a symlink), checked private."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        st = os.fstat(fd)
        if st.st_uid != os.geteuid() or st.st_mode & 0o022:
            raise UnsafeCache("%s is not private to this user" % path)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _import_from(directory):
    """Imports the library from a checked build directory, through its fd."""
    fd = _open_dir(directory)
    try:
        lib_fd = os.open(LIBRARY, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=fd)
        try:
            st = os.fstat(lib_fd)
            if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o022:
                raise UnsafeCache("%s/%s is not a private regular file" % (directory, LIBRARY))
            path = "/proc/self/fd/%d" % lib_fd if os.path.isdir("/proc/self/fd") else os.path.join(directory, LIBRARY)
            loader = importlib.machinery.ExtensionFileLoader(NAME, path)
            spec = importlib.util.spec_from_file_location(NAME, path, loader=loader)
            module = importlib.util.module_from_spec(spec)
            loader.exec_module(module)
            return module
        finally:
            os.close(lib_fd)
    finally:
        os.close(fd)


def cached_build(root, key, build, load=_import_from, say=None):
    """The module from root/key, building it first when absent: build(directory) compiles and
    returns the module loaded from `directory`. Returns (module, how): how is "cached", "built" or
    "built (not cached: REASON)"."""
    try:
        private_dir(root)
        final = os.path.join(root, key)
        if os.path.lexists(final):
            private_dir(final, create=False)
            if os.path.exists(os.path.join(final, LIBRARY)):
                return load(final), "cached"
            # an incomplete directory left by hand: built again beside it
        tmp = tempfile.mkdtemp(prefix=".build-", dir=root)  # 0700, new
    except (OSError, UnsafeCache) as e:
        tmp = tempfile.mkdtemp(prefix="vramscope-build-")
        try:
            return build(tmp), "built (not cached: %s)" % e
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    if say is not None:
        say("vramscope: building the allocator tracker once for this torch (about 30 s; cached in %s)" % root)
    try:
        module = build(tmp)
        if not os.path.exists(os.path.join(tmp, LIBRARY)):
            return module, "built (not cached: no %s was made)" % LIBRARY
        try:
            os.rename(tmp, final)  # atomic; fails if another process put its build there first
            tmp = None
        except OSError:
            pass  # theirs stays, ours goes: same sources, same key
        return module, "built"
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def _zstd_flags():
    has_header = any(os.path.exists(os.path.join(d, "zstd.h")) for d in ("/usr/include", "/usr/local/include"))
    if has_header and ctypes.util.find_library("zstd"):
        return ["-DVRAMSCOPE_ZSTD"], ["-lzstd"]
    return [], []


def load(say=None):
    """(module, None) or (None, reason)."""
    global _cached
    if _cached is not None:
        return _cached
    if os.environ.get("VRAMSCOPE_NO_NATIVE"):
        _cached = (None, "VRAMSCOPE_NO_NATIVE is set")
        return _cached
    try:
        import torch
        sources = _sources()[:len(SOURCES)]
        cflags, ldflags = _zstd_flags()
        includes = [HERE, core_dir()]

        def build(directory):
            # only when building: importing it (setuptools and more) took 0.46 s of a cached load
            from torch.utils import cpp_extension
            return cpp_extension.load(name=NAME, sources=sources, extra_cflags=["-O2", "-std=c++20"] + cflags,
                                      extra_ldflags=ldflags, extra_include_paths=includes,
                                      build_directory=directory, with_cuda=True,
                                      verbose=bool(os.environ.get("VRAMSCOPE_VERBOSE")))
        module, how = cached_build(cache_root(), build_key(torch, (cflags, ldflags)), build, say=say)
        load.how = how
        _cached = (module, None)
    except Exception as e:  # no compiler, no headers, no ninja...: the fallback still records
        reason = str(e).strip().splitlines()
        _cached = (None, "%s: %s" % (type(e).__name__, reason[-1] if reason else ""))
    return _cached


load.how = None
