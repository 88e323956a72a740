#include "CliArgs.h"

#include <cmath>
#include <cstdlib>

namespace vs::cli {

CliArgs::CliArgs(const std::vector<std::string>& args, const std::set<std::string>& flags,
                 const std::set<std::string>& options, size_t maxFiles) {
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a.rfind("--", 0) == 0) {
            std::string name = a, value;
            const bool inlineValue = a.find('=') != std::string::npos;
            if (inlineValue) name = a.substr(0, a.find('=')), value = a.substr(a.find('=') + 1);
            if (flags.count(name) && !inlineValue) {
                flags_.insert(name);
            } else if (options.count(name)) {
                if (!inlineValue) {
                    if (i + 1 >= args.size()) throw UsageError(name + " needs a value");
                    value = args[++i];
                }
                options_[name] = value;
            } else {
                throw UsageError("unknown option " + name);
            }
        } else if (files_.size() < maxFiles) {
            files_.push_back(a);
        } else {
            throw UsageError("unexpected argument '" + a + "'");
        }
    }
    if (files_.empty()) throw UsageError("no input file given");
}

std::optional<std::string> CliArgs::option(const std::string& name) const {
    auto it = options_.find(name);
    if (it == options_.end()) return std::nullopt;
    return it->second;
}

std::optional<double> CliArgs::number(const std::string& name) const {
    auto v = option(name);
    if (!v) return std::nullopt;
    char* end = nullptr;
    const double d = std::strtod(v->c_str(), &end);
    if (v->empty() || *end || !std::isfinite(d)) throw UsageError(name + " needs a number, not '" + *v + "'");
    return d;
}

std::optional<int> CliArgs::integer(const std::string& name) const {
    auto v = option(name);
    if (!v) return std::nullopt;
    char* end = nullptr;
    const long n = std::strtol(v->c_str(), &end, 10);
    if (v->empty() || *end || n < 0 || n > 1 << 20)
        throw UsageError(name + " needs a non-negative integer, not '" + *v + "'");
    return static_cast<int>(n);
}

} // namespace vs::cli
