#include "models/RegionTableModel.h"

#include "analysis/stacks/FrameFilter.h"
#include "common/ByteAxisTicker.h"
#include "common/QtText.h"
#include "util/TimeOrigin.h"

#include <QFileInfo>

namespace vs::ui {
void RegionTableModel::setRegions(const Capture& c, const DeviceTrace& t, int64_t originUs,
                                  const std::vector<GrowthRegion>& regions) {
    beginResetModel();
    rows_.clear();
    auto seconds = [&](uint32_t e) { return e < t.eventCount() ? secondsSince(originUs, t.timeUs[e]) : 0.0; };
    for (const GrowthRegion& g : regions) {
        Row r{seconds(g.first), seconds(g.last), g,
              g.stacks.empty() ? QString() : siteText(c, g.stacks.front())};
        r.region.allocations.clear(), r.region.stacks.clear();
        rows_.push_back(std::move(r));
    }
    endResetModel();
}

int RegionTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(rows_.size());
}

int RegionTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RegionTableModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal) return {};
    static const char* names[] = {"Start (s)",     "End (s)",     "Kind",    "Growth",
                                  "Per iteration", "Released by", "Top site"};
    static const char* tips[] = {"Seconds of the first kept allocation, on the timeline's clock",
                                 "Seconds of the ramp's top",
                                 "leak: alive at the end; accumulation: released together later; cycle: "
                                 "released by the garbage collector; cache; transient: one iteration's rise",
                                 "Bytes of the allocations kept over the ramp",
                                 "Bytes kept per iteration while it grows",
                                 "What the release coincides with",
                                 "Innermost frame of your own code that made most of the kept bytes"};
    if (role == Qt::DisplayRole) return tr(names[section]);
    if (role == Qt::ToolTipRole) return tr(tips[section]);
    return {};
}

QVariant RegionTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || size_t(index.row()) >= rows_.size()) return {};
    const Row& r = rows_[size_t(index.row())];
    const GrowthRegion& g = r.region;
    const bool numeric = index.column() != Kind && index.column() != ReleasedBy && index.column() != TopSite;
    if (role == Qt::TextAlignmentRole)
        return numeric ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                       : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    if (role == kSortRole) {
        switch (index.column()) {
        case Start:
            return r.from;
        case End:
            return r.to;
        case Growth:
            return qulonglong(g.growthBytes);
        case PerIteration:
            return qulonglong(g.perIterationBytes);
        default:
            return data(index, Qt::DisplayRole);
        }
    }
    if (role == Qt::ToolTipRole && (index.column() == ReleasedBy || index.column() == TopSite))
        return data(index, Qt::DisplayRole);
    if (role == Qt::ToolTipRole) return describe(g);
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
    case Start:
        return QString::number(r.from, 'f', 3);
    case End:
        return QString::number(r.to, 'f', 3);
    case Kind:
        return QString::fromLatin1(leakKindName(g.kind).data()) +
               (g.significant ? QString() : tr(" (small)"));
    case Growth:
        return formatBytes(double(g.growthBytes));
    case PerIteration:
        return g.iterations ? formatBytes(double(g.perIterationBytes)) : QString();
    case ReleasedBy:
        return g.releasedAt == kNoEvent && g.releasedBy.empty() ? tr("not released")
                                                                : QString::fromStdString(g.releasedBy);
    case TopSite:
        return r.site;
    default:
        return {};
    }
}

QString RegionTableModel::describe(const GrowthRegion& r) {
    const QString kind = QString::fromLatin1(leakKindName(r.kind).data());
    if (r.iterations > 1)
        return tr("%1: %2 over %3 iterations")
            .arg(kind, formatBytes(double(r.growthBytes)))
            .arg(r.iterations);
    if (r.iterations == 1) return tr("%1: %2 in one iteration").arg(kind, formatBytes(double(r.growthBytes)));
    return tr("%1: %2").arg(kind, formatBytes(double(r.growthBytes)));
}

QString RegionTableModel::siteText(const Capture& c, StackId stack) {
    const uint32_t site = firstUserFrame(c, stack);
    if (site == kNoFrame) return {};
    const Frame& f = c.frames[c.stacks.frames(stack)[site]];
    return QStringLiteral("%1 (%2:%3)")
        .arg(qtext(c, f.name), QFileInfo(qtext(c, f.filename)).fileName())
        .arg(f.line);
}

} // namespace vs::ui
