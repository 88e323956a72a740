#include "views/panels/LeaksPanel.h"

#include "sim/OomWhatIf.h"

#include "analysis/growth/FindingText.h"

#include "analysis/stacks/FrameFilter.h"
#include "common/ByteAxisTicker.h"
#include "common/DisposeInBackground.h"
#include "common/QtText.h"
#include "models/CallTreeModel.h"
#include "models/SurvivorGroupModel.h"
#include "session/Session.h"
#include "util/TimeOrigin.h"
#include "views/panels/FlameGraph.h"
#include "views/panels/RegionListView.h"
#include "views/panels/Sparkline.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPainter>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStyledItemDelegate>
#include <QTabWidget>
#include <QTreeView>
#include <QVBoxLayout>

#include <future>

namespace vs::ui {
namespace {

// "the Retention tab" in a diagnosis becomes a link to it: with many tabs it can be scrolled out of
// sight at common window widths.
QString linkedTabs(QString html) {
    static const QRegularExpression tab(QStringLiteral("\\b([Tt]he) Retention tab"));
    return html.replace(tab, QStringLiteral("\\1 <a href=\"#retention\">Retention tab</a>"));
}

// Seconds since the capture's origin of an event (0 past the trace): the panel's one clock.
double secondsOf(const DeviceTrace& t, int64_t originUs, uint32_t event) {
    return event < t.eventCount() ? secondsSince(originUs, t.timeUs[event]) : 0.0;
}

// Draws a bar proportional to the row's share behind the text of a cost column.
class CostBarDelegate : public QStyledItemDelegate {
  public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter* p, const QStyleOptionViewItem& option, const QModelIndex& index) const override {
        const double share = index.data(kCostShareRole).toDouble();
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

QTreeView* makeTreeView(QWidget* parent, QSortFilterProxyModel* proxy) {
    auto* v = new QTreeView(parent);
    v->setModel(proxy);
    v->setUniformRowHeights(true);
    v->setItemDelegateForColumn(CallTreeModel::Bytes, new CostBarDelegate(v));
    v->header()->setSectionResizeMode(CallTreeModel::Function, QHeaderView::Stretch);
    return v;
}

QSortFilterProxyModel* makeFilter(QObject* parent, CallTreeModel* model) {
    auto* f = new QSortFilterProxyModel(parent);
    f->setSourceModel(model);
    f->setRecursiveFilteringEnabled(true); // keep the path to every match
    f->setFilterCaseSensitivity(Qt::CaseInsensitive);
    f->setFilterKeyColumn(-1);
    return f;
}

} // namespace

LeaksPanel::LeaksPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    diagnosis_ = new QLabel(tr("Open a capture: the growth region is found automatically; Shift+drag on the "
                               "timeline to inspect what survives any range."),
                            this);
    diagnosis_->setObjectName(QStringLiteral("leakDiagnosis"));
    diagnosis_->setWordWrap(true);
    diagnosis_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    diagnosis_->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::LinksAccessibleByMouse);
    connect(diagnosis_, &QLabel::linkActivated, this, [this](const QString& link) {
        if (link == QLatin1String("#retention")) emit retentionRequested();
    });
    // "2 findings: a leak of ..., an accumulation of ...": every finding, each a link to its region
    findings_ = new QLabel(this);
    findings_->setObjectName(QStringLiteral("leakFindings"));
    findings_->setWordWrap(true);
    findings_->setToolTip(tr("Everything the growth analysis found on this device, the diagnosis first; "
                             "click one to explain it"));
    findings_->setTextInteractionFlags(Qt::LinksAccessibleByMouse | Qt::LinksAccessibleByKeyboard);
    connect(findings_, &QLabel::linkActivated, this,
            [this](const QString& link) { emit findingChosen(link.mid(1).toInt()); });
    layout->addWidget(findings_);
    search_ = new QLineEdit(this);
    search_->setPlaceholderText(tr("Search functions and files\u2026"));
    search_->setClearButtonEnabled(true);
    connect(search_, &QLineEdit::textChanged, this, &LeaksPanel::applyFilter);
    atEnd_ = new QCheckBox(tr("Alive at the end of the capture"), this);
    atEnd_->setToolTip(
        tr("Survivors still alive when the capture ends, instead of at the end of the window"));
    connect(atEnd_, &QCheckBox::toggled, this, [this] {
        if (!analysis_) return;
        region_ ? analyseRegion(analysis_, device_, *region_) : analyse(analysis_, device_, first_, last_);
    });

