#include "models/EventTableModel.h"

#include "analysis/stacks/FrameFilter.h"
#include "common/ByteAxisTicker.h"
#include "util/Format.h"
#include "util/TimeOrigin.h"

#include <QColor>
#include <QFileInfo>
#include <QGuiApplication>
#include <QPalette>
#include <QSize>

#include <algorithm>

namespace vs::ui {

void EventTableModel::setDevice(AnalysisPtr analysis, size_t device, int64_t originUs) {
    beginResetModel();
    analysis_ = std::move(analysis);
    device_ = device;
    originUs_ = originUs;
    first_ = 0;
    marked_.clear();
    streamShown_ = analysis_ && analysis_->capture().streams.size() > 1;
    endResetModel();
}

void EventTableModel::appendRows(AnalysisPtr grown) {
    const int before = rowCount();
    const size_t n = grown && device_ < grown->deviceCount() ? grown->trace(device_).eventCount() : 0;
    const int after = static_cast<int>(n > first_ ? std::min(n - first_, pageRows_) : 0); // the page's
    if (!streamShown_ && grown && grown->capture().streams.size() > 1) { // a second stream came
        beginInsertColumns({}, Stream, Stream);
        streamShown_ = true;
        endInsertColumns();
    }
    if (after <= before) return void(analysis_ = std::move(grown));
    beginInsertRows({}, before, after - 1);
    analysis_ = std::move(grown);
    endInsertRows();
}

void EventTableModel::setMarkedEvents(std::vector<uint32_t> events) {
    std::sort(events.begin(), events.end());
    marked_ = std::move(events);
    if (rowCount())
        emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1), {Qt::BackgroundRole});
}

int64_t EventTableModel::nextMarked(int64_t event, bool forward) const {
    if (marked_.empty()) return -1;
    if (forward) {
        if (event < 0) return marked_.front();
        const auto it = std::upper_bound(marked_.begin(), marked_.end(), uint64_t(event),
                                         [](uint64_t e, uint32_t m) { return e < m; });
        return it == marked_.end() ? marked_.front() : *it;
    }
    if (event < 0) return marked_.back();
    const auto it = std::lower_bound(marked_.begin(), marked_.end(), uint64_t(event),
                                     [](uint32_t m, uint64_t e) { return m < e; });
    return it == marked_.begin() ? marked_.back() : *(it - 1);
}

size_t EventTableModel::eventCount() const {
    return analysis_ && device_ < analysis_->deviceCount() ? analysis_->trace(device_).eventCount() : 0;
}

int EventTableModel::rowCount(const QModelIndex& parent) const {
    const size_t n = eventCount();
    if (parent.isValid() || n <= first_) return 0;
    return static_cast<int>(std::min(n - first_, pageRows_));
}

bool EventTableModel::pageAround(size_t event) {
    const size_t n = eventCount();
    const size_t first = n <= pageRows_ ? 0 : std::min(event - std::min(event, pageRows_ / 2), n - pageRows_);
    if (first == first_) return false;
    beginResetModel();
    first_ = first;
    endResetModel();
    return true;
}

int EventTableModel::rowOf(size_t event) {
    if (event < first_ || event >= first_ + size_t(rowCount())) pageAround(event);
    return static_cast<int>(std::min(event - first_, size_t(std::max(rowCount() - 1, 0))));
}

int EventTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount - (streamShown_ ? 0 : 1);
}

QVariant EventTableModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal) return {};
    static const char* names[] = {"#",      "Time (s)",  "Action",   "Address", "Size",
                                  "Stream", "Allocated", "Reserved", "Site"};
    static const char* tips[] = {
        "Event index in the trace",
        "Seconds since the first event",
        "Allocator action",
        "Block or segment address",
        "Requested bytes (alloc/free), segment bytes, or free device bytes (oom)",
        "CUDA stream",
        "torch.cuda.memory_allocated() after this event",
        "torch.cuda.memory_reserved() after this event",
        "Allocation site: the innermost frame of your own code in the event's stack"};
    if (section < 0 || section >= columnCount()) return {};
    if (role == Qt::DisplayRole) return tr(names[columnAt(section)]);
    if (role == Qt::ToolTipRole) return tr(tips[columnAt(section)]);
    return {};
}

QString EventTableModel::siteOf(size_t event) const {
    const Capture& c = analysis_->capture();
    const StackId s = analysis_->trace(device_).stack[event];
    const uint32_t i = firstUserFrame(c, s);
    if (i == kNoFrame) return {};
    const Frame& f = c.frames[c.stacks.frames(s)[i]];
    return QStringLiteral("%1  (%2:%3)")
        .arg(QString::fromUtf8(c.strings.text(f.name).data(), qsizetype(c.strings.text(f.name).size())),
             QFileInfo(QString::fromUtf8(c.strings.text(f.filename).data(),
                                         qsizetype(c.strings.text(f.filename).size())))
                 .fileName())
        .arg(f.line);
}

QVariant EventTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || !analysis_) return {};
    const size_t i = eventOf(index.row());
    const DeviceTrace& t = analysis_->trace(device_);
    const Column column = columnAt(index.column());
    if (role == Qt::TextAlignmentRole)
        return column == Action || column == Site ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                                  : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    // The site takes the width the other columns leave (the last section stretches, long sites are
    // elided) rather than its text's, which would scroll the table sideways at 1280 px.
    if (role == Qt::SizeHintRole) return column == Site ? QVariant(QSize(0, 0)) : QVariant();
    if (role == Qt::BackgroundRole)
        return std::binary_search(marked_.begin(), marked_.end(), uint32_t(i))
                   ? QVariant(QColor(214, 39, 40, 45))
                   : QVariant();
    if (role == Qt::ForegroundRole && column == Action) {
        const bool dark = QGuiApplication::palette().color(QPalette::Window).lightness() < 128;
        switch (t.action[i]) {
        case vs::Action::Alloc:
            return QColor(dark ? "#5ea8ff" : "#1f66c4");
        case vs::Action::Oom:
            return QColor("#dc2828");
        case vs::Action::SegmentAlloc:
        case vs::Action::SegmentMap:
            return QColor(dark ? "#ffaa46" : "#d66e00");
        default:
            return {};
        }
    }
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
    const ReplayResult& r = analysis_->replay(device_);
    switch (column) {
    case Index:
        return static_cast<qulonglong>(i);
    case Time:
        return QString::number(timeOfEvent(i), 'f', 6);
    case Action:
        return QString::fromLatin1(actionName(t.action[i]).data());
    case Address:
        return QString::fromStdString(hexAddress(t.addr[i]));
    case Size:
        return role == Qt::ToolTipRole ? QString::number(t.size[i]) + " B" : formatBytes(double(t.size[i]));
    case Stream:
        return QString::number(analysis_->capture().streams[t.stream[i].value]);
    case Allocated:
        return formatBytes(double(r.allocated[i]));
    case Reserved:
        return formatBytes(double(r.reserved[i]));
    case Site:
        return siteOf(i);
    default:
        return {};
    }
}

size_t EventTableModel::eventAtTime(double seconds) const {
    if (!analysis_) return 0;
    const DeviceTrace& t = analysis_->trace(device_);
    const auto us = microsecondsAt(originUs_, seconds);
    const auto n = std::upper_bound(t.timeUs.begin(), t.timeUs.end(), us) - t.timeUs.begin();
    return static_cast<size_t>(std::max<ptrdiff_t>(0, n - 1));
}

double EventTableModel::timeOfEvent(size_t event) const {
    return secondsSince(originUs_, analysis_->trace(device_).timeUs[event]);
}

} // namespace vs::ui
