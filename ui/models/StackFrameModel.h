#pragma once
// The frames of one event's call stack, innermost first, for the Stack pane: the program's own
// frames emphasised, internal ones (PyTorch, CPython, C++ runtime) dimmed or folded into one
// "… N internal frames" row. FileRole/LineRole say where a row's frame is (none on a folded row).
#include "session/CaptureLoader.h"

#include <QAbstractTableModel>

#include <vector>

namespace vs::ui {

class StackFrameModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column { Function, Location, ColumnCount };
    static constexpr int FileRole = Qt::UserRole;
    static constexpr int LineRole = Qt::UserRole + 1;

    using QAbstractTableModel::QAbstractTableModel;
    // The stack of `event` on `device` (nothing: no analysis); internal frames shown or folded.
    void setStack(AnalysisPtr analysis, size_t device, size_t event, bool showInternal);
    void clear() { setStack(nullptr, 0, 0, false); }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

  private:
    struct Row {
        uint32_t frame = 0; // FrameId value
        int folded = 0;     // > 0: a row standing for that many internal frames
        bool user = false, internal = false;
    };
    AnalysisPtr analysis_;
    std::vector<Row> rows_;
    bool noStack_ = false; // the event has no stack: one explanatory row
};

} // namespace vs::ui