    groupsModel_ = new SurvivorGroupModel(this);
    groupsFilter_ = new QSortFilterProxyModel(this);
    groupsFilter_->setSourceModel(groupsModel_);
    groupsFilter_->setRecursiveFilteringEnabled(true); // a group stays when one of its frames matches
    groupsFilter_->setFilterCaseSensitivity(Qt::CaseInsensitive);
    groupsFilter_->setFilterKeyColumn(SurvivorGroupModel::Site);
    groupsView_ = new QTreeView(this);
    groupsView_->setModel(groupsFilter_);
    groupsView_->setItemDelegateForColumn(SurvivorGroupModel::Bytes, new CostBarDelegate(groupsView_));
    groupsView_->header()->setSectionResizeMode(SurvivorGroupModel::Site, QHeaderView::Stretch);
    groupsView_->setUniformRowHeights(true);
    groupsView_->setToolTip(
        tr("Allocations made in the window and still alive at its end, grouped by call stack. "
           "Steady groups gained blocks across most of the window: look at them first."));
    groupsView_->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(groupsView_, &QTreeView::customContextMenuRequested, this, &LeaksPanel::groupMenu);
    connect(groupsView_->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex& i) {
                onGroupSelected(SurvivorGroupModel::groupRow(groupsFilter_->mapToSource(i)));
            });
    topDownModel_ = new CallTreeModel(this);
    bottomUpModel_ = new CallTreeModel(this);
    topDownFilter_ = makeFilter(this, topDownModel_);
    bottomUpFilter_ = makeFilter(this, bottomUpModel_);
    topDown_ = makeTreeView(this, topDownFilter_);
    bottomUp_ = makeTreeView(this, bottomUpFilter_);
    flame_ = new FlameGraph(this);
    views_ = new QTabWidget(this);
    views_->addTab(groupsView_, tr("Groups"));
    views_->addTab(topDown_, tr("Top-down"));
    views_->addTab(bottomUp_, tr("Bottom-up"));
    views_->addTab(flame_, tr("Flame graph"));
    regions_ = new RegionListView(this);
    views_->addTab(regions_, tr("Regions"));
    views_->setTabToolTip(
        4, tr("Every growth region of this device; select one to explain it (Ctrl+] / Ctrl+[)"));
    views_->setTabToolTip(1, tr("From the program's entry point down to the allocating frames"));
    views_->setTabToolTip(2, tr("From the allocating frames up to their callers"));
    views_->setTabToolTip(3, tr("Click a frame to zoom into it, Escape to zoom out"));
    spark_ = new Sparkline(this);
    spark_->setToolTip(tr("Bytes alive over the whole capture of every block allocated from the selected "
                          "group's call stack: its survivors and its temporaries, so it can rise above the "
                          "group's surviving bytes. The shaded span is the diagnosed window."));
    // The diagnosis scrolls above a splitter handle and the groups take the rest: at 1280x800 the tab
    // is ~350 px tall, and a long diagnosis would otherwise be cut or squeeze the groups to two rows.
    auto* sentence = new QScrollArea(this);
    sentence->setWidget(diagnosis_);
    sentence->setWidgetResizable(true);
    sentence->setFrameShape(QFrame::NoFrame);
    sentence->setMinimumHeight(5 * fontMetrics().lineSpacing()); // the kind, the sentence and the evidence
    auto* lower = new QWidget(this);
    auto* lowerLayout = new QVBoxLayout(lower);
    lowerLayout->setContentsMargins(0, 0, 0, 0);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(sentence);
    split->addWidget(lower);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    split->setChildrenCollapsible(false);
    layout->addWidget(split, 1);
    auto* row = new QHBoxLayout;
    row->addWidget(search_, 1);
    row->addWidget(atEnd_);
    libraries_ = new QCheckBox(tr("Library frames"), this);
    libraries_->setToolTip(
        tr("Show the frames of libraries and runtimes (torch, lightning, transformers, runpy, "
           "CPython, PyTorch's and CUDA's modules) in the trees and the flame graph; folded "
           "into your own code's frames when off"));
    libraries_->setChecked(QSettings().value(QStringLiteral("leaks/libraryFrames"), false).toBool());
    connect(libraries_, &QCheckBox::toggled, this, [this](bool on) {
        QSettings().setValue(QStringLiteral("leaks/libraryFrames"), on);
        if (!analysis_) return;
        fillGroups();
        buildTrees();
    });
    row->addWidget(libraries_);
    lowerLayout->addLayout(row);
    lowerLayout->addWidget(views_, 1);
    lowerLayout->addWidget(spark_);
}

