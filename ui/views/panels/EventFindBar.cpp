#include "views/panels/EventFindBar.h"

#include "models/EventSearch.h"
#include "models/EventTableModel.h"
#include "views/panels/EventTableView.h"

#include <QApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QToolButton>

namespace vs::ui {

EventFindBar::EventFindBar(EventTableView* table, EventTableModel* model, QWidget* parent)
    : QWidget(parent), table_(table), model_(model) {
    field_ = new QLineEdit(this);
    field_->setPlaceholderText(tr("Find: action, function, file:line, 0xADDRESS or #event"));
    field_->setClearButtonEnabled(true);
    status_ = new QLabel(this);
    auto button = [this](const QString& text, const QString& tip) {
        auto* b = new QToolButton(this);
        b->setText(text);
        b->setToolTip(tip);
        b->setAutoRaise(true);
        return b;
    };
    QToolButton* previous = button(QStringLiteral("\u2191"), tr("Previous match (Shift+Enter)"));
    QToolButton* next = button(QStringLiteral("\u2193"), tr("Next match (Enter)"));
    QToolButton* close = button(QStringLiteral("\u2715"), tr("Close the find bar"));
    connect(field_, &QLineEdit::returnPressed, this,
            [this] { find(field_->text(), !(QApplication::keyboardModifiers() & Qt::ShiftModifier)); });
    connect(previous, &QToolButton::clicked, this, [this] { find(field_->text(), false); });
    connect(next, &QToolButton::clicked, this, [this] { find(field_->text(), true); });
    connect(close, &QToolButton::clicked, this, &QWidget::hide);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(field_, 1);
    layout->addWidget(previous);
    layout->addWidget(next);
    layout->addWidget(status_);
    layout->addWidget(close);
    hide();
}

void EventFindBar::open() {
    show();
    field_->setFocus();
    field_->selectAll();
}

int EventFindBar::find(const QString& text, bool forward) {
    const AnalysisPtr a = model_->analysis();
    if (!a || text.trimmed().isEmpty()) return -1;
    const int64_t current = table_->currentEvent();
    const int from = current >= 0 ? int(current) : (forward ? -1 : 0);
    const int event = EventSearch(*a, model_->device(), text).next(from, forward);
    status_->setText(event < 0 ? tr("no match") : tr("#%L1").arg(event));
    if (event < 0) return -1;
    table_->goToEvent(size_t(event));
    return event;
}

} // namespace vs::ui
