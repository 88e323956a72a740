// The .vscap record encoders of core's codec (io/VscapEncode*.h, compiled from core's own files, not
// a copy), callable from Python: what the recorder encodes through when the tracker module is built.
// codec.py is the pure-Python fallback with the same functions; test_codec_parity.py holds the two
// to the same bytes. Plain CPython API (no pybind11), so that it builds without torch: native.py
// compiles it into the tracker module, tests/CMakeLists.txt into a module of its own.
#define PY_SSIZE_T_CLEAN
#include "_codec.h"

#include "io/VscapEncodeState.h"

#include <array>
#include <utility>
#include <vector>

namespace vramscope_codec {

using namespace vs::vscap;
using vramscope_tracker::Interner;

Interner& interner() {
    static Interner in;
    return in;
}

std::mutex& internMutex() {
    static std::mutex m;
    return m;
}

namespace {

class Fields;
template <class T, class Read>
bool readList(PyObject* list, Py_ssize_t width, std::vector<T>& out, Read read);

// Reads one tuple's fields in order. The first failure leaves a Python error set; later reads
// return zeros, so a caller checks ok() once after reading all of them.
class Fields {
  public:
    Fields(PyObject* tuple, Py_ssize_t width)
        : seq_(PySequence_Fast(tuple, "a tuple of fields was expected")) {
        if (seq_ && PySequence_Fast_GET_SIZE(seq_) != width) {
            PyErr_Format(PyExc_TypeError, "%zd fields were expected, not %zd", width,
                         PySequence_Fast_GET_SIZE(seq_));
            failed_ = true;
        }
    }
    ~Fields() { Py_XDECREF(seq_); }
    Fields(const Fields&) = delete;
    Fields& operator=(const Fields&) = delete;

    bool ok() const { return seq_ && !failed_; }
    PyObject* item() { return ok() ? PySequence_Fast_GET_ITEM(seq_, next_++) : nullptr; }
    uint64_t u64() { return checked(item(), PyLong_AsUnsignedLongLong); }
    int64_t s64() { return checked(item(), PyLong_AsLongLong); }
    double f64() { return checked(item(), PyFloat_AsDouble); }
    bool flag() {
        PyObject* o = item();
        const int v = o ? PyObject_IsTrue(o) : 0;
        failed_ |= v < 0;
        return v > 0;
    }
    std::string text() { // UTF-8, unencodable characters replaced, as str.encode("utf-8", "replace")
        PyObject* o = item();
        PyObject* b = o ? PyUnicode_AsEncodedString(o, "utf-8", "replace") : nullptr;
        if (!b) return failed_ = true, std::string();
        std::string s(PyBytes_AS_STRING(b), size_t(PyBytes_GET_SIZE(b)));
        Py_DECREF(b);
        return s;
    }
    // The next field, a sequence of `width`-field tuples, each read by read(Fields&) into `out`.
    template <class T, class Read> bool list(Py_ssize_t width, std::vector<T>& out, Read read) {
        PyObject* o = item();
        failed_ |= o && !readList(o, width, out, read);
        return ok();
    }