LeaksPanel::~LeaksPanel() = default;

void LeaksPanel::follow(Session* session) {
    session_ = session;
    jobs_ = &session->jobs(); // a new capture cancels the diagnosis of the old one
    connect(session, &Session::growthReady, this, &LeaksPanel::showGrowth);
    connect(session, &Session::deviceChanged, this, [this, session](size_t device) {
        setOrigin(session->originUs()); // one clock for the timeline and the Leaks tab
        analyse(session->analysis(), device);
    });
    // A live capture grew: what the program chose is found again in the longer capture; what the user
    // picked stays explained as it was until they pick again.
    connect(session, &Session::extended, this, [this, session] {
        if (!userChoice_) analyse(session->analysis(), device_);
    });
    // A selected range: what survives it; none: back to the detected region.
    connect(session, &Session::rangeChanged, this,
            [this, session](std::optional<std::pair<double, double>> range) {
                if (!session->isOpen()) return;
                if (!range) return analyse(session->analysis(), session->device());
                const size_t first = session->eventAt(range->first), last = session->eventAt(range->second);
                analyse(
                    session->analysis(), session->device(),
                    int64_t(first + (session->secondsAt(session->device(), uint32_t(first)) < range->first)),
                    int64_t(last));
                emit attentionWanted();
            });
    connect(session, &Session::regionChanged, this, [this, session] {
        regions_->selectRegion(session->regionIndex());
        if (!session->region()) return; // a range is explained instead
        analyseRegion(session->analysis(), session->device(), *session->region(), session->regionAutomatic());
        if (!session->regionAutomatic()) emit attentionWanted();
    });
    connect(this, &LeaksPanel::reportReady, this, [this] { // an OOM or what the cache keeps: shown at once
        if (report().kind != LeakKind::None && report().autoWindow) emit attentionWanted();
    });
    // the selected group's allocations, marked by every view; on request listed in the event list
    connect(this, &LeaksPanel::groupHighlighted, session,
            [session](size_t device, const QVector<double>&, const QVector<quint32>& events) {
                if (device == session->device()) session->markAllocations({events.begin(), events.end()});
            });
    connect(this, &LeaksPanel::showAllocationsRequested, session,
            [session](size_t device, const QVector<quint32>& events) {
                if (device == session->device()) session->listAllocations({events.begin(), events.end()});
            });
}

void LeaksPanel::analyse(AnalysisPtr analysis, size_t device, int64_t first, int64_t last) {
    analysis_ = std::move(analysis);
    device_ = device;
    first_ = first, last_ = last;
    region_.reset();
    userChoice_ = first >= 0;
    LeakQuery q;
    if (first >= 0 && last >= first) q.autoWindow = false, q.first = uint32_t(first), q.last = uint32_t(last);
    run(q);
}

void LeaksPanel::analyseRegion(AnalysisPtr analysis, size_t device, const GrowthRegion& region,
                               bool automatic) {
    analysis_ = std::move(analysis);
    device_ = device;
    first_ = last_ = -1;
    region_ = region;
    userChoice_ = !automatic;
    LeakQuery q;
    q.region = region;
    run(q);
}

