#pragma once
// The "Regions" list: every growth region of the shown device in a sortable table (by start at
// first). Choosing a row (click, or Up/Down) emits regionChosen with the region's index in the list
// it was given, which is what a click on the ramp does.
#include "models/RegionTableModel.h"

#include <QTableView>

class QSortFilterProxyModel;

namespace vs::ui {

class RegionListView : public QTableView {
    Q_OBJECT
  public:
    explicit RegionListView(QWidget* parent = nullptr);
    void setRegions(const Capture& c, const DeviceTrace& t, int64_t originUs,
                    const std::vector<GrowthRegion>& regions);
    // Shows `index` as the current row without emitting regionChosen; -1 clears.
    void selectRegion(int index);
    int currentRegion() const; // -1: none
    RegionTableModel* regionModel() const { return model_; }

  signals:
    void regionChosen(int index);

  private:
    RegionTableModel* model_;
    QSortFilterProxyModel* proxy_;
    bool quiet_ = false; // set while the selection is changed from outside
};

} // namespace vs::ui