  private:
    template <class Convert> auto checked(PyObject* o, Convert convert) -> decltype(convert(o)) {
        if (!o) return {};
        const auto v = convert(o);
        failed_ |= PyErr_Occurred() != nullptr;
        return v;
    }
    PyObject* seq_;
    Py_ssize_t next_ = 0;
    bool failed_ = false;
};

template <class T, class Read>
bool readList(PyObject* list, Py_ssize_t width, std::vector<T>& out, Read read) {
    PyObject* seq = PySequence_Fast(list, "a list was expected");
    if (!seq) return false;
    bool ok = true;
    for (Py_ssize_t i = 0; ok && i < PySequence_Fast_GET_SIZE(seq); ++i) {
        Fields f(PySequence_Fast_GET_ITEM(seq, i), width);
        T value = read(f);
        if ((ok = f.ok())) out.push_back(std::move(value));
    }
    Py_DECREF(seq);
    return ok;
}

PyObject* bytes(const std::string& s) {
    return PyBytes_FromStringAndSize(s.data(), Py_ssize_t(s.size()));
}

template <class R> PyObject* encoded(const Fields& f, const R& r) {
    return f.ok() ? bytes(recordBytes(r)) : nullptr;
}

// Runs f() on the interner with the GIL released: the writer thread's drain() holds the interner's
// lock while symbolizing, which takes the GIL.
template <class F> auto withInterner(F f) {
    PyThreadState* state = PyEval_SaveThread();
    std::unique_lock lock(internMutex());
    auto result = f(interner());
    lock.unlock();
    PyEval_RestoreThread(state);
    return result;
}

// ---- the interner: string(text), stack([(file, name, line)]), stream(raw), take_records()

PyObject* internString(PyObject*, PyObject* args) {
    Fields f(args, 1);
    std::string s = f.text();
    if (!f.ok()) return nullptr;
    return PyLong_FromUnsignedLongLong(withInterner([&](Interner& in) { return in.string(s); }));
}

PyObject* internStack(PyObject*, PyObject* args) {
    Fields f(args, 1);
    std::vector<std::tuple<std::string, std::string, uint64_t>> frames;
    if (!f.list(3, frames, [](Fields& g) {
            std::string file = g.text(), name = g.text();
            return std::make_tuple(std::move(file), std::move(name), uint64_t(std::max<int64_t>(0, g.s64())));
        }))
        return nullptr;
    return PyLong_FromUnsignedLongLong(withInterner([&](Interner& in) {
        std::vector<uint64_t> ids;
        for (const auto& [file, name, line] : frames) ids.push_back(in.frame(file, name, line));
        return in.stack(ids);
    }));
}

PyObject* internStream(PyObject*, PyObject* args) {
    Fields f(args, 1);
    const uint64_t raw = f.u64();
    if (!f.ok()) return nullptr;
    return PyLong_FromUnsignedLongLong(withInterner([&](Interner& in) { return in.stream(raw); }));
}

PyObject* takeRecords(PyObject*, PyObject*) {
    return bytes(withInterner([](Interner& in) { return std::exchange(in.pending, {}); }));
}

// events_record(device, [(time_us, addr, size, action, raw stream, stack id)]): the interner's new
// definitions and an Events record (nothing for no events).
PyObject* eventsRecord(PyObject*, PyObject* args) {
    Fields f(args, 2);
    const int64_t device = f.s64();
    std::vector<vramscope_tracker::EventFields> events;
    if (!f.list(6, events, [](Fields& g) {
            const int64_t t = g.s64();
            const uint64_t addr = g.u64(), size = g.u64();
            const auto action = uint8_t(g.u64());
            const uint64_t stream = g.u64(), stack = g.u64();
            return vramscope_tracker::EventFields{t, addr, size, action, stream, stack};
        }))
        return nullptr;
    if (events.empty()) return bytes({});
    return bytes(withInterner([&](Interner& in) {
        std::string out;
        vramscope_tracker::encodeEvents(out, in, device, events.size(), [&](size_t i) { return events[i]; });
        return out;
    }));
}

// ---- one record each, from plain fields (ids already interned)

PyObject* deviceRecord(PyObject*, PyObject* args) {
    Fields f(args, 3);
    const int64_t ordinal = f.s64();
    const std::string name = f.text();
    return encoded(f, DeviceRecord{ordinal, f.u64(), name});
}

PyObject* metaRecord(PyObject*, PyObject* args) {
    Fields f(args, 2);
    const std::string key = f.text(), value = f.text();
    return encoded(f, MetaRecord{key, value});
}

PyObject* markRecord(PyObject*, PyObject* args) {
    Fields f(args, 4);
    const int64_t device = f.s64(), t = f.s64();
    const uint64_t name = f.u64();
    return encoded(f, MarkRecord{device, t, name, f.s64()});
}

PyObject* annotationRecord(PyObject*, PyObject* args) { // stage 0 START, 1 END
    Fields f(args, 4);
    const int64_t device = f.s64(), t = f.s64();
    const bool start = f.u64() == 0;
    return encoded(f, AnnotationRecord{device, t, start, f.u64()});
}

PyObject* clockSyncRecord(PyObject*, PyObject* args) {
    Fields f(args, 2);
    const int64_t monotonic = f.s64();
    return encoded(f, ClockSyncRecord{monotonic, f.s64()});
}

PyObject* eventTextRecord(PyObject*, PyObject* args) {
    Fields f(args, 4);
    const int64_t device = f.s64();
    const uint64_t index = f.u64();
    const auto kind = uint8_t(f.u64());
    return encoded(f, EventTextRecord{device, index, kind, f.u64()});
}

PyObject* droppedRecord(PyObject*, PyObject* args) {
    Fields f(args, 1);
    return encoded(f, DroppedRecord{f.u64()});
}

PyObject* reserveRecord(PyObject*, PyObject* args) {
    Fields f(args, 2);
    const int64_t device = f.s64();
    return encoded(f, ReserveRecord{device, f.u64()});
}

PyObject* endRecord(PyObject*, PyObject*) {
    return bytes(recordBytes(EndRecord{}));
}

PyObject* partRecord(PyObject*, PyObject* args) {
    Fields f(args, 1);
    return encoded(f, PartRecord{f.u64()});
}

PyObject* tagsRecord(PyObject*, PyObject* args) { // tags: [(storage address, category)]
    Fields f(args, 3);
    const int64_t device = f.s64(), t = f.s64();
    std::vector<std::pair<uint64_t, uint8_t>> tags;
    if (!f.list(2, tags, [](Fields& g) {
            const uint64_t address = g.u64();
            return std::make_pair(address, uint8_t(g.u64()));
        }))
        return nullptr;
    return encoded(f, TagsRecord{device, t, tags});
}

PyObject* driverMemoryRecord(PyObject*, PyObject* args) {
    Fields f(args, 4);
    const int64_t device = f.s64(), t = f.s64();
    const uint64_t deviceUsed = f.u64();
    return encoded(f, DriverMemoryRecord{device, t, deviceUsed, f.u64()});
}

// settings_record(expandable, max_split, max_non_split_rounding, gc_threshold, [16 divisions],
// alloc_conf, [(key, value)])
PyObject* settingsRecord(PyObject*, PyObject* args) {
    Fields f(args, 7);
    const bool expandable = f.flag();
    const uint64_t maxSplit = f.u64(), maxNonSplit = f.u64();
    const double threshold = f.f64();
    std::array<uint32_t, 16> div{};
    Fields divisions(f.item(), Py_ssize_t(div.size()));
    for (uint32_t& d : div) d = uint32_t(divisions.u64());
    if (!divisions.ok()) return nullptr;
    const std::string conf = f.text();
    std::vector<std::pair<std::string, std::string>> raw;
    if (!f.list(2, raw, [](Fields& g) {
            std::string k = g.text();
            return std::make_pair(std::move(k), g.text());
        }))
        return nullptr;
    return encoded(f, SettingsRecord{expandable, maxSplit, maxNonSplit, threshold, div, conf, raw});
}

// segments_record(device, [(address, total, raw stream, expandable, small, pool0, pool1, stack,
// [(offset, size, requested, state, stack)])])
PyObject* segmentsRecord(PyObject*, PyObject* args) {
    Fields f(args, 2);
    const int64_t device = f.s64();
    std::vector<std::vector<BlockFields>> blocks; // owned here: SegmentFields holds spans
    std::vector<SegmentFields> segments;
    if (!f.list(9, segments, [&](Fields& g) {
            SegmentFields s{g.u64(), g.u64(), g.u64(), g.flag(), g.flag(), g.u64(), g.u64(), g.u64(), {}};
            g.list(5, blocks.emplace_back(), [](Fields& b) {
                return BlockFields{b.u64(), b.u64(), b.u64(), uint8_t(b.u64()), b.u64()};
            });
            return s;
        }))
        return nullptr;
    for (size_t i = 0; i < segments.size(); ++i) segments[i].blocks = blocks[i];
    return encoded(f, SegmentsRecord{device, segments});
}

// retention_record(device, time_us, trigger id, truncated, objects, millis,
// [(kind, type id, label id, gpu bytes, address)], [(src, dst, kind, label id)])
PyObject* retentionRecord(PyObject*, PyObject* args) {
    Fields f(args, 8);
    const int64_t device = f.s64(), t = f.s64();
    const uint64_t trigger = f.u64();
    const bool truncated = f.flag();
    const uint64_t objects = f.u64(), millis = f.u64();
    std::vector<RetentionNodeFields> nodes;
    std::vector<RetentionEdgeFields> edges;
    if (!f.list(5, nodes, [](Fields& g) {
            return RetentionNodeFields{uint8_t(g.u64()), g.u64(), g.u64(), g.u64(), g.u64()};
        }))
        return nullptr;
    if (!f.list(4, edges, [](Fields& g) {
            return RetentionEdgeFields{g.u64(), g.u64(), uint8_t(g.u64()), g.u64()};
        }))
        return nullptr;
    return encoded(f, RetentionRecord{device, t, trigger, truncated, objects, millis, nodes, edges});
}

PyMethodDef kMethods[] = {
    {"string", internString, METH_VARARGS, "the id of a string, defining it when new"},
    {"stack", internStack, METH_VARARGS, "the id of a stack [(file, name, line)], innermost first"},
    {"stream", internStream, METH_VARARGS, "the id of a raw cudaStream_t"},
    {"take_records", takeRecords, METH_NOARGS, "the definitions made since the last call"},
    {"events_record", eventsRecord, METH_VARARGS, "new definitions and one device's Events record"},
    {"device_record", deviceRecord, METH_VARARGS, nullptr},
    {"meta_record", metaRecord, METH_VARARGS, nullptr},
    {"mark_record", markRecord, METH_VARARGS, nullptr},
    {"annotation_record", annotationRecord, METH_VARARGS, nullptr},
    {"clock_sync_record", clockSyncRecord, METH_VARARGS, nullptr},
    {"event_text_record", eventTextRecord, METH_VARARGS, nullptr},
    {"dropped_record", droppedRecord, METH_VARARGS, nullptr},
    {"reserve_record", reserveRecord, METH_VARARGS, nullptr},
    {"end_record", endRecord, METH_NOARGS, nullptr},
    {"part_record", partRecord, METH_VARARGS, nullptr},
    {"tags_record", tagsRecord, METH_VARARGS, nullptr},
    {"driver_memory_record", driverMemoryRecord, METH_VARARGS, nullptr},
    {"settings_record", settingsRecord, METH_VARARGS, nullptr},
    {"segments_record", segmentsRecord, METH_VARARGS, nullptr},
    {"retention_record", retentionRecord, METH_VARARGS, nullptr},
    {nullptr, nullptr, 0, nullptr},
};

} // namespace

int addFunctions(PyObject* module) {
    return PyModule_AddFunctions(module, kMethods);
}

} // namespace vramscope_codec

#ifdef VRAMSCOPE_CODEC_MODULE // the module of its own that the tests build (no torch)
#include "_test_module.h"
VRAMSCOPE_TEST_MODULE(vramscope_codec, "core's .vscap codec", vramscope_codec::addFunctions)
#endif
