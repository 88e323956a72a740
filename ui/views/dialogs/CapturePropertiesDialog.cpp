#include "views/dialogs/CapturePropertiesDialog.h"

#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace vs::ui {

CapturePropertiesDialog::CapturePropertiesDialog(const std::vector<FactSection>& facts, QWidget* parent)
    : QDialog(parent), tree_(new QTreeWidget(this)), facts_(facts) {
    setWindowTitle(tr("Capture Properties"));
    tree_->setColumnCount(2);
    tree_->setHeaderLabels({tr("Property"), tr("Value")});
    tree_->setRootIsDecorated(true);
    tree_->setAlternatingRowColors(true);
    tree_->setWordWrap(true);
    for (const FactSection& section : facts_) {
        auto* top = new QTreeWidgetItem(tree_, {QString::fromStdString(section.title)});
        QFont bold = top->font(0);
        bold.setBold(true);
        top->setFont(0, bold);
        for (const FactRow& row : section.rows) {
            auto* item = new QTreeWidgetItem(
                top, {QString::fromStdString(row.label), QString::fromStdString(row.value)});
            item->setToolTip(0, item->text(0)), item->setToolTip(1, item->text(1)); // long paths
        }
        top->setExpanded(true);
    }
    tree_->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    QPushButton* copy = buttons->addButton(tr("&Copy"), QDialogButtonBox::ActionRole);
    copy->setToolTip(tr("Copy every property as text"));
    connect(copy, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(text()); });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(tree_);
    layout->addWidget(buttons);
    resize(900, 600);
}

QString CapturePropertiesDialog::text() const {
    QString out;
    for (const FactSection& section : facts_) {
        out += QString::fromStdString(section.title) + '\n';
        for (const FactRow& row : section.rows)
            out += "  " + QString::fromStdString(row.label) + (row.label.empty() ? "" : ": ") +
                   QString::fromStdString(row.value) + '\n';
    }
    return out;
}

} // namespace vs::ui
