"""A hostile heap: objects that raise or lie whenever anything asks them anything, for the recorder's
heap walk (retention graphs) to survive. Used by the offline tests and by tests/gpu/hostile_heap.py
under the real recorder. `build()` returns the objects (keep them alive); `Mutator` changes some of
them from another thread while the walk runs.

What is in it: dead weakref.proxy objects (every attribute, `__class__` included, raises
ReferenceError: the recorder's exit once died on one), objects whose `__class__`, `__getattr__`,
`__getattribute__`, `__dict__`, `__eq__`, `__hash__`, `__len__`, `__iter__`, `__dir__`, `__repr__`,
`__bool__` raise or lie (a `__class__` that claims to be a tensor, a dict, a frame or a module; a
`__dict__` that is a list; a `__len__` of -1 or 2**70; attributes that exist whatever their name),
containers whose base methods are overridden to raise, a metaclass that raises on every attribute
of its classes, a class named Tensor from module "torch" that is not one, fake autograd nodes,
C extension objects (array, memoryview, deque, BytesIO, itertools, re, struct, zlib, mmap,
sqlite3, ctypes, frames, tracebacks, cells, generators), slot-only objects, self-containing
containers, huge containers (a list of a million ints, a dict of 200k entries) and a module in
sys.modules whose every attribute raises."""
import array
import collections
import ctypes
import io
import itertools
import mmap
import re
import sqlite3
import struct
import sys
import threading
import types
import weakref
import zlib


class Boom(Exception):
    pass


class Target:
    pass


class RaisingClass:
    @property
    def __class__(self):
        raise Boom("__class__")


class LyingClass:
    """isinstance(o, X) reads __class__: it says whatever it was told to."""

    def __init__(self, lie):
        object.__setattr__(self, "lie", lie)

    @property
    def __class__(self):
        return object.__getattribute__(self, "lie")


class RaisingGetattribute:
    def __init__(self):
        object.__setattr__(self, "payload", [1, 2, 3])

    def __getattribute__(self, name):
        raise Boom("__getattribute__ %s" % name)


class RaisingGetattr:
    def __getattr__(self, name):
        raise Boom("__getattr__ %s" % name)


class EverythingExists:
    """Every attribute exists: next_functions, is_cuda, untyped_storage, shape..."""

    def __getattr__(self, name):
        return self

    def __call__(self, *a, **k):
        return self

    def __iter__(self):
        return iter([self, self])


class RaisingDict:
    def __init__(self):
        self.x = 1

    @property
    def __dict__(self):
        raise Boom("__dict__")


class LyingDict:
    def __init__(self):
        self.y = 2

    @property
    def __dict__(self):
        return [("not", "a dict")]


class RaisingDunders:
    def __eq__(self, other):
        raise Boom("__eq__")

    def __hash__(self):
        raise Boom("__hash__")

    def __len__(self):
        raise Boom("__len__")

    def __iter__(self):
        raise Boom("__iter__")

    def __bool__(self):
        raise Boom("__bool__")

    def __repr__(self):
        raise Boom("__repr__")

    def __str__(self):
        raise Boom("__str__")

    def __dir__(self):
        raise Boom("__dir__")

    def __getattr__(self, name):
        raise Boom("__getattr__ %s" % name)


class NegativeLen:
    def __len__(self):
        return -1


class HugeLen:
    def __len__(self):
        return 2 ** 70


class HostileList(list):
    def __len__(self):
        raise Boom("len")

    def __iter__(self):
        raise Boom("iter")

    def __getitem__(self, i):
        raise Boom("getitem")


class HostileDict(dict):
    def items(self):
        raise Boom("items")

    def values(self):
        raise Boom("values")

    def keys(self):
        raise Boom("keys")

    def __iter__(self):
        raise Boom("iter")

    def __len__(self):
        raise Boom("len")

    def __eq__(self, other):
        raise Boom("eq")

    __hash__ = None


class HostileMeta(type):
    def __getattribute__(cls, name):
        raise Boom("class attribute %s" % name)


class OfHostileMeta(metaclass=HostileMeta):
    def __init__(self):
        self.z = 3


class Tensor:
    """Named like torch's, from a module named torch: everything it is asked raises."""
    __module__ = "torch"

    @property
    def shape(self):
        raise Boom("shape")

    @property
    def is_cuda(self):
        raise Boom("is_cuda")

    @property
    def grad(self):
        raise Boom("grad")

    def untyped_storage(self):
        raise Boom("untyped_storage")


