// vramscope: the desktop viewer. Also renders views headless: vramscope FILE --screenshot OUT.png
#include "common/Icons.h"
#include "common/Theme.h"
#include "io/LoadError.h"
#include "io/MemoryBudget.h"
#include "session/CaptureLoader.h"
#include "session/Session.h"
#include "timeline/TimelinePlot.h"
#include "views/ranks/RanksWindow.h"
#include "window/Exporter.h"
#include "window/MainWindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QHash>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

int fail(const QString& message) {
    std::fprintf(stderr, "vramscope: error: %s\n", qPrintable(QString(message).replace('\n', ' ')));
    return 2;
}

// Headless rendering of one view for bug reports and CI artefacts.
// Events at or before `seconds` after the first event of the first device.
size_t eventsUpTo(const vs::CaptureAnalysis& a, double seconds) {
    const auto& t = a.trace(0).timeUs;
    const int64_t until = t.front() + static_cast<int64_t>(std::llround(seconds * 1e6));
    return static_cast<size_t>(std::upper_bound(t.begin(), t.end(), until) - t.begin());
}

// Renders one panel of the window on its own, at the asked size, then gives it back to the window.
// The title line goes above it; the image keeps the asked size.
QString renderAlone(QWidget* panel, QWidget* owner, QSize size, const QString& out, const QString& title) {
    panel->setParent(nullptr);
    panel->setAttribute(Qt::WA_DontShowOnScreen);
    panel->resize(size.width(), size.height() - vs::ui::exportTitleHeight(panel, title));
    panel->show();
    QApplication::processEvents();
    // what showing it started in the background (the block map's replay, a retention analysis) lands
    if (auto* window = qobject_cast<vs::ui::MainWindow*>(owner)) window->waitForBackgroundWork();
    const QString error = vs::ui::exportWidget(panel, out, title);
    panel->setParent(owner);
    return error;
}

// A folder of per-rank captures or summaries: the ranks view once it has read them (or said why not).
int screenshotRanks(const QString& folder, const QString& out, QSize size) {
    const QString title = QStringLiteral("Ranks: %1").arg(folder);
    vs::ui::RanksWindow w;
    w.setAttribute(Qt::WA_DontShowOnScreen);
    w.resize(size.width(), size.height() - vs::ui::exportTitleHeight(&w, title));
    w.show();
    w.open({folder});
    w.waitForJobs();
    QApplication::processEvents(); // the job's result is delivered through the event loop
    if (!w.ranks() || w.ranks()->readable() == 0) return fail(w.errorText());
    const QString error = vs::ui::exportWidget(&w, out, title);
    return error.isEmpty() ? 0 : fail(error);
}

int screenshot(const QString& file, const vs::OpenOptions& open, const QString& out, const QString& view,
               const QString& sizeText, double at) {
    const auto m = QRegularExpression(QStringLiteral("^(\\d+)x(\\d+)$")).match(sizeText);
    if (!m.hasMatch()) return fail(QStringLiteral("--size needs WIDTHxHEIGHT, like 1600x900"));
    const QSize size(m.captured(1).toInt(), m.captured(2).toInt());
    if (size.width() < 16 || size.height() < 16 || size.width() > 16384 || size.height() > 16384)
        return fail(QStringLiteral("--size must be between 16x16 and 16384x16384"));
    if (QFileInfo(file).isDir()) return screenshotRanks(file, out, size);
    vs::ui::AnalysisPtr analysis;
    try {
        analysis = vs::ui::CaptureLoader::openNow(file, open);
    } catch (const std::exception& e) {
        return fail(QString::fromUtf8(e.what()));
    }
    vs::ui::MainWindow window;
    window.setAnalysis(file, analysis);
    window.waitForBackgroundWork();
    window.resize(size);
    auto* plot = window.findChild<vs::ui::TimelinePlot*>(QStringLiteral("timeline"));
    plot->resize(size);
    plot->fitAll();
    const QString title = window.exportTitle(); // file, device, range, diagnosis
    // --view NAME: a details tab rendered alone, found by its object name in the window
    const QHash<QString, QString> panels = {{"leaks", "leaksPanel"},        {"retention", "retentionPanel"},
                                            {"blockmap", "blockMap"},       {"memorymap", "memoryMap"},
                                            {"composition", "composition"}, {"bands", "allocationBands"},
                                            {"peak", "peakPanel"}};
    QString error;
    if (view == QLatin1String("timeline")) {
        error = vs::ui::exportPlot(plot, out, size, title);
    } else if (view == QLatin1String("window")) {
        window.resize(size.width(), size.height() - vs::ui::exportTitleHeight(&window, title));
        window.setAttribute(Qt::WA_DontShowOnScreen);
        window.show();
        QApplication::processEvents();
        plot->fitAll();
        plot->replot();
        error = vs::ui::exportWidget(&window, out, title);
    } else if (panels.contains(view)) {
        if (view == QLatin1String("blockmap") && at >= 0)
            window.session()->setMoment(analysis->trace(0).eventCount() ? eventsUpTo(*analysis, at) : 0);
        error = renderAlone(window.findChild<QWidget*>(panels.value(view)), &window, size, out, title);
    } else {
        return fail(QStringLiteral("--view must be timeline, window, blockmap, memorymap, composition, "
                                   "bands, leaks, peak or retention"));
    }
    return error.isEmpty() ? 0 : fail(error);
}

} // namespace

