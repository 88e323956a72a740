"""Which Python objects keep chosen GPU blocks alive: the retention graph collector.

One pass over gc.get_objects()/gc.get_referents() builds a reverse index (never gc.get_referrers
in a loop); tensors are matched to blocks by their storage pointer; what gc cannot see is added as
labelled synthetic edges (.grad, grad_fn and the autograd graph with its saved tensors, custom
Function ctx attributes); roots are module globals, thread frames, objects held from C/C++ (their
refcount exceeds what tracked objects explain) and - decided by the viewer - unreachable cycles.
Only the ancestor subgraph of the blocks is kept. Pure Python; torch is only touched through
tensors found on the heap, so the graph logic is tested without it.
"""
import gc
import sys
import time
import types
import warnings
from bisect import bisect_right

# node kinds (docs/vscap.md, Retention record)
OBJECT, TENSOR, BLOCK, AUTOGRAD, ROOT_MODULE, ROOT_FRAME, ROOT_EXTERNAL, ROOT_POOL = 0, 1, 2, 3, 10, 11, 12, 13
# edge kinds
REF, LOCAL, GRAD, AUTOGRAD_EDGE, SAVED, STORAGE, ATTR = 0, 1, 2, 3, 4, 5, 6


class Graph:
    """nodes: [kind, type_name, label, gpu_bytes, address]; edges: [src, dst, kind, label]."""

    def __init__(self):
        self.nodes, self.edges = [], []
        self.truncated = False
        self.objects = 0
        self.seconds = 0.0


def describe(o):
    t = type(o)
    name = t.__name__
    try:
        if isinstance(o, (list, tuple, dict, set)):
            return name, "%s len=%d" % (name, len(o))
        if isinstance(o, types.ModuleType):
            return "module", "module %s" % o.__name__
        if isinstance(o, types.FunctionType):
            return "function", "function %s" % o.__qualname__
        if hasattr(o, "untyped_storage") and hasattr(o, "shape"):
            return "Tensor", "Tensor%s %s" % (list(o.shape), str(o.dtype).replace("torch.", ""))
        if "Backward" in name or name.endswith("Function"):
            return name, name
    except Exception:
        pass
    return name, name


class _Index:
    """Objects by position, forward edges with lazy labels, and the reverse adjacency."""

    def __init__(self):
        self.objs = []
        self.pos = {}
        self.rev = []     # rev[j] = [(i, kind, label)]: i refers to j
        self.skip = set()  # ids of instance/module dicts (folded into their owner) and our own

    def add(self, o):
        i = self.pos.get(id(o))
        if i is None:
            i = self.pos[id(o)] = len(self.objs)
            self.objs.append(o)
            self.rev.append([])
        return i

    def edge(self, src, dst_obj, kind=REF, label=None):
        j = self.pos.get(id(dst_obj))
        if j is not None and j != src:
            self.rev[j].append((src, kind, label))


def _owner_dict(o):
    try:
        d = object.__getattribute__(o, "__dict__")
    except Exception:
        return None
    return d if type(d) is dict else None


def _build(idx, objs, frames_to_skip, progress=None):
    for o in objs:
        idx.add(o)
    for i in range(len(objs)):
        if progress is not None and i % 100000 == 0:
            progress(i, len(objs))
        o = objs[i]
        if isinstance(o, types.FrameType) or id(o) in idx.skip:
            continue
        d = None if isinstance(o, type) else _owner_dict(o)
        if d is not None:
            idx.skip.add(id(d))
            for k, v in d.items():
                idx.edge(i, v, ATTR, ".%s" % k)
        if isinstance(o, types.FunctionType):
            # __globals__/__code__ are not retention; what a closure captured is
            for n, cell in enumerate(o.__closure__ or ()):
                idx.edge(i, cell, REF, "__closure__[%d]" % n)
            continue
        t = type(o)
        for r in gc.get_referents(o):
            if r is d or r is t:
                continue
            idx.edge(i, r)


def torch_storage(torch):
    """storage_of for real tensors: the data pointer of CUDA tensors."""
    def storage_of(o):
        if isinstance(o, torch.Tensor) and o.is_cuda:
            return o.untyped_storage().data_ptr()
        return None
    return storage_of


