#include "views/dialogs/OpenRangeDialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>

namespace vs::ui {

namespace {
QDoubleSpinBox* secondsBox(QWidget* parent) {
    auto* s = new QDoubleSpinBox(parent);
    s->setRange(0, 1e9);
    s->setDecimals(3);
    s->setSuffix(QObject::tr(" s"));
    return s;
}
} // namespace

OpenRangeDialog::OpenRangeDialog(const QString& path, const QString& filter, QWidget* parent)
    : QDialog(parent) {
    setWindowTitle(tr("Open Range"));
    auto* form = new QFormLayout(this);
    auto* intro = new QLabel(tr("Load only a window of a capture: faster and smaller for a big file. Blocks "
                                "allocated before the window are replayed from the whole file and shown as a "
                                "baseline; times stay seconds since the capture's first event."),
                             this);
    intro->setWordWrap(true);
    form->addRow(intro);
    path_ = new QLineEdit(path, this);
    auto* browse = new QPushButton(tr("&Browse\u2026"), this);
    connect(browse, &QPushButton::clicked, this, [this, filter] {
        const QString p =
            QFileDialog::getOpenFileName(this, tr("Open capture"), QFileInfo(path_->text()).path(), filter);
        if (!p.isEmpty()) path_->setText(p);
    });
    auto* row = new QHBoxLayout;
    row->addWidget(path_, 1);
    row->addWidget(browse);
    form->addRow(tr("&File:"), row);
    from_ = secondsBox(this);
    form->addRow(tr("F&rom:"), from_);
    to_ = secondsBox(this);
    toEnd_ = new QCheckBox(tr("to the &end"), this);
    auto* toRow = new QHBoxLayout;
    toRow->addWidget(to_, 1);
    toRow->addWidget(toEnd_);
    form->addRow(tr("&To:"), toRow);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    ok_ = buttons->button(QDialogButtonBox::Ok);
    ok_->setText(tr("&Open"));
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(toEnd_, &QCheckBox::toggled, to_, &QWidget::setDisabled);
    for (auto* s : {from_, to_}) connect(s, &QDoubleSpinBox::valueChanged, this, &OpenRangeDialog::updateOk);
    connect(toEnd_, &QCheckBox::toggled, this, &OpenRangeDialog::updateOk);
    connect(path_, &QLineEdit::textChanged, this, &OpenRangeDialog::updateOk);
    to_->setValue(60);
    updateOk();
}

// Open only for a file and a window that ends after it starts (the loader says when no event is in it).
void OpenRangeDialog::updateOk() {
    ok_->setEnabled(!path_->text().isEmpty() && (toEnd_->isChecked() || to_->value() > from_->value()));
}

QString OpenRangeDialog::path() const {
    return path_->text();
}

TimeWindow OpenRangeDialog::window() const {
    TimeWindow w;
    w.fromS = from_->value();
    if (!toEnd_->isChecked()) w.toS = to_->value();
    return w;
}

std::optional<std::pair<QString, TimeWindow>> OpenRangeDialog::ask(QWidget* parent, const QString& path,
                                                                   const QString& filter) {
    OpenRangeDialog d(path, filter, parent);
    if (d.exec() != QDialog::Accepted) return std::nullopt;
    return std::make_pair(d.path(), d.window());
}

} // namespace vs::ui
