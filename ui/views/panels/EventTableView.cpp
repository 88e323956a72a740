#include "views/panels/EventTableView.h"

#include "models/EventTableModel.h"

#include <QHeaderView>
#include <QScrollBar>
#include <QSignalBlocker>

namespace vs::ui {

EventTableView::EventTableView(EventTableModel* model, QWidget* parent) : QTableView(parent), model_(model) {
    setModel(model);
    connect(verticalScrollBar(), &QScrollBar::valueChanged, this, &EventTableView::followScroll);
    connect(verticalScrollBar(), &QScrollBar::sliderReleased, this, &EventTableView::followScroll);
    connect(model, &QAbstractItemModel::modelReset, this, &EventTableView::describePage);
    connect(model, &QAbstractItemModel::rowsInserted, this, &EventTableView::describePage);
}

void EventTableView::goToEvent(size_t event) {
    const int row = model_->rowOf(event);
    selectRow(row);
    scrollTo(model_->index(row, 0), QAbstractItemView::PositionAtCenter);
}

int64_t EventTableView::currentEvent() const {
    const QModelIndex i = currentIndex();
    return i.isValid() ? int64_t(model_->eventOf(i.row())) : -1;
}

void EventTableView::followScroll() {
    const QScrollBar* bar = verticalScrollBar();
    if (bar->isSliderDown() || bar->maximum() == 0) return; // a drag turns the page when released
    const bool down = bar->value() == bar->maximum() && model_->hasLater();
    const bool up = bar->value() == bar->minimum() && model_->hasEarlier();
    const int top = rowAt(0);
    if ((!down && !up) || top < 0) return;
    const size_t topEvent = model_->eventOf(top);
    const int64_t current = currentEvent();
    if (!model_->pageAround(topEvent)) return;
    // The same event stays current and at the top: the rows go on past the old page's end.
    if (current >= 0 && size_t(current) >= model_->firstEvent() &&
        size_t(current) < model_->firstEvent() + size_t(model_->rowCount())) {
        const QSignalBlocker quiet(selectionModel()); // the same event: nothing else needs to follow
        const QModelIndex at = model_->index(int(size_t(current) - model_->firstEvent()), 0);
        selectionModel()->setCurrentIndex(at,
                                          QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        viewport()->update();
    }
    scrollTo(model_->index(int(topEvent - model_->firstEvent()), 0), QAbstractItemView::PositionAtTop);
}

void EventTableView::describePage() {
    const size_t n = model_->eventCount(), first = model_->firstEvent();
    verticalScrollBar()->setToolTip(
        n <= model_->pageRows()
            ? QString()
            : tr("Events %L1 to %L2 of %L3: scrolling past either end shows the next ones")
                  .arg(first)
                  .arg(first + size_t(model_->rowCount()) - 1)
                  .arg(n));
}

} // namespace vs::ui