int main(int argc, char** argv) {
    // Headless runs need no display: choose the offscreen platform before Qt starts.
    // --help and --version print and exit: they need no display either.
    bool headless = false;
    for (int i = 1; i < argc; ++i)
        for (const char* flag : {"--screenshot", "--help", "-h", "--help-all", "--version", "-v"})
            headless |= std::strcmp(argv[i], flag) == 0;
    if (headless && !std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
    if (!headless && !std::getenv("QT_QPA_PLATFORM") && !std::getenv("DISPLAY") &&
        !std::getenv("WAYLAND_DISPLAY"))
        return fail(QStringLiteral("no display (DISPLAY and WAYLAND_DISPLAY are unset); render views without "
                                   "one with FILE --screenshot OUT.png, or use vramscope-cli"));

    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("vramscope"));
    QApplication::setApplicationName(QStringLiteral("vramscope"));
    QApplication::setApplicationVersion(QStringLiteral(VRAMSCOPE_VERSION));
    QApplication::setWindowIcon(vs::ui::icons::application());
    // the desktop's light or dark preference (View > Theme); headless renders are light unless asked
    vs::ui::applyTheme(!headless                                      ? vs::ui::savedTheme()
                       : qEnvironmentVariableIsSet("VRAMSCOPE_THEME") ? vs::ui::Theme::System
                                                                      : vs::ui::Theme::Light);
    QGuiApplication::setDesktopFileName(QStringLiteral("vramscope")); // the .desktop entry, for the dock

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Find GPU memory leaks: opens vramscope recordings (.vscap, from `python -m vramscope record`, "
        "the CUPTI agent or a live session) and PyTorch memory snapshots "
        "(torch.cuda.memory._dump_snapshot: .pickle, .pickle.gz, .pickle.zst), and torch.profiler traces "
        "recorded with profile_memory=True (export_chrome_trace: .json, .json.gz)."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(
        QStringLiteral("files"),
        QStringLiteral("Captures to open (.vscap, .pickle, .pickle.gz, .pickle.zst, .json, .json.gz), or a "
                       "folder of per-rank captures or summaries (.vsrank): the ranks view"),
        QStringLiteral("[FILE...]"));
    QCommandLineOption shot(QStringLiteral("screenshot"),
                            QStringLiteral("Render a view of FILE to OUT (png, svg, pdf) and exit."),
                            QStringLiteral("OUT"));
    QCommandLineOption view(QStringLiteral("view"),
                            QStringLiteral("View for --screenshot: timeline, window, blockmap, memorymap, "
                                           "composition, bands (allocation bands), leaks, peak, retention."),
                            QStringLiteral("VIEW"), QStringLiteral("timeline"));
    QCommandLineOption size(QStringLiteral("size"), QStringLiteral("Image size for --screenshot."),
                            QStringLiteral("WxH"), QStringLiteral("1600x900"));
    QCommandLineOption atOption(
        QStringLiteral("at"),
        QStringLiteral("Moment for --view blockmap, in seconds since the first event (default: the end)."),
        QStringLiteral("S"));
    QCommandLineOption maxMemory(
        QStringLiteral("max-memory"),
        QStringLiteral(
            "The most memory one file may take to load (default: half of the RAM): 8G, 512M, bytes."),
        QStringLiteral("SIZE"));
    parser.addOptions({shot, view, size, atOption, maxMemory});
    QCommandLineOption fromOption(
        QStringLiteral("from"), QStringLiteral("Load only the window from S seconds after the first event."),
        QStringLiteral("S"));
    QCommandLineOption toOption(QStringLiteral("to"),
                                QStringLiteral("Load only the window up to S seconds after the first event."),
                                QStringLiteral("S"));
    parser.addOptions({fromOption, toOption});
    parser.process(app);
    const QStringList files = parser.positionalArguments();
    if (parser.isSet(maxMemory)) {
        const auto bytes = vs::MemoryBudget::parse(parser.value(maxMemory).toStdString());
        if (!bytes) return fail(QStringLiteral("--max-memory needs a size such as 8G, 512M or a byte count"));
        vs::MemoryBudget::setProcessDefault(*bytes);
    }

    vs::OpenOptions open;
    if (parser.isSet(fromOption) || parser.isSet(toOption)) {
        vs::TimeWindow w;
        bool okFrom = true, okTo = true;
        if (parser.isSet(fromOption)) w.fromS = parser.value(fromOption).toDouble(&okFrom);
        if (parser.isSet(toOption)) w.toS = parser.value(toOption).toDouble(&okTo);
        if (!okFrom || !okTo || !(w.fromS >= 0) || !(w.toS > w.fromS))
            return fail(
                QStringLiteral("--from and --to need seconds since the first event, --to after --from"));
        open.window = w;
    }
    if (parser.isSet(shot)) {
        if (files.size() != 1) return fail(QStringLiteral("--screenshot needs exactly one input file"));
        double at = -1;
        if (parser.isSet(atOption)) {
            bool ok = false;
            at = parser.value(atOption).toDouble(&ok);
            if (!ok || at < 0) return fail(QStringLiteral("--at needs seconds since the first event"));
        }
        return screenshot(files.first(), open, parser.value(shot), parser.value(view), parser.value(size),
                          at);
    }
    vs::ui::MainWindow window;
    window.show();
    if (!files.isEmpty()) window.openFileWith(files.first(), open);
    for (int i = 1; i < files.size(); ++i) { // one window per further file
        auto* other = new vs::ui::MainWindow;
        other->setAttribute(Qt::WA_DeleteOnClose);
        other->show();
        other->openFileWith(files[i], open);
    }
    return app.exec();
}