def _storage_edge(idx, i, o, storage_of, starts, blocks, block_node):
    try:
        ptr = storage_of(o)
    except Exception:
        return
    if ptr is None:
        return
    k = bisect_right(starts, ptr) - 1
    if k >= 0 and ptr < blocks[k][0] + blocks[k][1]:
        idx.rev[block_node[k]].append((i, STORAGE, "storage"))


def _synthetic(idx, i, o, torch, queue):
    """Edges gc cannot see: .grad, grad_fn and the autograd graph, saved tensors, ctx attributes."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if isinstance(o, torch.Tensor):
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
                    idx.rev[j].append((i, kind, label))
                    if new:
                        queue.append(j)
            return
        if not hasattr(o, "next_functions"):
            return
        children = []
        for n, (fn, _) in enumerate(getattr(o, "next_functions", ()) or ()):
            if fn is not None:
                children.append((fn, AUTOGRAD_EDGE, ".next_functions[%d]" % n))
        for name in dir(o):
            if name.startswith("_saved_") or name == "variable":
                try:
                    v = getattr(o, name)
                except Exception:
                    continue
                for m, x in enumerate(v if isinstance(v, (tuple, list)) else [v]):
                    if isinstance(x, torch.Tensor):
                        children.append((x, SAVED, ".%s%s" % (name, "[%d]" % m if isinstance(v, (tuple, list)) else "")))
        for fn, kind, label in children:
            new = id(fn) not in idx.pos
            j = idx.add(fn)
            idx.rev[j].append((i, kind, label))
            if new:
                queue.append(j)


def _frames(idx, skip_frames):
    roots = []
    for tid, f in sys._current_frames().items():
        while f is not None:
            if f.f_code.co_filename != __file__ and id(f) not in skip_frames:
                name = "frame %s (%s:%d)" % (f.f_code.co_name, f.f_code.co_filename.rsplit("/", 1)[-1], f.f_lineno)
                r = idx.add(("frame", tid, id(f)))  # a stand-in: frames themselves are not followed
                roots.append((r, name))
                for k, v in list(f.f_locals.items()):
                    idx.edge(r, v, LOCAL, "local '%s'" % k)
            f = f.f_back
    return roots


def _external(idx, j):
    """Held from C/C++: no tracked object refers to it, yet something holds a reference (a C++
    autograd node holding its ctx, an extension's static...). Objects with Python referrers are
    explained by them; objects in unreachable cycles are the viewer's "garbage" verdict."""
    o = idx.objs[j]
    if isinstance(o, (tuple, types.ModuleType, type)) or type(o).__name__ in ("Tensor", "Parameter"):
        return False  # tuples are shared by the interpreter; tensors' C++ side owns their wrapper
    if any(kind in (REF, ATTR, LOCAL) for (_, kind, _) in idx.rev[j]):
        return False
    rc = sys.getrefcount(o)
    # ours: gc.get_objects()'s list, idx.objs, the local `o`, getrefcount's argument
    return (1 << 29) > rc > 4


def _edge_label(idx, src, dst, label):
    if label is not None:
        return label
    r, o = idx.objs[src], idx.objs[dst]
    try:
        if isinstance(r, dict):
            for k, v in r.items():
                if v is o:
                    if isinstance(k, (int, str)):
                        return "[%r]" % (k,)
                    return "[<%s>]" % type(k).__name__  # e.g. optimizer.state[<Parameter>]
        elif isinstance(r, (list, tuple)):
            for n, v in enumerate(r):
                if v is o:
                    return "[%d]" % n
        elif isinstance(r, types.CellType):
            return "cell_contents"
    except Exception:
        pass
    return ""


def collect(blocks, torch=None, budget_s=30.0, max_nodes=50000, storage_of=None, progress=None):
    """blocks: [(address, size)] or [(address, size, pool)] of one device; a pool other than None
    or (0, 0) is a CUDA graph's private pool. Returns a Graph of the blocks' ancestors up to roots.
    storage_of(o) -> address or None says which objects own block memory (default: CUDA tensors).
    progress(done, total) is called every 100k objects scanned."""
    if storage_of is None and torch is not None:
        storage_of = torch_storage(torch)
    t0 = time.monotonic()
    g = Graph()
    blocks = sorted(blocks)
    starts = [b[0] for b in blocks]
    was_enabled = gc.isenabled()
    gc.disable()  # no collection while we hold the heap (and never collect for the user)
    caught = warnings.catch_warnings()
    caught.__enter__()
    warnings.simplefilter("ignore")  # isinstance() on lazy modules' objects warns about deprecations
    try:
        objs = gc.get_objects()
        g.objects = len(objs)
        idx = _Index()
        idx.skip.update({id(objs), id(idx.objs), id(idx.pos), id(idx.rev), id(blocks), id(starts)})
        here = sys._getframe()
        skip_frames = set()
        while here is not None and here.f_code.co_filename == __file__:
            skip_frames.add(id(here))  # the collector's own frames
            here = here.f_back
        _build(idx, objs, skip_frames, progress)
        module_roots = [(idx.pos[id(m)], "module %s" % name) for name, m in list(sys.modules.items())
                        if id(m) in idx.pos]
        frame_roots = _frames(idx, skip_frames)
        block_node = [idx.add(("block", b[0])) for b in blocks]
        pool_roots = []
        for k, b in enumerate(blocks):  # a CUDA graph's private pool keeps its blocks by itself
            pool = tuple(b[2]) if len(b) > 2 and b[2] else (0, 0)
            if pool != (0, 0):
                r = idx.add(("pool", pool))
                idx.rev[block_node[k]].append((r, REF, "private pool"))
                pool_roots.append((r, "CUDA graph pool (%d, %d)" % pool))
        frame_roots = frame_roots + pool_roots
        queue = []
        for i in range(len(objs)):
            o = idx.objs[i]
            if storage_of is not None:
                _storage_edge(idx, i, o, storage_of, starts, blocks, block_node)
            if torch is not None and isinstance(o, torch.Tensor):
                _synthetic(idx, i, o, torch, queue)
        while queue:  # the autograd graph and what it saves, found through grad_fn
            j = queue.pop()
            o = idx.objs[j]
            _storage_edge(idx, j, o, storage_of, starts, blocks, block_node)
            _synthetic(idx, j, o, torch, queue)
            if time.monotonic() - t0 > budget_s:
                g.truncated = True
                break
        _emit(g, idx, blocks, block_node, module_roots, frame_roots, max_nodes, t0, budget_s)
    finally:
        caught.__exit__(None, None, None)
        if was_enabled:
            gc.enable()
    g.seconds = time.monotonic() - t0
    return g


def _emit(g, idx, blocks, block_node, module_roots, frame_roots, max_nodes, t0, budget_s):
    roots = dict(module_roots)
    roots.update(frame_roots)
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
        if len(order) >= max_nodes or time.monotonic() - t0 > budget_s:
            g.truncated = True
            break
        for (src, _, _) in idx.rev[j]:
            if src not in out:
                out[src] = len(order)
                order.append(src)
                frontier.append(src)
    block_at = {j: k for k, j in enumerate(block_node)}
    for j in order:
        o = idx.objs[j]
        if j in block_at:
            addr, size = blocks[block_at[j]][:2]
            g.nodes.append([BLOCK, "block", "block 0x%x" % addr, size, addr])
        elif j in roots:
            kind = ROOT_MODULE if roots[j].startswith("module") else \
                ROOT_POOL if roots[j].startswith("CUDA graph pool") else ROOT_FRAME
            tname = "pool" if kind == ROOT_POOL else roots[j].split(" ", 1)[0]
            g.nodes.append([kind, tname, roots[j], 0, 0])
        else:
            tname, label = describe(o)
            kind = TENSOR if tname == "Tensor" else AUTOGRAD if hasattr(o, "next_functions") else OBJECT
            if _external(idx, j):
                kind, label = ROOT_EXTERNAL, "held from C/C++: " + label
            g.nodes.append([kind, tname, label, 0, 0])
    for j in order:
        for (src, kind, label) in idx.rev[j]:
            if src in out:
                g.edges.append([out[src], out[j], kind, _edge_label(idx, src, j, label)])