// The session's growth analysis of the device this panel explains, or null (not ready yet).
std::shared_ptr<const LeakInputs> LeaksPanel::sessionGrowth() const {
    const bool same = session_ && session_->analysis() == analysis_ && session_->device() == device_;
    return same ? session_->growth() : nullptr;
}

void LeaksPanel::showGrowth() {
    const auto in = sessionGrowth();
    if (!in) return;
    const GrowthRegions& g = *in->regions;
    QString line = QString::fromStdString(findingsTitle(analysis_->capture(), g)).toHtmlEscaped();
    if (!g.findings.empty()) { // the count, then each finding as a link to its region
        line = g.findings.size() == 1 ? tr("<b>1 finding:</b> ")
                                      : tr("<b>%1 findings:</b> ").arg(g.findings.size());
        for (size_t i = 0; i < g.findings.size(); ++i)
            line += QStringLiteral("%1<a href='#%2'>%3</a>")
                        .arg(i ? QStringLiteral(", ") : QString())
                        .arg(g.findings[i].region)
                        .arg(QString::fromStdString(findingText(analysis_->capture(), g, g.findings[i]))
                                 .toHtmlEscaped());
    }
    findings_->setText(line);
    regions_->setRegions(analysis_->capture(), analysis_->trace(device_), originUs_, g.regions);
    if (!g.findings.empty()) emit attentionWanted(); // a finding comes first
    if (auto q = std::exchange(pending_, std::nullopt)) run(*q);
}

// The newest request wins without blocking the GUI: while a job runs, the latest query waits (the
// runner's rule for a key) and replaces the running one's (stale) result when it finishes. The
// lifetimes and regions of a device are the session's, found once: until they arrive the query waits.
void LeaksPanel::run(LeakQuery q) {
    diagnosis_->setText(tr("Analysing\u2026"));
    q.aliveAtEnd = atEnd_->isChecked();
    auto a = analysis_;
    const size_t device = device_;
    auto in = sessionGrowth();
    pending_.reset();
    if (session_ && !in) {
        pending_ = q;
        return;
    }
    const int64_t origin = originUs_;
    jobs_->run<Result>(
        JobKey::Leaks, this,
        [a, device, q, in, origin](const JobControl&) {
            auto inputs = in ? in : std::make_shared<const LeakInputs>(prepareLeakInputs(*a, device));
            Result r{diagnoseLeaks(*a, device, q, *inputs), inputs, a, device, {}, {}, {}, {}};
            addOomWhatIf(*a, device, r.report); // a fragmented reserve: would another setting have served it?
            if (r.report.groups.empty()) return r;
            // Three independent passes over a group's allocations (each ~30 ms for a leak's ~1M at
            // 100M events: reads kilobytes apart), side by side.
            const SurvivorGroup& top = r.report.groups.front();
            auto spark = std::async(std::launch::async, [&] {
                return liveBytes(*inputs->categories, a->trace(device), origin, top.stack);
            });
            auto kinds = std::async(std::launch::async, [&] {
                std::vector<Category> k;
                for (const auto& g : r.report.groups) k.push_back(r.report.categoryOf(g));
                return k;
            });
            r.firstGroupEvents = eventsOf(inputs->lifetimes(), top);
            r.firstGroupTimes = timesOf(a->trace(device), origin, r.firstGroupEvents);
            r.firstGroupSpark = spark.get();
            r.kinds = kinds.get();
            return r;
        },
        [this](const Result& r) { present(r); });
}

const std::vector<Allocation>& LeaksPanel::lifetimes() const {
    static const std::vector<Allocation> none;
    return result_.inputs ? result_.inputs->lifetimes() : none;
}

double LeaksPanel::secondsAt(uint32_t event) const {
    const DeviceTrace& t = analysis_->trace(device_);
    return secondsOf(t, originUs_, event);
}

void LeaksPanel::waitForResult() {
    jobs_->waitFor(JobKey::Growth); // the session's growth analysis first: a query waits for it
    jobs_->waitFor(JobKey::Leaks);  // and the one a report starts (a cold open explains its worst region)
}

