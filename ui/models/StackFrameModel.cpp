#include "models/StackFrameModel.h"

#include "analysis/stacks/FrameFilter.h"
#include "common/QtText.h"

#include <QApplication>
#include <QFileInfo>
#include <QFont>
#include <QPalette>

namespace vs::ui {

void StackFrameModel::setStack(AnalysisPtr analysis, size_t device, size_t event, bool showInternal) {
    beginResetModel();
    analysis_ = std::move(analysis);
    rows_.clear();
    noStack_ = false;
    if (analysis_) {
        const Capture& c = analysis_->capture();
        const auto frames = c.stacks.frames(analysis_->trace(device).stack[event]);
        noStack_ = frames.empty();
        for (FrameId f : frames) {
            const FrameKind kind = classifyFrame(c, f);
            const bool internal = kind == FrameKind::Internal;
            if (internal && !showInternal) {
                if (rows_.empty() || !rows_.back().folded) rows_.push_back({0, 0, false, true});
                ++rows_.back().folded;
                continue;
            }
            rows_.push_back({f.value, 0, kind == FrameKind::User, internal});
        }
    }
    endResetModel();
}

int StackFrameModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : noStack_ ? 1 : int(rows_.size());
}

int StackFrameModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant StackFrameModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid()) return {};
    if (noStack_) {
        if (role == Qt::DisplayRole && index.column() == Function)
            return tr("(no stack recorded for this event)");
        if (role == Qt::ForegroundRole)
            return QApplication::palette().color(QPalette::Disabled, QPalette::Text);
        return {};
    }
    const Row& r = rows_[size_t(index.row())];
    if (role == Qt::ForegroundRole && r.internal)
        return QApplication::palette().color(QPalette::Disabled, QPalette::Text);
    if (r.folded)
        return role == Qt::DisplayRole && index.column() == Function
                   ? tr("\u2026 %n internal frame(s)", nullptr, r.folded)
                   : QVariant();
    const Capture& c = analysis_->capture();
    const Frame& f = c.frames[FrameId{r.frame}];
    const QString file = qtext(c, f.filename);
    switch (role) {
    case Qt::DisplayRole:
        return index.column() == Function
                   ? qtext(c, f.name)
                   : QStringLiteral("%1:%2").arg(QFileInfo(file).fileName()).arg(f.line);
    case Qt::ToolTipRole:
        return index.column() == Function ? qtext(c, f.name) : QStringLiteral("%1:%2").arg(file).arg(f.line);
    case Qt::FontRole: {
        if (!r.user) return {};
        QFont bold;
        bold.setBold(true);
        return bold;
    }
    case FileRole:
        return file;
    case LineRole:
        return int(f.line);
    default:
        return {};
    }
}

QVariant StackFrameModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    return section == Function ? tr("Function") : tr("Location");
}

} // namespace vs::ui
