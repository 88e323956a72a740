#pragma once
// The text of a trace entry's user_metadata (torch.cuda.memory._set_memory_metadata stamps it on
// every entry a thread makes; an 'annotate' entry carries its label there). PyTorch writes a string;
// memory_viz also shows a dict, as "key: value" lines. Anything else has no text.
#include "PickleMachine.h"

#include <optional>
#include <string>

namespace vs {

// A string as written; a dict of text or number keys and scalar values as "key: value, key: value"
// (in the file's order); nullopt for any other value (a nested dict, a list, a number...).
std::optional<std::string> userMetadataText(const pickle::PickleMachine& m, pickle::Value v);

} // namespace vs
