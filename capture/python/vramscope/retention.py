"""Which Python objects keep chosen GPU blocks alive: the retention graph collector.

One pass over gc.get_objects()/gc.get_referents() builds a reverse index (never gc.get_referrers
in a loop); tensors are matched to blocks by their storage pointer; what gc cannot see is added as
labelled synthetic edges (.grad, grad_fn and the autograd graph with its saved tensors, custom
Function ctx attributes); roots are module globals, thread frames, objects held from C/C++ (their
refcount exceeds what tracked objects explain) and - decided by the viewer - unreachable cycles.
Only the ancestor subgraph of the blocks is kept. Pure Python; torch is only touched through
tensors found on the heap, so the graph logic is tested without it.

The walk runs inside the user's program and must survive any object on its heap: dead
weakref.proxy objects (whose every attribute raises ReferenceError, `isinstance` included, since it
reads `__class__`), objects whose `__class__`, `__getattr__`, `__getattribute__`, `__dict__`,
`__eq__`, `__hash__` or `__len__` raise or lie, C extension types, huge containers, objects that
other threads mutate meanwhile. So it asks objects nothing they can answer themselves: types come
from type() (never `__class__`), instance dicts from the type's own C descriptor (never a property
of the class), sizes and items from the base type's C methods (list.__len__, dict.items), ids key
every table (never `__hash__`/`__eq__`), and every object's edges are taken in a try of their own,
so that one bad object costs its own edges only. Big containers and the whole walk check a
deadline (`budget_s`): a walk that reaches it stops where it is and says so (Graph.truncated,
Graph.cut). Warnings that touching an object raises on this thread are not shown (they would be
the recorder's lines in the program's stderr); other threads' warnings are left alone.
"""
import gc
import itertools
import operator
import sys
import threading
import time
import types
import warnings
from bisect import bisect_right

# node kinds (docs/vscap.md, Retention record)
OBJECT, TENSOR, BLOCK, AUTOGRAD, ROOT_MODULE, ROOT_FRAME, ROOT_EXTERNAL, ROOT_POOL = 0, 1, 2, 3, 10, 11, 12, 13
# edge kinds
REF, LOCAL, GRAD, AUTOGRAD_EDGE, SAVED, STORAGE, ATTR = 0, 1, 2, 3, 4, 5, 6

_second = operator.itemgetter(1)
_CHECK_EVERY = 4096          # objects between two looks at the clock
_CHECK_REFERENTS = 1 << 16   # referents of one container between two looks at the clock

_type_dict = type.__dict__["__dict__"].__get__     # a class's own namespace, no metaclass involved
_type_mro = type.__dict__["__mro__"].__get__
_type_name_of = type.__dict__["__name__"].__get__
# getset_descriptor, member_descriptor: C code, no user code (a class's property is never asked)
_C_DESCRIPTORS = (type(type.__dict__["__dict__"]), type(types.ModuleType.__dict__["__dict__"]))


class Graph:
    """nodes: [kind, type_name, label, gpu_bytes, address]; edges: [src, dst, kind, label]."""

    def __init__(self):
        self.nodes, self.edges = [], []
        self.truncated = False
        self.cut = None        # why it was truncated: a sentence, or None
        self.objects = 0
        self.seconds = 0.0
        self.skipped = 0       # objects whose edges could not be read (they raised)


def type_name(t):
    try:
        name = _type_name_of(t)
        return name if type(name) is str else "?"
    except Exception:
        return "?"


def _is_sub(o, cls):
    """isinstance without asking the object (isinstance reads `__class__`, which may raise)."""
    try:
        return issubclass(type(o), cls)
    except Exception:
        return False


def _mro(t):
    try:
        m = _type_mro(t)
        return m if type(m) is tuple else (t,)
    except Exception:
        return (t,)


_dict_getters = {}  # id(type) -> the C getter of its instances' __dict__, or None


