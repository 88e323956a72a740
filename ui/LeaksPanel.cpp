#include "LeaksPanel.h"

#include "ByteAxisTicker.h"
#include "analysis/FrameFilter.h"

#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QStyledItemDelegate>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace vs::ui {
namespace {

constexpr int kShareRole = Qt::UserRole + 10; // 0..1 of the largest group, for the cost bar

// Draws a bar proportional to the row's share behind the text of the bytes column.
class CostBarDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter* p, const QStyleOptionViewItem& option, const QModelIndex& index) const override {
        const double share = index.data(kShareRole).toDouble();
        if (share > 0) {
            QRect bar = option.rect.adjusted(2, 3, -2, -3);
            bar.setWidth(std::max(1, int(bar.width() * share)));
            QColor c = option.palette.color(QPalette::Highlight);
            c.setAlpha(70);
            p->fillRect(bar, c);
        }
        QStyledItemDelegate::paint(p, option, index);
    }
};

QString qtext(const Capture& c, StringId id) {
    const auto s = c.strings.text(id);
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

} // namespace

LeaksPanel::LeaksPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    diagnosis_ = new QLabel(tr("Open a capture: the growth region is found automatically; Shift+drag on the "
                               "timeline to inspect what survives any range."),
                            this);
    diagnosis_->setWordWrap(true);
    diagnosis_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    search_ = new QLineEdit(this);
    search_->setPlaceholderText(tr("Filter by function or file\u2026"));
    search_->setClearButtonEnabled(true);
    connect(search_, &QLineEdit::textChanged, this, &LeaksPanel::applyFilter);
    groups_ = new QTreeWidget(this);
    groups_->setColumnCount(4);
    groups_->setHeaderLabels({tr("Surviving bytes"), tr("Blocks"), tr("Steady"), tr("Allocation site / stack")});
    groups_->setItemDelegateForColumn(0, new CostBarDelegate(groups_));
    groups_->header()->setSectionResizeMode(3, QHeaderView::Stretch);
    groups_->setUniformRowHeights(true);
    groups_->setToolTip(tr("Allocations made in the window and still alive at its end, grouped by call stack. "
                           "Steady groups gained blocks across most of the window: look at them first."));
    layout->addWidget(diagnosis_);
    layout->addWidget(search_);
    layout->addWidget(groups_, 1);
    connect(&watcher_, &QFutureWatcher<LeakReport>::finished, this, [this] { showReport(watcher_.result()); });
}

LeaksPanel::~LeaksPanel() { watcher_.waitForFinished(); }

void LeaksPanel::analyse(AnalysisPtr analysis, size_t device, int64_t first, int64_t last) {
    watcher_.waitForFinished();
    analysis_ = std::move(analysis);
    device_ = device;
    diagnosis_->setText(tr("Analysing\u2026"));
    LeakQuery q;
    if (first >= 0 && last >= first) q.autoWindow = false, q.first = uint32_t(first), q.last = uint32_t(last);
    auto a = analysis_;
    watcher_.setFuture(QtConcurrent::run([a, device, q] { return diagnoseLeaks(*a, device, q); }));
}

void LeaksPanel::waitForResult() {
    watcher_.waitForFinished();
    QCoreApplication::processEvents();
}

void LeaksPanel::showReport(const LeakReport& report) {
    report_ = report;
    groups_->clear();
    if (!analysis_) return;
    const DeviceTrace& t = analysis_->trace(device_);
    const Capture& c = analysis_->capture();
    auto secondsAt = [&](uint32_t e) { return t.eventCount() ? double(t.timeUs[e] - t.timeUs.front()) / 1e6 : 0.0; };
    const QString kind = QString::fromLatin1(leakKindName(report.kind).data());
    diagnosis_->setText(tr("<b>%1</b> &nbsp;<span style='color:gray'>window %2 s \u2013 %3 s%4</span><br>%5<br>"
                           "<i>Evidence:</i> %6<br><i>Next step:</i> %7")
                            .arg(kind.toUpper())
                            .arg(secondsAt(report.first), 0, 'f', 3)
                            .arg(secondsAt(report.last), 0, 'f', 3)
                            .arg(report.autoWindow ? tr(", detected") : QString())
                            .arg(QString::fromStdString(report.summary).toHtmlEscaped(),
                                 QString::fromStdString(report.evidence).toHtmlEscaped(),
                                 QString::fromStdString(report.nextStep).toHtmlEscaped()));
    double biggest = 1;
    for (const auto& g : report.groups) biggest = std::max(biggest, double(g.bytes));
    for (size_t i = 0; i < report.groups.size() && i < 500; ++i) {
        const SurvivorGroup& g = report.groups[i];
        const auto frames = c.stacks.frames(g.stack);
        const uint32_t site = firstUserFrame(c, g.stack);
        QString siteText = tr("(no stack recorded)");
        if (site != kNoFrame) {
            const Frame& f = c.frames[frames[site]];
            siteText = QStringLiteral("%1  (%2:%3)").arg(qtext(c, f.name), qtext(c, f.filename).section('/', -1)).arg(f.line);
        }
        auto* item = new QTreeWidgetItem(groups_, {formatBytes(double(g.bytes)), QString::number(g.count),
                                                   isSteady(g) ? tr("%1/10").arg(g.coverage) : QString(), siteText});
        item->setData(0, kShareRole, double(g.bytes) / biggest);
        item->setTextAlignment(0, Qt::AlignRight | Qt::AlignVCenter);
        item->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
        if (isSteady(g)) {
            QFont bold = item->font(3);
            bold.setBold(true);
            item->setFont(3, bold);
        }
        for (FrameId f : frames) {
            if (classifyFrame(c, f) == FrameKind::Internal) continue;
            auto* child = new QTreeWidgetItem(item, {QString(), QString(), QString(),
                                                     QStringLiteral("%1  %2:%3")
                                                         .arg(qtext(c, c.frames[f].name), qtext(c, c.frames[f].filename))
                                                         .arg(c.frames[f].line)});
            child->setToolTip(3, child->text(3));
        }
    }
    if (groups_->topLevelItemCount()) groups_->topLevelItem(0)->setExpanded(true);
    for (int col = 0; col < 3; ++col) groups_->resizeColumnToContents(col);
    applyFilter(search_->text());
    emit windowChanged(secondsAt(report.first), secondsAt(report.last), report.autoWindow);
    emit reportReady();
}

int LeaksPanel::groupRows() const { return groups_->topLevelItemCount(); }

void LeaksPanel::applyFilter(const QString& text) {
    for (int i = 0; i < groups_->topLevelItemCount(); ++i) {
        QTreeWidgetItem* item = groups_->topLevelItem(i);
        bool match = text.isEmpty() || item->text(3).contains(text, Qt::CaseInsensitive);
        for (int k = 0; !match && k < item->childCount(); ++k) match = item->child(k)->text(3).contains(text, Qt::CaseInsensitive);
        item->setHidden(!match);
    }
}

} // namespace vs::ui
