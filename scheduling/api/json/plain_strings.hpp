#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace scheduling::api::json {

// A list of strings read straight from the bytes, as views of them: what the NodeNames of a
// request nearly always is (thousands of node names, DNS subdomains), found at the cost of
// finding each string's end, 16 bytes at a time, instead of copying each through RapidJSON's
// stack into a string of its own.
struct PlainStrings {
  std::size_t length = 0;  // bytes read, up to the value's end; 0: not such a value
  std::optional<std::vector<std::string_view>> strings;  // none for null
};

// Reads `: null` or `: [ "…" , "…" ]` at the start of `bytes` (what follows a member's name),
// with JSON whitespace anywhere between the tokens, when each string is plain (no escape, no
// control character) and valid UTF-8 (isValidUtf8). Anything else, a value of another type, a
// string that needs unescaping or would be refused, malformed or truncated JSON, reads
// nothing (length 0): the decoder then decodes the value event by event, and gives the result
// or the error that it always gives. What it reads is what that decode would give.
PlainStrings readPlainStrings(std::string_view bytes);

// Reads `: { "…" : "…" , … }` at the start of `bytes` on the same terms, a label map (the
// labels of every Node and Pod in a request: 40 strings per Node of a typical cluster, most of
// what the decoder keeps). Each key and value goes to `put` as it is read, and the bytes read
// are returned; 0 when the value is anything else (a map given up part-way has had its first
// entries put, as Schema::take allows).
std::size_t readPlainStringMap(std::string_view bytes, void* map,
                               void (*put)(void* map, std::string_view key,
                                           std::string_view value));

}  // namespace scheduling::api::json