void LeaksPanel::present(Result result) {
    disposeInBackground(std::exchange(result_, std::move(result)));
    if (!analysis_) return;
    const LeakReport& report = result_.report;
    // shade where the steady growth happens: from the first surviving block of the top steady group
    const bool steady = !report.groups.empty() && isSteady(report.groups.front());
    auto s3 = [&](uint32_t e) { return QString::number(secondsAt(e), 'f', 3); };
    // the header names the span the timeline shades, and the window it was found in when they differ
    const QString span =
        report.region ? tr("region %1 s \u2013 %2 s").arg(s3(report.region->first), s3(report.region->last))
        : steady && report.groups.front().firstEvent > report.first
            ? tr("growth %1 s \u2013 %2 s, in the window %3 s \u2013 %4 s")
                  .arg(s3(report.groups.front().firstEvent), s3(report.last), s3(report.first),
                       s3(report.last))
            : tr("window %1 s \u2013 %2 s").arg(s3(report.first), s3(report.last));
    // what to do before why: the evidence (the longest part) last, so the next step shows unscrolled
    diagnosis_->setText(tr("<b>%1</b> &nbsp;<span style='color:gray'>%2%3</span><br>%4<br>"
                           "<i>Next step:</i> %5<br><i>Evidence:</i> %6")
                            .arg(QString::fromLatin1(leakKindName(report.kind).data()).toUpper(), span,
                                 report.autoWindow ? tr(", detected") : QString(),
                                 QString::fromStdString(report.summary).toHtmlEscaped(),
                                 linkedTabs(QString::fromStdString(report.nextStep).toHtmlEscaped()),
                                 QString::fromStdString(report.evidence).toHtmlEscaped()));
    fillGroups();
    buildTrees();
    selectGroup(report.groups.empty() ? -1 : 0);
    // a window where nothing was found is not shaded as growth (a red band over a flat capture)
    emit windowChanged(secondsAt(steady ? report.groups.front().firstEvent : report.first),
                       secondsAt(report.last), report.autoWindow && report.kind != LeakKind::None);
    emit reportReady();
}

// The top-down and bottom-up trees and the flame graph of the report's groups; library frames
// (torch, lightning, transformers, runpy, CPython, CUDA libraries) folded unless asked for.
void LeaksPanel::buildTrees() {
    if (!analysis_) return;
    const Capture& c = analysis_->capture();
    const auto& groups = result_.report.groups;
    const bool fold = !libraries_->isChecked();
    std::shared_ptr<const Capture> keep(analysis_, &c);
    topDownModel_->setTree(keep, &c, CallTree::build(c, groups, CallTree::Direction::TopDown, true, fold));
    bottomUpModel_->setTree(keep, &c, CallTree::build(c, groups, CallTree::Direction::BottomUp, true, fold));
    flame_->setTree(&c, CallTree::build(c, groups, CallTree::Direction::TopDown, true, fold));
    topDown_->expandToDepth(4);
    bottomUp_->expandToDepth(0);
    for (auto* v : {topDown_, bottomUp_}) v->resizeColumnToContents(CallTreeModel::Bytes);
    applyFilter(search_->text());
}

void LeaksPanel::fillGroups() {
    // what each group mostly is (activations kept, gradients, inputs...), found with the report
    groupsModel_->setGroups(analysis_, result_.report.groups, libraries_->isChecked(), result_.kinds);
    if (groupsFilter_->rowCount()) groupsView_->expand(groupsFilter_->index(0, 0));
    for (int col = 0; col < SurvivorGroupModel::Site; ++col) groupsView_->resizeColumnToContents(col);
}

int LeaksPanel::groupRows() const {
    return groupsModel_->rowCount();
}

void LeaksPanel::selectGroup(int row) {
    if (row >= 0 && row < groupsModel_->rowCount())
        groupsView_->setCurrentIndex(groupsFilter_->mapFromSource(groupsModel_->index(row, 0)));
    else
        onGroupSelected(-1);
}