def _dict_getter(t):
    key = id(t)
    try:
        return _dict_getters[key]
    except KeyError:
        pass
    getter = None
    for k in _mro(t):
        try:
            ns = _type_dict(k)
            d = ns.get("__dict__") if ns is not None else None
        except Exception:
            break
        if d is not None:
            getter = d.__get__ if type(d) in _C_DESCRIPTORS else None  # a class's property: not asked
            break
    if len(_dict_getters) < 100000:
        _dict_getters[key] = getter
    return getter


def _owner_dict(o, t=None):
    """o's instance dict when its type keeps one the standard way, else None. Never calls code
    of the object's class (a `__dict__` property that raises or lies is not asked)."""
    t = type(o) if t is None else t
    if issubclass(t, type):
        return None
    getter = _dict_getter(t)
    if getter is None:
        return None
    try:
        d = getter(o, t)
    except Exception:
        return None
    return d if type(d) is dict else None


def describe(o):
    t = type(o)
    name = type_name(t)
    try:
        for base in (list, tuple, dict, set):
            if issubclass(t, base):
                return name, "%s len=%d" % (name, base.__len__(o))
        if issubclass(t, types.ModuleType):
            d = _owner_dict(o, t)
            mod = d.get("__name__") if d is not None else None
            return "module", "module %s" % (mod if type(mod) is str else "?")
        if t is types.FunctionType:
            q = o.__qualname__
            return "function", "function %s" % (q if type(q) is str else "?")
        if name in ("Tensor", "Parameter") or _tensor_type(t):
            return "Tensor", "Tensor%s %s" % (list(o.shape), str(o.dtype).replace("torch.", ""))
        if "Backward" in name or name.endswith("Function"):
            return name, name
    except Exception:
        pass
    return name, name


_tensor_types = {}


def _tensor_type(t):
    """A torch.Tensor (sub)class, told by its MRO's names (torch itself is not needed here)."""
    key = id(t)
    r = _tensor_types.get(key)
    if r is None:
        r = False
        for k in _mro(t):
            if type_name(k) == "Tensor" and getattr_static_module(k) == "torch":
                r = True
                break
        if len(_tensor_types) < 100000:
            _tensor_types[key] = r
    return r


def getattr_static_module(k):
    try:
        m = _type_dict(k).get("__module__")
        return m if type(m) is str else None
    except Exception:
        return None


_node_types = {}


def _autograd_node(t):
    """An autograd graph node type: one whose class (or a base) defines next_functions."""
    key = id(t)
    r = _node_types.get(key)
    if r is None:
        r = False
        for k in _mro(t):
            try:
                if "next_functions" in _type_dict(k):
                    r = True
                    break
            except Exception:
                break
        if len(_node_types) < 100000:
            _node_types[key] = r
    return r


class _Index:
    """Objects by position and, for each, who refers to it: a CSR table over the heap (the compiled
    index: offsets, sources), or a list per object (the Python fallback: rev), plus the entries
    linked afterwards (labelled edges, synthetic ones, stand-ins for frames and blocks: extra).
    A plain reference is the bare referrer index; any other entry is (referrer, kind, label)."""

    def __init__(self):
        self.objs = []
        self.heap = ()  # gc.get_objects()'s list
        self.pos = {}
        self.rev = []
        self.offsets = self.sources = None
        self.extra = {}
        self.skip = set()    # ids of the walk's own containers
        self.hidden = set()  # positions of objects that are never shown as holders (frames' locals dicts)

    def add(self, o):
        i = self.pos.get(id(o))
        if i is None:
            i = self.pos[id(o)] = len(self.objs)
            self.objs.append(o)
        return i

    def lists_holding(self, j):
        """How many of the walk's lists hold object j: gc.get_objects()'s list and idx.objs (the same
        list in the compiled index; objects added after the index are only in idx.objs)."""
        return 1 if self.objs is self.heap or j >= len(self.heap) else 2

    def link(self, j, entry):
        self.extra.setdefault(j, []).append(entry)

    def edge(self, src, dst_obj, kind=REF, label=None):
        j = self.pos.get(id(dst_obj))
        if j is not None and j != src:
            self.link(j, src if kind == REF and label is None else (src, kind, label))

    def refs(self, i, objs):
        """Plain references from i to each of objs (the fallback's hot loop: a map over their ids,
        no method call or tuple per edge)."""
        rev = self.rev
        for j in map(self.pos.get, map(id, objs)):
            if j is not None and j != i:
                rev[j].append(i)

    def referrers(self, j):
        out = []
        if self.offsets is not None and j + 1 < len(self.offsets):
            out.extend(self.sources[self.offsets[j]:self.offsets[j + 1]])
        if j < len(self.rev):
            out.extend(self.rev[j])
        out.extend(self.extra.get(j, ()))
        return out


