#pragma once

#include <rapidjson/reader.h>

#include <cstring>

#include "scheduling/api/json/input.hpp"
#include "scheduling/api/json/string_bytes.hpp"

// RapidJSON reads a string's bytes one at a time (a check, a copy and a stack push each),
// except for its own StringStream, whose plain runs it copies 16 bytes at a time. Its reader
// asks `ScanCopyUnescapedString(stream, out)` for that at every turn of the string loop, and
// the generic version copies nothing. This gives our Input the same: the plain run of the
// current window, found by the scan the rest of the decoder uses, copied in one block. The
// loop then handles what ends the run (a quote, an escape, a control byte, the window's end)
// as before, so errors and their offsets are unchanged.
//
// It must be seen before the reader's Parse is instantiated for Input (decoder.cpp includes
// it first). An explicit specialization may name the reader's private StackStream.
namespace rapidjson {

template <>
template <>
[[gnu::always_inline]] inline void
Reader::ScanCopyUnescapedString<scheduling::api::json::Input, Reader::StackStream<char>>(
    scheduling::api::json::Input& is, Reader::StackStream<char>& os) {
  const char* const begin = is.cur();
  const char* const end = scheduling::api::json::findStringSpecial(begin, is.end());
  const auto length = static_cast<SizeType>(end - begin);
  if (length == 0) return;
  std::memcpy(os.Push(length), begin, length);
  is.seek(end);
}

}  // namespace rapidjson
