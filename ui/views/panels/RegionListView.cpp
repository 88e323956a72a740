#include "views/panels/RegionListView.h"

#include <QHeaderView>
#include <QSortFilterProxyModel>

namespace vs::ui {

RegionListView::RegionListView(QWidget* parent) : QTableView(parent) {
    model_ = new RegionTableModel(this);
    proxy_ = new QSortFilterProxyModel(this);
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(RegionTableModel::kSortRole);
    setModel(proxy_);
    setSortingEnabled(true);
    sortByColumn(RegionTableModel::Start, Qt::AscendingOrder); // time order: Up/Down walk the timeline
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setSelectionMode(QAbstractItemView::SingleSelection);
    setAlternatingRowColors(true);
    setWordWrap(false);
    verticalHeader()->hide();
    horizontalHeader()->setStretchLastSection(true);
    setToolTip(tr("Growth regions of this device. Select one (or press Up/Down) to explain it, as a click "
                  "on its ramp does; Ctrl+] and Ctrl+[ step through them from anywhere."));
    connect(selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& i) {
        if (!quiet_ && i.isValid()) emit regionChosen(proxy_->mapToSource(i).row());
    });
}

void RegionListView::setRegions(const Capture& c, const DeviceTrace& t, int64_t originUs,
                                const std::vector<GrowthRegion>& regions) {
    quiet_ = true;
    model_->setRegions(c, t, originUs, regions);
    quiet_ = false;
    resizeColumnsToContents();
}

void RegionListView::selectRegion(int index) {
    quiet_ = true;
    const QModelIndex i = index >= 0 ? proxy_->mapFromSource(model_->index(index, 0)) : QModelIndex();
    if (i.isValid()) {
        selectionModel()->setCurrentIndex(i, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        scrollTo(i);
    } else {
        selectionModel()->clear();
    }
    quiet_ = false;
}

int RegionListView::currentRegion() const {
    const QModelIndex i = currentIndex();
    return i.isValid() ? proxy_->mapToSource(i).row() : -1;
}

} // namespace vs::ui
