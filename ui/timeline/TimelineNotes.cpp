// Labels a program put on live blocks after the fact (torch.cuda.memory._annotate_memory: a
// snapshot's 'annotate' entries): a dash-dotted line at each, labelled with the text, on the lane of
// the block's device, under the annotations overlay (its toggle and its label placement).
#include "common/TimelineColours.h"
#include "timeline/TimelinePlot.h"
#include "util/DisplayText.h"
#include "util/TimeOrigin.h"

namespace vs::ui {

void TimelinePlot::buildBlockNotes(Lane& lane, size_t device, QCPAxis* x, QCPAxis* y) {
    constexpr size_t kMaxNotes = 500; // a label per step would be a smear and thousands of items
    const Capture& c = analysis_->capture();
    const int ordinal = analysis_->trace(device).device;
    const QPen pen(TimelineColours::forPalette(palette()).annotation, 1, Qt::DashDotLine);
    size_t shown = 0;
    for (const BlockAnnotation& n : c.blockAnnotations) {
        if (n.device != ordinal) continue;
        if (++shown > kMaxNotes) break;
        // A one-line marker: a short cut (a 48 MB label drawn whole took 11 GB, issue 47).
        const std::string text = displayText(c.strings.text(n.text), "label", kMarkerTextBytes);
        const auto [line, label] = addMarker(
            lane.rect, x, y, secondsSince(originUs_, n.timeUs),
            QStringLiteral("\u270e ") + QString::fromUtf8(text.data(), qsizetype(text.size())), pen);
        lane.annotationItems.push_back(line);
        lane.annotationItems.push_back(label);
    }
    if (shown)
        lane.noteKey = legendKey(x, y, tr("block labels added after the fact (_annotate_memory)"), pen);
}

} // namespace vs::ui