class _Positions:
    """id -> position of the compiled index's objects (its table: a dict of a million ids would cost
    more than the index), and of the objects added after it."""

    def __init__(self, native, table):
        self.find, self.table = native.heap_find, table
        self.added = {}

    def get(self, key, default=None):
        i = self.added.get(key)
        if i is None:
            i = self.find(self.table, key)
            if i < 0:
                return default
        return i

    def __contains__(self, key):
        return self.get(key) is not None

    def __getitem__(self, key):
        i = self.get(key)
        if i is None:
            raise KeyError(key)
        return i

    def __setitem__(self, key, i):
        self.added[key] = i


def _entry(e):
    """A reverse edge as (src, kind, label) (plain references are kept as the bare index)."""
    return (e, REF, None) if type(e) is int else e


class _Deadline(Exception):
    pass


def _edges_of(idx, i, o, t, deadline, clock):
    """What the compiled index (_heap_index.cpp) reads of one object, in Python."""
    if t is types.FunctionType:
        # __globals__/__code__ are not retention; what a closure captured is
        for n, cell in enumerate(o.__closure__ or ()):
            idx.edge(i, cell, REF, "__closure__[%d]" % n)
        return
    if t is list or t is tuple or t is dict:
        # exact builtin containers: their items, read in place (no copy of a huge one), with the
        # clock looked at as they go; one mutated meanwhile by another thread stops with an error
        # (its remaining edges are lost, counted by the caller)
        items = dict.values(o) if t is dict else o
        keys = dict.keys(o) if t is dict else ()
        it = itertools.chain(keys, items)
        while True:
            chunk = list(itertools.islice(it, _CHECK_REFERENTS))
            idx.refs(i, chunk)
            if len(chunk) < _CHECK_REFERENTS:
                return
            if clock() > deadline:
                raise _Deadline()
    # C traversal into a new list: a snapshot, whatever other threads do. An instance dict is an
    # edge like any other here; _emit() folds it into its owner for the few edges it keeps.
    refs = gc.get_referents(o)
    for start in range(0, len(refs), _CHECK_REFERENTS):
        if start and clock() > deadline:
            raise _Deadline()
        idx.refs(i, [r for r in refs[start:start + _CHECK_REFERENTS] if r is not t])


def _python_build(idx, objs, progress=None, deadline=float("inf"), clock=time.monotonic):
    """The index in Python (when the compiled one is not there). Returns the number of objects
    whose edges could not be read; raises _Deadline when the clock passes the deadline."""
    for n, o in enumerate(objs):
        idx.add(o)
        if n % (16 * _CHECK_EVERY) == 0 and clock() > deadline:
            raise _Deadline()
    idx.rev = [[] for _ in range(len(objs))]
    failed = 0
    frame_type = types.FrameType
    for i in range(len(objs)):
        if i % _CHECK_EVERY == 0:
            if progress is not None and i % 100000 == 0:
                progress(i, len(objs))
            if clock() > deadline:
                raise _Deadline()
        o = objs[i]
        t = type(o)
        if t is frame_type or id(o) in idx.skip:
            continue
        try:
            _edges_of(idx, i, o, t, deadline, clock)
        except _Deadline:
            raise
        except Exception:
            failed += 1
    return failed


