#pragma once
// The text of a trace entry's user_metadata (torch.cuda.memory._set_memory_metadata stamps it on
// every entry a thread makes; an 'annotate' entry carries its label there). PyTorch writes a string;
// memory_viz also shows a dict, as "key: value" lines. Anything else has no text.
#include "PickleMachine.h"

#include <optional>
#include <string>

namespace vs {

// A dict's text stops at this many bytes: its items may all name one long string through the memo
// (170 references to a 280 KB string in a 317 KB file made a 48 MB label, issue 47), and no view
// shows more of a label than util/DisplayText's few KB.
constexpr size_t kMaxDictMetadataBytes = 4096;

// A string as written; a dict of text or number keys and scalar values as "key: value, key: value"
// (in the file's order), cut after kMaxDictMetadataBytes with "… (N items)"; nullopt for any other
// value (a nested dict, a list, a number...).
std::optional<std::string> userMetadataText(const pickle::PickleMachine& m, pickle::Value v);

} // namespace vs
