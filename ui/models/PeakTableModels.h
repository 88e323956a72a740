#pragma once
// The Peak tab's two tables over one PeakReport: the per-phase table (each epoch, evaluation and the
// training between them: peak and change over the previous phase of its kind; the peak's phase bold)
// and what is alive at the peak by the user's line. Numbers sort as numbers through kSortRole.
#include "analysis/peak/PeakReport.h"

#include <QAbstractTableModel>

#include <functional>
#include <memory>

namespace vs::ui {

class PhaseTableModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column { Phase, From, To, Peak, Change, ColumnCount };
    static constexpr int kSortRole = Qt::UserRole + 1;
    explicit PhaseTableModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}
    // Times in seconds since the session's origin: `seconds` maps an event of the report's device.
    void setReport(std::shared_ptr<const PeakReport> report, std::function<double(uint32_t)> seconds);
    uint32_t peakEventOf(int row) const; // the event at which that phase peaks
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

  private:
    std::shared_ptr<const PeakReport> report_;
    std::function<double(uint32_t)> seconds_;
};

class LineHolderModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column { Line, Bytes, Blocks, Kind, ColumnCount };
    static constexpr int kSortRole = Qt::UserRole + 1;
    explicit LineHolderModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}
    void setReport(std::shared_ptr<const PeakReport> report, const Capture* capture);
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

  private:
    std::shared_ptr<const PeakReport> report_;
    const Capture* capture_ = nullptr;
};

} // namespace vs::ui
