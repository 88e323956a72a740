#include "views/ranks/RanksWindow.h"

#include "common/ByteAxisTicker.h"
#include "models/RankTableModel.h"
#include "views/ranks/RankHeatmap.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPointer>
#include <QPushButton>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace vs::ui {

namespace {

// The outliers (the most different first) and the warnings, a few of each: thousands of ranks may
// have hundreds; the table's Outlier column and its tooltips hold them all.
QString sentences(const RankSet& set) {
    constexpr size_t kMost = 8;
    QStringList lines;
    for (size_t i = 0; i < std::min(kMost, set.outliers.size()); ++i)
        lines << QString::fromStdString(set.outliers[i].sentence);
    if (set.outliers.size() > kMost)
        lines << RanksWindow::tr("\u2026 and %1 more outlier ranks (sort the table by its outlier column)")
                     .arg(set.outliers.size() - kMost);
    if (lines.isEmpty()) lines << RanksWindow::tr("No rank stands out.");
    for (size_t i = 0; i < std::min(kMost, set.warnings.size()); ++i)
        lines << RanksWindow::tr("Warning: %1").arg(QString::fromStdString(set.warnings[i]));
    if (set.warnings.size() > kMost)
        lines << RanksWindow::tr("\u2026 and %1 more warnings (vramscope-cli ranks lists them all)")
                     .arg(set.warnings.size() - kMost);
    return lines.join(QLatin1Char('\n'));
}

} // namespace

RanksWindow::RanksWindow(QWidget* parent) : QWidget(parent, Qt::Window) {
    setWindowTitle(tr("Ranks \u2014 vramscope"));
    resize(1200, 860);
    status_ = new QLabel(tr("No ranks"), this);
    outliers_ = new QLabel(this);
    outliers_->setWordWrap(true);
    outliers_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    heatmap_ = new RankHeatmap(this);
    model_ = new RankTableModel(this);
    auto* proxy = new QSortFilterProxyModel(this);
    proxy->setSourceModel(model_);
    proxy->setSortRole(RankTableModel::kSortRole);
    table_ = new QTableView(this);
    table_->setModel(proxy);
    table_->setSortingEnabled(true);
    table_->sortByColumn(RankTableModel::Rank, Qt::AscendingOrder);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setSectionResizeMode(RankTableModel::File, QHeaderView::Stretch);

    auto* metric = new QComboBox(this);
    metric->addItems({tr("Allocated"), tr("Reserved")});
    auto* steps = new QCheckBox(tr("Align by step (peak per iteration)"), this);
    auto* fit = new QPushButton(tr("Fit All"), this);
    connect(metric, &QComboBox::currentIndexChanged, this, [this](int i) {
        heatmap_->setMetric(i == 0 ? RankHeatmap::Metric::Allocated : RankHeatmap::Metric::Reserved);
    });
    connect(steps, &QCheckBox::toggled, heatmap_, &RankHeatmap::setAlignBySteps);
    connect(fit, &QPushButton::clicked, heatmap_, &RankHeatmap::fitAll);
    const auto activate = [this](int index) {
        if (set_ && index >= 0 && size_t(index) < set_->ranks.size() && set_->ranks[size_t(index)].ok())
            emit openRank(QString::fromStdString(set_->ranks[size_t(index)].path));
    };
    connect(heatmap_, &RankHeatmap::rankActivated, this, activate);
    connect(table_, &QTableView::doubleClicked, this,
            [proxy, activate](const QModelIndex& i) { activate(proxy->mapToSource(i).row()); });

    auto* controls = new QHBoxLayout;
    controls->addWidget(status_, 1);
    controls->addWidget(metric);
    controls->addWidget(steps);
    controls->addWidget(fit);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(heatmap_);
    split->addWidget(table_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* box = new QVBoxLayout(this);
    box->addLayout(controls);
    box->addWidget(outliers_);
    box->addWidget(split, 1);
}

RanksWindow* RanksWindow::askAndOpen(QWidget* parent, Pick pick) {
    const QString start = QSettings().value(QStringLiteral("lastDir")).toString();
    QStringList files;
    if (pick == Pick::Folder) {
        const QString folder = QFileDialog::getExistingDirectory(
            parent, tr("Open a folder of per-rank captures or summaries"), start);
        if (!folder.isEmpty()) files << folder;
    } else {
        files = QFileDialog::getOpenFileNames(parent, tr("Open one capture per rank"), start,
                                              tr("Captures and rank summaries (*.vscap *.pickle *.pickle.gz "
                                                 "*.pickle.zst *.pkl *.vsrank);;All files (*)"));
    }
    return files.isEmpty() ? nullptr : openIn(parent, files);
}

RanksWindow* RanksWindow::openIn(QWidget* parent, const QStringList& paths) {
    auto* w = new RanksWindow(parent);
    w->setAttribute(Qt::WA_DeleteOnClose);
    w->open(paths);
    w->QWidget::show();
    return w;
}

RanksWindow::~RanksWindow() {
    jobs_.cancelAll();
}

void RanksWindow::open(const QStringList& paths) {
    std::vector<std::string> files, folderWarnings; // entries of a folder skipped (RankFolder.h)
    try {
        for (const QString& p : paths) {
            if (!QFileInfo(p).isDir()) {
                files.push_back(p.toStdString());
                continue;
            }
            RankFolder folder = rankFiles(p.toStdString());
            files.insert(files.end(), folder.files.begin(), folder.files.end());
            folderWarnings.insert(folderWarnings.end(), folder.warnings.begin(), folder.warnings.end());
        }
    } catch (const std::exception& e) {
        return showError(QString::fromStdString(e.what()));
    }
    if (files.empty()) return showError(tr("No capture files given"));
    status_->setText(tr("Reading %1 ranks\u2026").arg(files.size()));
    QPointer<QLabel> status(status_);
    jobs_.run<std::shared_ptr<const RankSet>>(
        JobKey::Ranks, this,
        [files, folderWarnings, status](const JobControl& job) {
            RankLoadOptions o;
            o.cancel = &job.cancel();
            o.progress = [status](size_t done, size_t total) {
                QMetaObject::invokeMethod(
                    status,
                    [status, done, total] {
                        if (status) status->setText(tr("Reading ranks\u2026 %1 of %2").arg(done).arg(total));
                    },
                    Qt::QueuedConnection);
            };
            RankSet set = loadRanks(files, o);
            set.warnings.insert(set.warnings.begin(), folderWarnings.begin(), folderWarnings.end());
            return std::make_shared<const RankSet>(std::move(set));
        },
        [this](const std::shared_ptr<const RankSet>& set) { showRanks(set); },
        [this](const QString& message) { showError(message); }); // e.g. over --max-memory
}

void RanksWindow::showError(const QString& message) {
    error_ = message;
    status_->setText(QStringLiteral("<span style='color:#c8322a'>%1</span>").arg(message.toHtmlEscaped()));
}

QString RanksWindow::outlierText() const {
    return outliers_->text();
}

void RanksWindow::showRanks(std::shared_ptr<const RankSet> set) {
    set_ = std::move(set);
    if (set_->readable() == 0)
        return showError(tr("None of the %1 files could be read: %2")
                             .arg(set_->ranks.size())
                             .arg(QString::fromStdString(set_->ranks.front().error)));
    status_->setText(tr("%1 ranks (%2 readable); median peak %3")
                         .arg(set_->ranks.size())
                         .arg(set_->readable())
                         .arg(formatBytes(double(set_->medianPeak))));
    outliers_->setText(sentences(*set_));
    heatmap_->setRanks(set_);
    model_->setRanks(set_);
    emit loaded();
}

} // namespace vs::ui
