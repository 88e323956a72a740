#pragma once
// Text from a file (a block's label, user_metadata, a setting) as a view or a line of output shows it:
// at most a few KB, cut at a character boundary, its full length said. A 48 MB label drawn whole took
// the GUI 11 GB (issue 47); the model keeps the text, every place that shows it goes through here.
#include <string>
#include <string_view>

namespace vs {

constexpr size_t kDisplayTextBytes = 4096;
constexpr size_t kMarkerTextBytes = 200; // a one-line label drawn on a plot (the timeline's markers)

// The longest prefix of `s` of at most `max` bytes that does not end inside a UTF-8 character.
std::string_view cutAtCharacter(std::string_view s, size_t max);

// `s` itself when it fits in `max` bytes; else its first bytes and "… (48.00 MiB label)", `what`
// naming the text.
std::string displayText(std::string_view s, std::string_view what, size_t max = kDisplayTextBytes);

} // namespace vs