def _native_build(native, idx, objs, hit_types, progress=None, deadline=float("inf"), clock=time.monotonic):
    """The index by the compiled walk (_heap_index.cpp): the same edges as _python_build, ~20x
    faster. Returns (complete, hits): hits are the positions of objects of hit_types (a set of
    type ids, or None for all)."""
    if progress is not None:
        progress(0, len(objs))
    offsets, sources, closures, hits, complete, table = native.heap_index(objs, idx.skip, hit_types,
                                                                          max(0.0, deadline - clock()))
    idx.objs = objs
    idx.pos = _Positions(native, table)
    idx.offsets, idx.sources = memoryview(offsets).cast("I"), memoryview(sources).cast("I")
    cells = memoryview(closures).cast("I")
    for k in range(0, len(cells), 3):
        idx.link(cells[k], (cells[k + 1], REF, "__closure__[%d]" % cells[k + 2]))
    return complete, memoryview(hits).cast("I")


def _hit_types(native, objs, torch, tensor_types):
    """Ids of the types whose objects _tensors_and_autograd() looks at: tensors (tensor_types, else
    torch.Tensor) and autograd graph nodes; None (every object) when nothing says what a tensor is."""
    if tensor_types is None and torch is not None:
        tensor_types = (torch.Tensor,)
    if tensor_types is None:
        return None
    found = set()
    for t in native.heap_types(objs):
        try:
            if issubclass(t, tensor_types) or (torch is not None and _autograd_node(t)):
                found.add(id(t))
        except Exception:
            continue
    return found


def torch_storage(torch):
    """storage_of for real tensors: the data pointer of CUDA tensors."""
    tensor = torch.Tensor

    def storage_of(o):
        if issubclass(type(o), tensor) and o.is_cuda:
            return o.untyped_storage().data_ptr()
        return None
    return storage_of


def _storage_edge(idx, i, o, storage_of, starts, blocks, block_node):
    try:
        ptr = storage_of(o)
        if ptr is None or type(ptr) is not int:
            return
    except Exception:
        return
    k = bisect_right(starts, ptr) - 1
    if k >= 0 and ptr < blocks[k][0] + blocks[k][1]:
        idx.link(block_node[k], (i, STORAGE, "storage"))


def _synthetic(idx, i, o, torch, queue):
    """Edges gc cannot see: .grad, grad_fn and the autograd graph, saved tensors, ctx attributes."""
    t = type(o)
    if issubclass(t, torch.Tensor):
        try:
            g = o.grad if o.is_leaf else None
            fn = o.grad_fn
        except Exception:
            return
        try:
            hooks = o._backward_hooks  # held by the C++ tensor, invisible to gc
        except Exception:
            hooks = None
        for child, kind, label in ((g, GRAD, ".grad"), (fn, AUTOGRAD_EDGE, ".grad_fn"),
                                   (hooks, ATTR, "._backward_hooks")):
            if child is not None:
                new = id(child) not in idx.pos
                j = idx.add(child)
                idx.link(j, (i, kind, label))
                if new:
                    queue.append(j)
        return
    if not _autograd_node(t):
        return
    children = []
    for n, pair in enumerate(o.next_functions or ()):
        fn = pair[0] if type(pair) is tuple and pair else None
        if fn is not None:
            children.append((fn, AUTOGRAD_EDGE, ".next_functions[%d]" % n))
    for name in _saved_names(t):
        try:
            v = getattr(o, name)
        except Exception:
            continue
        seq = type(v) in (tuple, list)
        for m, x in enumerate(v if seq else [v]):
            if issubclass(type(x), torch.Tensor):
                children.append((x, SAVED, ".%s%s" % (name, "[%d]" % m if seq else "")))
    for fn, kind, label in children:
        new = id(fn) not in idx.pos
        j = idx.add(fn)
        idx.link(j, (i, kind, label))
        if new:
            queue.append(j)


_saved = {}  # id(type) -> the names of its saved tensors


def _saved_names(t):
    """The attributes of an autograd node type that hold saved tensors (`_saved_self`, ...) or the
    leaf (`variable`): read once per type from the type's own listing (type.__dir__, never a
    __dir__ of the class: dir() of every node was most of a walk over a kept autograd graph)."""
    key = id(t)
    names = _saved.get(key)
    if names is None:
        try:
            names = tuple(n for n in type.__dir__(t) if type(n) is str and (n.startswith("_saved_") or n == "variable"))
        except Exception:
            names = ()
        if len(_saved) < 100000:
            _saved[key] = names
    return names


