#include "views/panels/EventsPane.h"

#include "models/EventTableModel.h"
#include "session/Session.h"
#include "views/panels/DevicePicker.h"
#include "views/panels/EventFindBar.h"
#include "views/panels/EventTableView.h"

#include <QHeaderView>
#include <QVBoxLayout>

#include <algorithm>

namespace vs::ui {

EventsPane::EventsPane(Session* session, QWidget* parent) : QWidget(parent), session_(session) {
    setObjectName(QStringLiteral("eventsPane"));
    model_ = new EventTableModel(this);
    model_->setObjectName(QStringLiteral("eventModel"));
    table_ = new EventTableView(model_, this);
    table_->setObjectName(QStringLiteral("eventTable"));
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    table_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 4);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setAlternatingRowColors(true);
    table_->setWordWrap(false);
    devices_ = new DevicePicker(session, this);
    findBar_ = new EventFindBar(table_, model_, this);
    findBar_->setObjectName(QStringLiteral("findBar"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(devices_);
    layout->addWidget(findBar_);
    layout->addWidget(table_, 1);

    connect(session, &Session::deviceChanged, this, &EventsPane::showDevice);
    connect(session, &Session::extended, this, [this] {
        model_->appendRows(session_->analysis()); // rows inserted: the selection and scroll stay
    });
    connect(session, &Session::eventSelected, this, [this](std::optional<size_t> event) {
        if (event && table_->currentEvent() != int64_t(*event)) table_->goToEvent(*event);
    });
    connect(session, &Session::allocationsListed, this, [this](const std::vector<uint32_t>& events) {
        model_->setMarkedEvents(events);
        session_->selectEvent(events.front());
    });
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& i) {
                if (i.isValid()) session_->selectEvent(model_->eventOf(i.row()));
            });
}

void EventsPane::showDevice(size_t device) {
    model_->setDevice(session_->analysis(), device, session_->originUs());
    fitColumns();
    table_->setCurrentIndex(QModelIndex()); // no event is selected until the user picks one
    table_->scrollToTop();
}

void EventsPane::fitColumns() {
    table_->resizeColumnsToContents();          // from the first rows; the index column must fit the last one
    const size_t events = model_->eventCount(); // on every page: the last index and time are the widest
    table_->setColumnWidth(EventTableModel::Index,
                           table_->fontMetrics().horizontalAdvance(QString::number(events)) + 16);
    if (events > 0) // 1234.567890 s
        table_->setColumnWidth(EventTableModel::Time,
                               std::max(table_->columnWidth(EventTableModel::Time),
                                        table_->fontMetrics().horizontalAdvance(
                                            QString::number(model_->timeOfEvent(events - 1), 'f', 6)) +
                                            16));
    // The site (last, stretched) column takes what is left, not its longest text: no horizontal
    // scrolling at 1280 px; a cut site reads whole in its tooltip.
    table_->setColumnWidth(model_->columnCount() - 1,
                           table_->fontMetrics().horizontalAdvance(QStringLiteral("site")) + 16);
}

void EventsPane::openFind() {
    findBar_->open();
}

bool EventsPane::stepMarked(bool forward) {
    const int64_t event = model_->nextMarked(table_->currentEvent(), forward);
    if (event < 0) return false;
    session_->selectEvent(size_t(event));
    return true;
}

void EventsPane::goToTime(double seconds) {
    if (session_->isOpen() && model_->rowCount() > 0) session_->selectEvent(session_->eventAt(seconds));
}

QByteArray EventsPane::columnState() const {
    return table_->horizontalHeader()->saveState();
}

void EventsPane::restoreColumns(const QByteArray& state) {
    table_->horizontalHeader()->restoreState(state);
}

} // namespace vs::ui
