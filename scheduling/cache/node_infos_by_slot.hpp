#pragma once

#include <memory>

#include "scheduling/cache/chunked_array.hpp"
#include "scheduling/framework/types.hpp"

namespace scheduling::cache {

// A snapshot's NodeInfos by the Cache's node slots: null for a ghost or a free slot. The
// chunks where no node changed are shared with the previous snapshot, so a publish after a
// pod event copies one chunk, whatever the cluster's size.
using NodeInfosBySlot = ChunkedArray<std::shared_ptr<const framework::NodeInfo>>;

// The NodeInfo at `slot`, null for a ghost, a free slot or one past the table.
inline const framework::NodeInfo* nodeInfoAt(const NodeInfosBySlot& infos,
                                             framework::NodeSlot slot) {
  return slot < infos.size() ? infos[slot].get() : nullptr;
}

}  // namespace scheduling::cache