def _frames(idx, skip_frames):
    roots = []
    for tid, f in list(sys._current_frames().items()):
        depth = 0
        while f is not None and depth < 10000:
            depth += 1
            try:
                code = f.f_code
                if code.co_filename != __file__ and id(f) not in skip_frames:
                    name = "frame %s (%s:%d)" % (code.co_name, code.co_filename.rsplit("/", 1)[-1], f.f_lineno)
                    r = idx.add(("frame", tid, id(f)))  # a stand-in: frames themselves are not followed
                    roots.append((r, name))
                    local = f.f_locals
                    if type(local) is dict and local is not f.f_globals:
                        # up to 3.12 the frame keeps this dict (made by an earlier walk's look): its
                        # items are the frame's locals, already edges of their own, so it is no holder
                        j = idx.pos.get(id(local))
                        if j is not None:
                            idx.hidden.add(j)
                    for k, v in list(local.items()):
                        idx.edge(r, v, LOCAL, "local '%s'" % (k if type(k) is str else "?"))
            except Exception:
                pass
            f = f.f_back
    return roots


_NEVER_EXTERNAL = (tuple, types.ModuleType, type)


def _external(idx, j, o):
    """Held from C/C++: no tracked object refers to o (= idx.objs[j]), yet something holds a
    reference (a C++ autograd node holding its ctx, an extension's static...). Objects with Python
    referrers are explained by them; objects in unreachable cycles are the viewer's "garbage" verdict."""
    t = type(o)
    if issubclass(t, _NEVER_EXTERNAL) or type_name(t) in ("Tensor", "Parameter") or _tensor_type(t):
        return False  # tuples are shared by the interpreter; tensors' C++ side owns their wrapper
    if any(type(e) is int or e[1] in (REF, ATTR, LOCAL) for e in idx.referrers(j)):
        return False
    rc = sys.getrefcount(o)
    # ours: the lists holding it (gc.get_objects()'s and idx.objs, one list in the compiled index),
    # the caller's `o`, this function's `o`, getrefcount's argument
    return (1 << 29) > rc > idx.lists_holding(j) + 3


class _Position:
    """A position in a list or tuple (told apart from a dict's int key)."""
    __slots__ = ("i",)

    def __init__(self, i):
        self.i = i


def _items_holding(r, targets):
    """(key, target) for each item of the dict, list or tuple r that is one of targets ({id: target}):
    the dict key, or the position as an _Position; nothing for another object. The items are found
    by C iterators (a 200k-item list: 10 ms, not 250 in a Python loop); raises what r's base type
    raises (a container mutated meanwhile)."""
    t = type(r)
    if issubclass(t, dict):
        pairs = list(dict.items(r))
        values = list(map(_second, pairs))
    elif issubclass(t, (list, tuple)):
        pairs, values = None, list((list if issubclass(t, list) else tuple).__iter__(r))
    else:
        return
    for k in itertools.compress(range(len(values)), map(targets.__contains__, map(id, values))):
        yield (pairs[k][0] if pairs is not None else _Position(k)), targets[id(values[k])]


def _places(idx, edges, deadline=float("inf"), clock=time.monotonic):
    """{(src, dst): "[key]" or "[n]"}: where each kept edge's target sits in its source when the
    source is a dict, list or tuple. One pass over each such source for all its kept edges (a
    60,000-item list holding 600 kept objects was searched 600 times before: 1.4 s of a 2.6 s walk).
    Past the deadline the remaining sources are not looked at (their edges go unlabelled)."""
    wanted = {}
    for src, dst in edges:
        wanted.setdefault(src, {})[id(idx.objs[dst])] = dst
    places = {}
    for src, targets in wanted.items():
        if clock() > deadline:
            break
        r = idx.objs[src]
        try:
            for key, dst in _items_holding(r, targets):
                if (src, dst) in places:
                    continue
                if type(key) is _Position:
                    places[src, dst] = "[%d]" % key.i
                else:
                    places[src, dst] = "[%r]" % (key,) if type(key) in (int, str) else \
                        "[<%s>]" % type_name(type(key))  # e.g. optimizer.state[<Parameter>]
        except Exception:
            continue
    return places


