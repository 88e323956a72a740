#include "views/panels/PeakPanel.h"

#include "models/PeakTableModels.h"
#include "session/Session.h"
#include "util/Format.h"

#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTreeView>
#include <QVBoxLayout>

namespace vs::ui {

namespace {

QTreeView* tableView(QAbstractItemModel* model, int sortRole, QWidget* parent) {
    auto* proxy = new QSortFilterProxyModel(parent);
    proxy->setSourceModel(model);
    proxy->setSortRole(sortRole);
    auto* view = new QTreeView(parent);
    view->setRootIsDecorated(false);
    view->setUniformRowHeights(true);
    view->setSortingEnabled(true);
    view->sortByColumn(-1, Qt::AscendingOrder); // the model's order until a header is clicked
    view->setModel(proxy);
    view->header()->setStretchLastSection(false);
    view->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    return view;
}

} // namespace

PeakPanel::PeakPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    summary_ = new QLabel(tr("Open a capture: what makes its peak is found automatically."), this);
    summary_->setObjectName(QStringLiteral("peakSummary"));
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(summary_);
    categories_ = new QLabel(this);
    categories_->setWordWrap(true);
    categories_->setToolTip(
        tr("What the allocated memory at the peak is made of (Composition tab: over time)"));
    layout->addWidget(categories_);
    go_ = new QPushButton(tr("Go to the Peak"), this);
    go_->setToolTip(tr("Select the event at which allocated memory is highest (Go > Peak, Ctrl+Shift+P): the "
                       "timeline, block map and stack follow"));
    go_->setEnabled(false);
    connect(go_, &QPushButton::clicked, this, &PeakPanel::goToPeak);
    layout->addWidget(go_, 0, Qt::AlignLeft);
    phaseModel_ = new PhaseTableModel(this);
    phases_ = tableView(phaseModel_, PhaseTableModel::kSortRole, this);
    phases_->setObjectName(QStringLiteral("peakPhases"));
    phases_->setToolTip(tr("Each phase's peak and its change over the previous phase of the same kind; "
                           "double-click a phase to go to its peak"));
    connect(phases_, &QTreeView::doubleClicked, this, [this](const QModelIndex& index) {
        auto* proxy = static_cast<QSortFilterProxyModel*>(phases_->model());
        if (session_) session_->selectEvent(phaseModel_->peakEventOf(proxy->mapToSource(index).row()));
    });
    layout->addWidget(new QLabel(tr("<b>Phases</b>"), this));
    layout->addWidget(phases_, 3);
    lineModel_ = new LineHolderModel(this);
    lines_ = tableView(lineModel_, LineHolderModel::kSortRole, this);
    lines_->setObjectName(QStringLiteral("peakLines"));
    layout->addWidget(new QLabel(tr("<b>Alive at the peak, by line</b>"), this));
    layout->addWidget(lines_, 2);
}

void PeakPanel::follow(Session* session) {
    session_ = session;
    connect(session, &Session::deviceChanged, this, &PeakPanel::clear);
    connect(session, &Session::extended, this, &PeakPanel::clear);
    connect(session, &Session::peakReady, this, &PeakPanel::show);
}

void PeakPanel::clear() {
    summary_->setText(tr("Finding the peak\u2026"));
    categories_->clear();
    go_->setEnabled(false);
    phaseModel_->setReport(nullptr, {});
    lineModel_->setReport(nullptr, nullptr);
}

void PeakPanel::show() {
    const auto p = session_->peak();
    if (!p) return;
    summary_->setText(QString::fromStdString(p->summary));
    QStringList parts;
    for (size_t k = 0; k < kCategoryCount; ++k)
        if (p->categories[k])
            parts << QStringLiteral("%1 %2").arg(QString::fromUtf8(categoryName(Category(k)).data()),
                                                 QString::fromStdString(humanBytes(p->categories[k])));
    categories_->setText(parts.join(QStringLiteral(" \u00b7 ")));
    go_->setEnabled(!p->empty);
    const Session* s = session_;
    const size_t device = s->device();
    phaseModel_->setReport(p, [s, device](uint32_t e) { return s->secondsAt(device, e); });
    lineModel_->setReport(p, &s->analysis()->capture());
    for (QTreeView* v : {phases_, lines_})
        for (int c = 1; c < v->model()->columnCount(); ++c) v->resizeColumnToContents(c);
    auto* proxy = static_cast<QSortFilterProxyModel*>(phases_->model());
    const QModelIndex peakRow = proxy->mapFromSource(phaseModel_->index(int(p->phase), 0));
    phases_->setCurrentIndex(peakRow);
    phases_->scrollTo(peakRow, QAbstractItemView::PositionAtCenter);
}

void PeakPanel::goToPeak() {
    if (session_ && session_->peak() && !session_->peak()->empty)
        session_->selectEvent(session_->peak()->event);
}

QString PeakPanel::summaryText() const {
    return summary_->text();
}

} // namespace vs::ui
