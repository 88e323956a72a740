// The retention walk's reverse index of the heap (retention.py, _native_build): who refers to whom,
// over the objects gc.get_objects() returned, as a CSR table. Written in C because the walk runs
// inside the user's program while it stands still: the Python loop (_python_build) costs ~2 µs an
// object, this ~0.1 µs, so the graph at exit of a program with a 700k-object heap takes a few per
// cent of a short run instead of being cut at its pause budget. No library does this (it is
// CPython's gc.get_referents over every object, into one table).
//
// It reads exactly what the Python fallback reads, and nothing runs user code: an exact list,
// tuple or dict gives its items (dict: keys and values), an exact function the cells of its closure
// (labelled), a frame nothing (locals are read by retention._frames), anything else what its type's
// tp_traverse visits (gc.get_referents) but its type. Only references to objects of the list count;
// self-references do not. The caller holds the GIL throughout, so nothing changes meanwhile.
#define PY_SSIZE_T_CLEAN
#include "_heap_index.h"

#include <frameobject.h> // PyFrame_Type (in Python.h only since 3.11)

#include <chrono>
#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

namespace vramscope_heap {
namespace {

// Object address -> position in the list: open addressing (the heap has ~1M objects and ~5M
// references are looked up; std::unordered_map's node per entry would double the walk).
class PositionTable {
  public:
    explicit PositionTable(size_t n) {
        size_t cap = 16;
        while (cap < 2 * n) cap <<= 1;
        keys_.assign(cap, nullptr), values_.resize(cap), mask_ = cap - 1;
    }
    void put(PyObject* o, uint32_t i) {
        size_t k = slot(o);
        while (keys_[k] && keys_[k] != o) k = (k + 1) & mask_;
        if (!keys_[k]) keys_[k] = o, values_[k] = i; // a duplicate keeps its first position
    }
    static constexpr uint32_t missing = UINT32_MAX;
    uint32_t find(PyObject* o) const {
        for (size_t k = slot(o);; k = (k + 1) & mask_) {
            if (keys_[k] == o) return values_[k];
            if (!keys_[k]) return missing;
        }
    }

  private:
    size_t slot(PyObject* o) const {
        return static_cast<size_t>((reinterpret_cast<uintptr_t>(o) >> 4) * 0x9E3779B97F4A7C15ull >> 20) &
               mask_;
    }
    std::vector<PyObject*> keys_;
    std::vector<uint32_t> values_;
    size_t mask_ = 0;
};

using Clock = std::chrono::steady_clock;
constexpr size_t kCheckEvery = 4096;        // objects between two looks at the clock
constexpr Py_ssize_t kCheckItems = 1 << 16; // items of one container between two looks at the clock

struct Walk {
    const PositionTable& pos;
    Clock::time_point deadline;
    std::vector<uint64_t> edges;    // (referent << 32) | referrer, in the order found
    std::vector<uint32_t> closures; // (cell, function, n) triples: labelled "__closure__[n]"
    uint32_t self = 0;              // the referrer being read
    PyObject* selfType = nullptr;   // its type: not an edge

    void edge(PyObject* to) {
        const uint32_t j = pos.find(to);
        if (j != PositionTable::missing && j != self) edges.push_back(uint64_t{j} << 32 | self);
    }
    bool late() const { return Clock::now() > deadline; }

    static int visit(PyObject* to, void* arg) {
        auto* w = static_cast<Walk*>(arg);
        if (to != w->selfType) w->edge(to);
        return 0;
    }