def _edge_label(idx, src, dst, kind, label, places=None):
    """(kind, label) of an edge of the output graph; labels are made here, for the few kept.
    places: _places() of the kept edges (an item of a dict, list or tuple)."""
    if label is not None:
        if kind == ATTR and label and not label.startswith("."):
            return kind, "." + label
        return kind, label
    if places is not None and (src, dst) in places:
        return kind, places[src, dst]
    r, o = idx.objs[src], idx.objs[dst]
    try:
        t = type(r)
        if issubclass(t, (dict, list, tuple)):
            pass  # _places() looked already: not found there (mutated meanwhile), no label
        elif t is types.CellType:
            return kind, "cell_contents"
        elif kind == REF:  # an attribute kept inline (no __dict__ was made for it during the walk)
            d = _owner_dict(r, t)
            if d is not None:
                for k, v in list(dict.items(d)):
                    if v is o and type(k) is str:
                        return ATTR, "." + k
            name = _slot_holding(r, t, o)
            if name is not None:
                return ATTR, "." + name
    except Exception:
        pass
    return kind, ""


_MEMBER = type(types.FunctionType.__dict__["__globals__"])  # a __slots__ entry's descriptor (C code)


def _slot_holding(r, t, o):
    """The name of r's __slots__ entry that holds o, read through the classes' own C descriptors."""
    for k in _mro(t):
        try:
            ns = _type_dict(k)
        except Exception:
            return None
        for name, d in list(ns.items()) if type(ns) is types.MappingProxyType else ():
            if type(d) is _MEMBER and type(name) is str:
                try:
                    if d.__get__(r, t) is o:
                        return name
                except Exception:
                    continue
    return None


class _QuietWarnings:
    """Warnings raised on this thread while it walks are not shown; other threads' are."""

    def __enter__(self):
        me = threading.get_ident()
        prev = self.prev = warnings.showwarning

        def show(message, category, filename, lineno, file=None, line=None):
            if threading.get_ident() == me:
                return None
            return prev(message, category, filename, lineno, file, line)
        self.show = show
        warnings.showwarning = show
        return self

    def __exit__(self, *exc):
        if warnings.showwarning is self.show:
            warnings.showwarning = self.prev
        return False


