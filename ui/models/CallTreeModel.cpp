#include "models/CallTreeModel.h"

#include "analysis/stacks/FrameFilter.h"
#include "common/ByteAxisTicker.h"

#include <QFont>

namespace vs::ui {

void CallTreeModel::setTree(std::shared_ptr<const Capture> keepAlive, const Capture* capture, CallTree tree) {
    beginResetModel();
    keep_ = std::move(keepAlive);
    capture_ = capture;
    tree_ = std::move(tree);
    endResetModel();
}

QVariant CallTreeModel::headerData(int section, Qt::Orientation o, int role) const {
    static const char* names[] = {"Function", "Surviving bytes", "Blocks", "Location"};
    if (o == Qt::Horizontal && role == Qt::DisplayRole) return tr(names[section]);
    return {};
}

QVariant CallTreeModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || !capture_) return {};
    const CallNode& n = tree_.node(uint32_t(nodeOf(index)));
    const Capture& c = *capture_;
    const Frame& f = c.frames[n.frame];
    auto text = [&](StringId id) {
        const auto s = c.strings.text(id);
        return QString::fromUtf8(s.data(), qsizetype(s.size()));
    };
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Function:
            return text(f.name);
        case Bytes:
            return formatBytes(double(n.bytes));
        case Blocks:
            return n.count;
        case Location:
            return QStringLiteral("%1:%2").arg(text(f.filename)).arg(f.line);
        }
        break;
    case Qt::ToolTipRole:
        return QStringLiteral("%1\n%2:%3\n%4 in %5 blocks")
            .arg(text(f.name), text(f.filename))
            .arg(f.line)
            .arg(formatBytes(double(n.bytes)))
            .arg(n.count);
    case Qt::TextAlignmentRole:
        return index.column() == Bytes || index.column() == Blocks
                   ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                   : QVariant();
    case Qt::FontRole:
        if (index.column() == Function && classifyFrame(c, n.frame) == FrameKind::User) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        break;
    case kCostShareRole:
        return index.column() == Bytes && tree_.node(0).bytes ? double(n.bytes) / double(tree_.node(0).bytes)
                                                              : 0.0;
    }
    return {};
}

} // namespace vs::ui