    // false when the deadline passed inside a big container
    bool items(PyObject* const* item, Py_ssize_t n) {
        for (Py_ssize_t k = 0; k < n; ++k) {
            if (k && k % kCheckItems == 0 && late()) return false;
            edge(item[k]);
        }
        return true;
    }
    bool dict(PyObject* d) {
        Py_ssize_t at = 0, k = 0;
        PyObject *key, *value;
        while (PyDict_Next(d, &at, &key, &value)) {
            if (++k % kCheckItems == 0 && late()) return false;
            edge(key), edge(value);
        }
        return true;
    }
    void closure(PyObject* fn) {
        PyObject* cells = PyFunction_GET_CLOSURE(fn);
        if (!cells || !PyTuple_CheckExact(cells)) return;
        for (Py_ssize_t n = 0; n < PyTuple_GET_SIZE(cells); ++n) {
            const uint32_t j = pos.find(PyTuple_GET_ITEM(cells, n));
            if (j != PositionTable::missing && j != self)
                closures.insert(closures.end(), {j, self, static_cast<uint32_t>(n)});
        }
    }
    // false when the deadline passed
    bool object(PyObject* o) {
        if (PyList_CheckExact(o)) return items(PySequence_Fast_ITEMS(o), PyList_GET_SIZE(o));
        if (PyTuple_CheckExact(o)) return items(PySequence_Fast_ITEMS(o), PyTuple_GET_SIZE(o));
        if (PyDict_CheckExact(o)) return dict(o);
        if (Py_TYPE(o) == &PyFunction_Type) return closure(o), true;
        if (Py_TYPE(o) == &PyFrame_Type || !PyObject_IS_GC(o)) return true;
        if (traverseproc traverse = Py_TYPE(o)->tp_traverse) {
            selfType = reinterpret_cast<PyObject*>(Py_TYPE(o));
            traverse(o, &Walk::visit, this);
        }
        return true;
    }
};

bool readIds(PyObject* set, std::unordered_set<uintptr_t>& out) {
    if (set == Py_None) return true;
    PyObject* it = PyObject_GetIter(set);
    if (!it) return false;
    while (PyObject* v = PyIter_Next(it)) {
        out.insert(reinterpret_cast<uintptr_t>(PyLong_AsVoidPtr(v)));
        Py_DECREF(v);
    }
    Py_DECREF(it);
    return !PyErr_Occurred();
}

PyObject* bytesOf(const std::vector<uint32_t>& v) {
    return PyBytes_FromStringAndSize(reinterpret_cast<const char*>(v.data()),
                                     static_cast<Py_ssize_t>(v.size() * sizeof(uint32_t)));
}

// The edges by referent (CSR): offsets[j]..offsets[j+1] index the referrers of j, in the order found.
void byReferent(const std::vector<uint64_t>& edges, size_t n, std::vector<uint32_t>& offsets,
                std::vector<uint32_t>& sources) {
    offsets.assign(n + 1, 0);
    for (uint64_t e : edges) ++offsets[(e >> 32) + 1];
    for (size_t j = 0; j < n; ++j) offsets[j + 1] += offsets[j];
    std::vector<uint32_t> next(offsets.begin(), offsets.end() - 1);
    sources.resize(edges.size());
    for (uint64_t e : edges) sources[next[e >> 32]++] = static_cast<uint32_t>(e);
}

// heap_types(objs) -> the distinct types of the list's objects, in order of first appearance.
PyObject* heapTypes(PyObject*, PyObject* objs) {
    if (!PyList_Check(objs)) return PyErr_SetString(PyExc_TypeError, "heap_types: a list"), nullptr;
    std::unordered_set<PyTypeObject*> seen;
    PyObject* out = PyList_New(0);
    for (Py_ssize_t i = 0; out && i < PyList_GET_SIZE(objs); ++i) {
        PyTypeObject* t = Py_TYPE(PyList_GET_ITEM(objs, i));
        if (seen.insert(t).second && PyList_Append(out, reinterpret_cast<PyObject*>(t)) < 0) Py_CLEAR(out);
    }
    return out;
}

constexpr const char* kTable = "vramscope_heap.PositionTable";

void dropTable(PyObject* capsule) {
    delete static_cast<PositionTable*>(PyCapsule_GetPointer(capsule, kTable));
}

// heap_find(table, address) -> the position of the object at that address (id()), or -1. The list
// the table was made from keeps its objects alive, so an address there is that object.
PyObject* heapFind(PyObject*, PyObject* args) {
    PyObject *capsule, *address;
    if (!PyArg_ParseTuple(args, "OO:heap_find", &capsule, &address)) return nullptr;
    auto* table = static_cast<PositionTable*>(PyCapsule_GetPointer(capsule, kTable));
    void* at = table ? PyLong_AsVoidPtr(address) : nullptr;
    if (PyErr_Occurred()) return nullptr;
    const uint32_t i = table->find(static_cast<PyObject*>(at));
    return PyLong_FromLong(i == PositionTable::missing ? -1L : static_cast<long>(i));
}

// heap_index(objs, skip_ids, hit_type_ids or None, seconds)
//   -> (offsets, sources, closures, hits, complete, table): uint32 arrays as bytes (see Walk,
//   byReferent); hits: positions of the objects whose type's id is in hit_type_ids (all when None);
//   complete: False when `seconds` ran out (the index then holds the objects read so far); table:
//   the positions by address, for heap_find().
PyObject* heapIndex(PyObject*, PyObject* args) {
#ifdef Py_GIL_DISABLED // other threads run meanwhile: their containers cannot be read without locks
    (void)args;
    return PyErr_SetString(PyExc_NotImplementedError, "heap_index: a free-threaded Python"), nullptr;
#endif
    PyObject *objs, *skip, *hitTypes;
    double seconds;
    if (!PyArg_ParseTuple(args, "O!OOd:heap_index", &PyList_Type, &objs, &skip, &hitTypes, &seconds))
        return nullptr;
    const size_t n = static_cast<size_t>(PyList_GET_SIZE(objs));
    if (n >= PositionTable::missing)
        return PyErr_SetString(PyExc_OverflowError, "heap_index: too many objects"), nullptr;
    std::unordered_set<uintptr_t> skipIds, hitIds;
    if (!readIds(skip, skipIds) || !readIds(hitTypes, hitIds)) return nullptr;
    auto* table = new PositionTable(n);
    PyObject* capsule = PyCapsule_New(table, kTable, dropTable);
    if (!capsule) return delete table, nullptr;
    const auto budget = std::chrono::duration<double>(seconds > 1e9 ? 1e9 : seconds < 0 ? 0 : seconds);
    Walk walk{*table, Clock::now() + std::chrono::duration_cast<Clock::duration>(budget), {}, {}};
    bool complete = true; // the table counts against the budget too (a 10M-object heap: ~0.5 s)
    for (size_t i = 0; i < n && complete; ++i) {
        if (i % (16 * kCheckEvery) == 0 && i && walk.late()) complete = false;
        table->put(PyList_GET_ITEM(objs, i), static_cast<uint32_t>(i));
    }
    if (complete) walk.edges.reserve(4 * n);
    std::vector<uint32_t> hits;
    for (size_t i = 0; i < n && complete; ++i) {
        if (i % kCheckEvery == 0 && i && walk.late()) complete = false;
        PyObject* o = PyList_GET_ITEM(objs, i);
        if (hitTypes == Py_None || hitIds.count(reinterpret_cast<uintptr_t>(Py_TYPE(o))))
            hits.push_back(static_cast<uint32_t>(i));
        if (!complete || skipIds.count(reinterpret_cast<uintptr_t>(o))) continue;
        walk.self = static_cast<uint32_t>(i);
        complete = walk.object(o);
    }
    std::vector<uint32_t> offsets, sources;
    byReferent(walk.edges, n, offsets, sources);
    std::vector<uint64_t>().swap(walk.edges);
    return Py_BuildValue("(NNNNON)", bytesOf(offsets), bytesOf(sources), bytesOf(walk.closures),
                         bytesOf(hits), complete ? Py_True : Py_False, capsule);
}

PyMethodDef kMethods[] = {{"heap_types", heapTypes, METH_O, "the distinct types of a list's objects"},
                          {"heap_index", heapIndex, METH_VARARGS,
                           "heap_index(objs, skip_ids, hit_type_ids, seconds) -> (offsets, sources, "
                           "closures, hits, complete, table)"},
                          {"heap_find", heapFind, METH_VARARGS, "heap_find(table, id) -> position, or -1"},
                          {nullptr, nullptr, 0, nullptr}};

} // namespace

int addFunctions(PyObject* module) {
    return PyModule_AddFunctions(module, kMethods);
}

} // namespace vramscope_heap

#ifdef VRAMSCOPE_HEAP_MODULE // the module of its own that the tests build (no torch)
#include "_test_module.h"
VRAMSCOPE_TEST_MODULE(vramscope_heap, "the retention walk's heap index", vramscope_heap::addFunctions)
#endif