def collect(blocks, torch=None, budget_s=30.0, max_nodes=50000, storage_of=None, progress=None,
            clock=time.monotonic, native=None, tensor_types=None):
    """blocks: [(address, size)] or [(address, size, pool)] of one device; a pool other than None
    or (0, 0) is a CUDA graph's private pool. Returns a Graph of the blocks' ancestors up to roots.
    storage_of(o) -> address or None says which objects own block memory (default: CUDA tensors);
    it is asked of instances of tensor_types (default torch.Tensor; without torch, of every object).
    native: a module with heap_index()/heap_types() (the tracker, _heap_index.cpp) to index the heap
    with; None: the Python fallback. progress(done, total) is called as objects are scanned. The
    walk stops after budget_s seconds wherever it is (Graph.truncated, Graph.cut say so) and never
    raises for an object."""
    if storage_of is None and torch is not None:
        storage_of = torch_storage(torch)
    if not getattr(sys, "_is_gil_enabled", lambda: True)():
        native = None  # a free-threaded Python runs other threads during the walk: the Python index only
    t0 = clock()
    # what follows the cut (roots, the kept subgraph, letting go of the index) takes a little too
    deadline = t0 + max(0.0, budget_s - min(0.1 * budget_s, 0.05))
    g = Graph()
    blocks = sorted(blocks)
    starts = [b[0] for b in blocks]
    was_enabled = gc.isenabled()
    gc.disable()  # no collection while we hold the heap (and never collect for the user)
    objs = idx = None
    try:
        with _QuietWarnings():
            objs = gc.get_objects()
            g.objects = len(objs)
            idx = _Index()
            idx.heap = objs
            idx.skip.update({id(objs), id(blocks), id(starts)})
            here = sys._getframe()
            skip_frames = set()
            while here is not None and here.f_code.co_filename == __file__:
                skip_frames.add(id(here))  # the collector's own frames
                here = here.f_back
            hits = None  # the positions _tensors_and_autograd() looks at: all of them
            try:
                if native is not None:
                    complete, hits = _native_build(native, idx, objs, _hit_types(native, objs, torch, tensor_types),
                                                   progress, deadline, clock)
                    if not complete:
                        raise _Deadline()
                else:
                    g.skipped = _python_build(idx, objs, progress, deadline, clock)
            except _Deadline:
                g.truncated = True
                g.cut = "stopped after %.2f s while indexing %d objects (budget %.2f s)" % (
                    clock() - t0, len(objs), budget_s)
            module_roots = []
            for name, m in list(sys.modules.items()):
                if id(m) in idx.pos:
                    module_roots.append((idx.pos[id(m)], "module %s" % (name if type(name) is str else "?")))
            frame_roots = _frames(idx, skip_frames)
            block_node = [idx.add(("block", b[0])) for b in blocks]
            pool_roots = []
            for k, b in enumerate(blocks):  # a CUDA graph's private pool keeps its blocks by itself
                pool = tuple(b[2]) if len(b) > 2 and b[2] else (0, 0)
                if pool != (0, 0):
                    r = idx.add(("pool", pool))
                    idx.link(block_node[k], (r, REF, "private pool"))
                    pool_roots.append((r, "CUDA graph pool (%d, %d)" % pool))
            frame_roots = frame_roots + pool_roots
            if not g.truncated:
                _tensors_and_autograd(g, idx, range(len(objs)) if hits is None else hits, torch, storage_of,
                                      tensor_types, starts, blocks, block_node, deadline, clock, t0, budget_s)
            _emit(g, idx, blocks, block_node, module_roots, frame_roots, max_nodes, deadline, clock)
    finally:
        objs = idx = None  # noqa: F841 (drop the heap before gc may run again)
        if was_enabled:
            gc.enable()
    g.seconds = clock() - t0
    return g


def _tensors_and_autograd(g, idx, positions, torch, storage_of, tensor_types, starts, blocks, block_node,
                          deadline, clock, t0, budget_s):
    if tensor_types is not None and storage_of is not None:
        owns = storage_of

        def storage_of(o):  # noqa: F811 (asked of tensors only, as the compiled index does)
            return owns(o) if issubclass(type(o), tensor_types) else None
    queue = []
    for n, i in enumerate(positions):
        if n % _CHECK_EVERY == 0 and clock() > deadline:
            g.truncated = True
            g.cut = "stopped after %.2f s while matching tensors to blocks (budget %.2f s)" % (clock() - t0, budget_s)
            return
        o = idx.objs[i]
        if storage_of is not None:
            _storage_edge(idx, i, o, storage_of, starts, blocks, block_node)
        if torch is not None:
            try:
                _synthetic(idx, i, o, torch, queue)
            except Exception:
                g.skipped += 1
    steps = 0
    while queue:  # the autograd graph and what it saves, found through grad_fn
        j = queue.pop()
        o = idx.objs[j]
        if storage_of is not None:
            _storage_edge(idx, j, o, storage_of, starts, blocks, block_node)
        try:
            _synthetic(idx, j, o, torch, queue)
        except Exception:
            g.skipped += 1
        steps += 1
        if steps % 256 == 0 and clock() > deadline:
            g.truncated = True
            g.cut = "stopped after %.2f s while following the autograd graph (budget %.2f s)" % (
                clock() - t0, budget_s)
            break


