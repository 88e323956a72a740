// `retention FILE [--json] [--groups K]`: which Python objects keep the blocks alive, per recorded
// retention graph: groups by path signature with bytes, verdict, a hint and the shortest path.
#include "Commands.h"

#include "analysis/CaptureAnalysis.h"
#include "analysis/retention/Retention.h"
#include "util/Format.h"
#include "util/JsonWriter.h"

namespace vs::cli {
namespace {

void writeJson(const Capture& c, size_t maxGroups, std::ostream& out) {
    JsonWriter j(out);
    j.beginObject().key("graphs").beginArray();
    for (const auto& g : c.retention) {
        const auto r = analyseRetention(c, g);
        j.beginObject()
            .field("trigger", std::string(c.strings.text(g.trigger)))
            .field("device", g.device)
            .field("time_us", g.timeUs)
            .field("objects_scanned", g.objectsScanned)
            .field("millis", uint64_t(g.millis))
            .field("truncated", g.truncated)
            .field("nodes", uint64_t(g.nodes.size()))
            .field("bytes", r.totalBytes)
            .key("groups")
            .beginArray();
        for (size_t k = 0; k < std::min(maxGroups, r.groups.size()); ++k) {
            const auto& grp = r.groups[k];
            j.beginObject()
                .field("bytes", grp.bytes)
                .field("blocks", uint64_t(grp.blocks.size()))
                .field("verdict", std::string(retentionVerdictText(grp.verdict)))
                .field("suspicious", grp.suspicious)
                .field("signature", grp.signature)
                .field("hint", grp.hint)
                .field("path", retentionPathText(c, g, r, grp.blocks.front()))
                .endObject();
        }
        j.endArray().endObject();
    }
    j.endArray().endObject();
    out << '\n';
}

void writeText(const Capture& c, size_t maxGroups, std::ostream& out) {
    for (const auto& g : c.retention) {
        const auto r = analyseRetention(c, g);
        out << "retention at " << c.strings.text(g.trigger) << " (device " << g.device
            << "): " << humanBytes(int64_t(r.totalBytes)) << " in " << g.nodes.size() << " nodes, "
            << g.objectsScanned << " objects scanned in " << g.millis << " ms"
            << (g.truncated ? " (truncated)" : "") << '\n';
        for (size_t k = 0; k < std::min(maxGroups, r.groups.size()); ++k) {
            const auto& grp = r.groups[k];
            out << "  #" << k + 1 << "  " << humanBytes(int64_t(grp.bytes)) << " in " << grp.blocks.size()
                << " blocks, " << retentionVerdictText(grp.verdict)
                << (grp.suspicious ? "  [suspicious]" : "") << '\n'
                << "      " << retentionPathText(c, g, r, grp.blocks.front()) << '\n';
            if (!grp.hint.empty()) out << "      hint: " << grp.hint << '\n';
        }
    }
}

} // namespace

int runRetention(const std::vector<std::string>& args, std::ostream& out) {
    const CliArgs a(args, {"--json"}, {"--groups"});
    const auto analysis = openCapture(a.file());
    const auto& c = analysis->capture();
    if (c.retention.empty())
        throw UsageError(
            "the capture holds no retention graph (record with the vramscope agent, retention=True)");
    const size_t groups = static_cast<size_t>(a.integer("--groups").value_or(10));
    a.has("--json") ? writeJson(c, groups, out) : writeText(c, groups, out);
    return 0;
}

} // namespace vs::cli