class FakeNode:
    """Looks like an autograd node (the class defines next_functions) and lies in all of it."""

    @property
    def next_functions(self):
        raise Boom("next_functions")

    @property
    def _saved_self(self):
        raise Boom("_saved_self")

    def __dir__(self):
        return ["_saved_self", 12, None]


class FakeNode2:
    next_functions = ((None, 0), "not a pair", (EverythingExists(), 1))

    def __dir__(self):
        raise Boom("__dir__")


class Slots:
    __slots__ = ("a", "b")

    def __init__(self):
        self.a = [1]


class NonStrKeys:
    def __init__(self):
        self.__dict__[KeyLike()] = "value"  # a key whose str/repr raise
        self.__dict__[7] = "seven"


class KeyLike:
    def __hash__(self):
        return 1

    def __eq__(self, other):
        return self is other

    def __repr__(self):
        raise Boom("key repr")

    __str__ = __repr__


class HostileModule(types.ModuleType):
    def __getattribute__(self, name):
        if name in ("__dict__", "__name__", "__spec__", "__loader__", "__file__", "__path__"):
            return object.__getattribute__(self, name)
        raise Boom("module attribute %s" % name)

    def __getattr__(self, name):
        raise Boom("module attribute %s" % name)


def _generator():
    x = [1, 2, 3]
    yield x
    yield x


def build(huge=1_000_000):
    keep = []
    for k in range(200):  # dead weak proxies (and a few live ones)
        t = Target()
        keep.append(weakref.proxy(t))
        if k % 50 == 0:
            keep.append(t)  # alive
        del t
    f = lambda: None  # noqa: E731
    keep.append(weakref.proxy(f))  # callable proxy, dead below
    del f
    keep += [RaisingClass(), RaisingGetattribute(), RaisingGetattr(), EverythingExists(), RaisingDict(),
             LyingDict(), RaisingDunders(), NegativeLen(), HugeLen(), OfHostileMeta(), Tensor(), FakeNode(),
             FakeNode2(), Slots(), NonStrKeys()]
    for lie in (dict, list, types.FrameType, types.ModuleType, type, Tensor, weakref.ProxyType):
        keep.append(LyingClass(lie))
    hl = HostileList([1, 2, 3])
    hd = HostileDict(a=1, b=[2])
    keep += [hl, hd]
    selfish = []
    selfish.append(selfish)
    d = {}
    d["me"] = d
    keep += [selfish, d]
    cyc = Target()
    cyc.me = cyc
    keep.append(cyc)
    buf = array.array("d", range(1000))
    keep += [buf, memoryview(buf), collections.deque(range(100), maxlen=50), io.BytesIO(b"x" * 100),
             itertools.count(), itertools.cycle([1, 2]), re.compile(r"(a|b)+"), struct.Struct("<I"),
             zlib.compressobj(), (ctypes.c_int * 10)(), ctypes.c_char_p(b"abc"), sys._getframe(),
             _generator(), types.SimpleNamespace(a=1), (lambda v: (lambda: v))([1])]
    try:
        raise Boom("for a traceback")
    except Boom as e:
        keep.append(e.__traceback__)
    try:
        m = mmap.mmap(-1, 4096)
        keep.append(m)
    except (OSError, ValueError):
        pass
    con = sqlite3.connect(":memory:")
    keep.append(con)
    keep.append(list(range(huge)))                          # a huge container
    keep.append({i: str(i) for i in range(huge // 5)})     # another
    mod = HostileModule("vramscope_hostile_module")
    sys.modules["vramscope_hostile_module"] = mod
    keep.append(mod)
    return keep


def close(heap):
    """Closes what build() opened (a sqlite connection, an mmap): left to the collector, CPython 3.13
    warns about an unclosed database."""
    for o in heap or ():
        if type(o) in (sqlite3.Connection, mmap.mmap):  # isinstance() raises on the heap's dead proxies
            try:
                o.close()
            except Exception:
                pass


class Mutator:
    """Changes a dict, a list and an object's attributes from another thread until stopped."""

    def __init__(self):
        self.d, self.l, self.o = {}, [], Target()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        i = 0
        while not self._stop.is_set():
            i += 1
            self.d[i % 1000] = [i]
            if len(self.d) > 500:
                self.d.pop(next(iter(self.d)), None)
            self.l.append(Target())
            if len(self.l) > 500:
                del self.l[:250]
            setattr(self.o, "a%d" % (i % 300), [i])
            if i % 300 == 0:
                self.o.__dict__.clear()

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *a):
        self._stop.set()
        self._thread.join(5)