class _Holders:
    """Who holds an object, for the graph: the index's referrers, with instance dicts folded into
    their owners (the edge dict -> value is shown as owner -> value, named after the attribute;
    the dict is not a node). Owners are only looked for among a kept dict's referrers."""

    def __init__(self, idx):
        self.idx = idx
        self.owners = {}  # dict position -> its owner's position, or None
        self.via = {}     # (owner, held) -> the folded dict's position

    def of(self, j):
        """(src, kind, label) of each holder of j."""
        objs, hidden = self.idx.objs, self.idx.hidden
        for e in self.idx.referrers(j):
            if (e if type(e) is int else e[0]) in hidden:
                continue
            if type(e) is int and type(objs[e]) is dict:
                w = self._owner(e)
                if w is not None:
                    self.via[w, j] = e
                    yield w, ATTR, None
                    continue
            yield _entry(e)

    def _owner(self, d):
        if d in self.owners:
            return self.owners[d]
        found = None
        held = self.idx.objs[d]
        for e in self.idx.referrers(d):
            if type(e) is not int:
                continue
            o = self.idx.objs[e]
            t = type(o)
            try:
                # only an object whose dict already exists is asked for it (asking makes one)
                if t is not dict and _dict_getter(t) is not None and any(r is held for r in gc.get_referents(o)) \
                        and _owner_dict(o, t) is held:
                    found = e
                    break
            except Exception:
                continue
        self.owners[d] = found
        return found

    def names(self):
        """{(owner, held): attribute name} of the folded edges: one pass over each folded dict."""
        wanted = {}
        for (w, j), d in self.via.items():
            wanted.setdefault(d, {})[id(self.idx.objs[j])] = (w, j)
        names = {}
        for d, targets in wanted.items():
            try:
                for k, pair in _items_holding(self.idx.objs[d], targets):
                    if pair not in names:
                        names[pair] = k if type(k) is str else "<%s>" % type_name(type(k))
            except Exception:
                continue
        return names


def _emit(g, idx, blocks, block_node, module_roots, frame_roots, max_nodes, deadline, clock):
    roots = dict(module_roots)
    roots.update(frame_roots)
    holders = _Holders(idx)
    out = {}  # index -> output node
    order = []
    frontier = list(block_node)
    for j in frontier:
        out[j] = len(order)
        order.append(j)
    head = 0
    while head < len(frontier):  # reverse BFS: ancestors of the blocks, stopping at roots
        j = frontier[head]
        head += 1
        if j in roots:
            continue
        if len(order) >= max_nodes or (head % 256 == 0 and clock() > deadline):
            g.truncated = True
            g.cut = g.cut or ("kept the first %d nodes" % max_nodes if len(order) >= max_nodes
                              else "stopped while gathering the holders (budget spent)")
            break
        for src, _, _ in holders.of(j):
            if src not in out:
                out[src] = len(order)
                order.append(src)
                frontier.append(src)
    block_at = {j: k for k, j in enumerate(block_node)}
    for j in order:
        g.nodes.append(_node(idx, j, blocks, block_at, roots))
    kept = [(src, j, kind, label) for j in order for src, kind, label in holders.of(j) if src in out]
    names = holders.names()
    places = _places(idx, [(src, j) for src, j, kind, label in kept if label is None and kind != ATTR],
                     deadline + 0.05, clock)
    for src, j, kind, label in kept:
        if kind == ATTR and label is None:
            label = names.get((src, j), "")
        g.edges.append([out[src], out[j], *_edge_label(idx, src, j, kind, label, places)])


def _node(idx, j, blocks, block_at, roots):
    """The output node of position j: [kind, type name, label, bytes, address]."""
    if j in block_at:
        addr, size = blocks[block_at[j]][:2]
        return [BLOCK, "block", "block 0x%x" % addr, size, addr]
    if j in roots:
        kind = ROOT_MODULE if roots[j].startswith("module") else \
            ROOT_POOL if roots[j].startswith("CUDA graph pool") else ROOT_FRAME
        tname = "pool" if kind == ROOT_POOL else roots[j].split(" ", 1)[0]
        return [kind, tname, roots[j], 0, 0]
    o = idx.objs[j]
    tname, label = describe(o)
    kind = TENSOR if tname == "Tensor" else AUTOGRAD if _autograd_node(type(o)) else OBJECT
    try:
        if _external(idx, j, o):
            kind, label = ROOT_EXTERNAL, "held from C/C++: " + label
    except Exception:
        pass
    return [kind, tname, label, 0, 0]
