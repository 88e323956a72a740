#pragma once
// The growth regions of one device as a table (one row per region, in the order given): start, end,
// kind, growth, per iteration, what released it and the top allocation site. Numbers sort as numbers
// through kSortRole.
#include "analysis/growth/GrowthRegions.h"
#include "model/Capture.h"

#include <QAbstractTableModel>

#include <vector>

namespace vs::ui {

class RegionTableModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column { Start, End, Kind, Growth, PerIteration, ReleasedBy, TopSite, ColumnCount };
    static constexpr int kSortRole = Qt::UserRole + 1;

    explicit RegionTableModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}
    // Times in seconds from `originUs` (the timeline's origin).
    void setRegions(const Capture& c, const DeviceTrace& t, int64_t originUs,
                    const std::vector<GrowthRegion>& regions);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

    // "accumulation: 47.9 MiB over 49 iterations"
    static QString describe(const GrowthRegion& r);
    // The innermost frame of the user's own code: "train_step (train.py:17)"; empty if none.
    static QString siteText(const Capture& c, StackId stack);

  private:
    struct Row {
        double from = 0, to = 0;
        GrowthRegion region; // without its allocation list: the table needs the numbers only
        QString site;
    };
    std::vector<Row> rows_;
};

} // namespace vs::ui