void LeaksPanel::onGroupSelected(int row) {
    const auto& groups = result_.report.groups;
    if (!analysis_ || !result_.inputs || row < 0 || size_t(row) >= groups.size()) {
        spark_->setSeries({}, 1, 0, 0, {});
        emit groupHighlighted(device_, {}, {});
        return;
    }
    const DeviceTrace& t = analysis_->trace(device_);
    const SurvivorGroup& g = groups[size_t(row)];
    auto seconds = [&](uint32_t e) { return secondsAt(e); };
    // the first group's points were found with the report; shown once, then found again if asked
    auto points = row == 0 && !result_.firstGroupSpark.empty()
                      ? std::move(result_.firstGroupSpark)
                      : liveBytes(*result_.inputs->categories, t, originUs_, g.stack);
    const LeakReport& r = result_.report;
    spark_->setSeries(std::move(points), seconds(uint32_t(t.eventCount() - 1)), seconds(r.first),
                      seconds(r.last), tr("live bytes of every block from group #%1's stack").arg(row + 1));
    if (row == 0) { // found with the report, off the GUI thread
        emit groupHighlighted(device_, result_.firstGroupTimes, result_.firstGroupEvents);
        return;
    }
    const QVector<quint32> events = groupEvents(row);
    emit groupHighlighted(device_, timesOf(t, originUs_, events), events);
}

std::vector<std::pair<double, double>>
LeaksPanel::liveBytes(const DeviceCategories& device, const DeviceTrace& t, int64_t originUs, StackId stack) {
    using Step = std::pair<uint32_t, int64_t>; // +bytes at each alloc, -bytes at each free
    const auto steps = device.byStack.steps<Step>(
        device.allocations, stack,
        [](uint32_t e, const Allocation& a, bool free) {
            return Step(e, free ? -int64_t(a.bytes) : int64_t(a.bytes));
        },
        [](const Step& s) { return s.first; });
    std::vector<std::pair<double, double>> points;
    points.reserve(steps.size());
    int64_t live = 0;
    for (const auto& [e, d] : steps) points.emplace_back(secondsOf(t, originUs, e), double(live += d));
    return points;
}

QVector<quint32> LeaksPanel::groupEvents(int row) const {
    const auto& groups = result_.report.groups;
    if (row < 0 || size_t(row) >= groups.size()) return {};
    return eventsOf(lifetimes(), groups[size_t(row)]);
}

QVector<double> LeaksPanel::timesOf(const DeviceTrace& t, int64_t originUs, const QVector<quint32>& events) {
    QVector<double> times;
    times.reserve(events.size());
    for (quint32 e : events) times.push_back(secondsOf(t, originUs, e));
    return times;
}

// The alloc events of a group's allocations, ascending.
QVector<quint32> LeaksPanel::eventsOf(const std::vector<Allocation>& all, const SurvivorGroup& g) {
    QVector<quint32> events;
    events.reserve(qsizetype(g.allocations.size()));
    for (uint32_t a : g.allocations) events.push_back(all[a].alloc);
    // a stack's survivors come in alloc order already (a leak's ~1M at 100M events): see, don't sort
    if (!std::is_sorted(events.begin(), events.end())) std::sort(events.begin(), events.end());
    return events;
}

void LeaksPanel::groupMenu(const QPoint& pos) {
    const int row = SurvivorGroupModel::groupRow(groupsFilter_->mapToSource(groupsView_->indexAt(pos)));
    if (row < 0) return;
    QMenu menu(this);
    QAction* show = menu.addAction(tr("Show Allocations in the Event List"), this,
                                   [this, row] { emit showAllocationsRequested(device_, groupEvents(row)); });
    show->setToolTip(tr("Mark this group's allocation events in the event list and select the first; "
                        "F3 / Shift+F3 step through them"));
    menu.exec(groupsView_->viewport()->mapToGlobal(pos));
}

void LeaksPanel::setSearch(const QString& text) {
    search_->setText(text);
}

void LeaksPanel::showView(int tab) {
    views_->setCurrentIndex(tab);
}

void LeaksPanel::applyFilter(const QString& text) {
    groupsFilter_->setFilterFixedString(text);
    topDownFilter_->setFilterFixedString(text);
    bottomUpFilter_->setFilterFixedString(text);
    if (!text.isEmpty()) topDown_->expandAll(), bottomUp_->expandAll();
    flame_->setSearch(text);
}

} // namespace vs::ui
