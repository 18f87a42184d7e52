#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <typeinfo>
#include <utility>
#include <vector>

#include "scheduling/framework/listers.hpp"

namespace scheduling::framework {

// Per-cycle plugin data (framework.StateData).
class StateData {
 public:
  virtual ~StateData() = default;
  virtual std::unique_ptr<StateData> clone() const = 0;
};

// framework.CycleState: what plugins hand from one extension point to the next within one
// scheduling cycle. Unlike upstream, it also carries the cycle's snapshot: kube-scheduler
// runs one cycle at a time against the handle's snapshot, while the extender runs cycles
// for concurrent requests, each on the snapshot it started with.
class CycleState {
 public:
  explicit CycleState(std::shared_ptr<const SharedLister> snapshot)
      : snapshot_(snapshot.get()), snapshotOwner_(std::move(snapshot)) {}

  const SharedLister& snapshot() const { return *snapshot_; }

  // Keys are string constants, as upstream's StateKeys are: the state keeps the view.
  void write(std::string_view key, std::unique_ptr<StateData> data) {
    for (auto& [k, v] : data_) {
      if (k == key) {
        v = std::move(data);
        return;
      }
    }
    data_.emplace_back(key, std::move(data));
  }

  // nullptr when nothing of type T was written under key. Filter and Score read their
  // plugin's state for every node: the exact type, which plugins write, is recognised by
  // its type_info before dynamic_cast walks a class hierarchy.
  template <typename T>
  T* read(std::string_view key) const {
    for (const auto& [k, v] : data_) {
      if (k != key) continue;
      StateData* data = v.get();
      if (data != nullptr && typeid(*data) == typeid(T)) return static_cast<T*>(data);
      return dynamic_cast<T*>(data);
    }
    return nullptr;
  }

  // Copy of every StateData, as CycleState.Clone. Valid while this state lives: the runtime
  // clones within a cycle only (a node's nominated pods, a preemption candidate), so the
  // copy reads this state's snapshot, and StateData clones may read this state's data,
  // rather than take shared ownership of them, which costs atomic operations on counters
  // that every worker thread of the cycle touches.
  CycleState clone() const {
    CycleState copy(nullptr);
    copy.snapshot_ = snapshot_;
    copy.data_.reserve(data_.size());
    for (const auto& [k, v] : data_) copy.data_.emplace_back(k, v ? v->clone() : nullptr);
    copy.skipFilterPlugins_ = skipFilterPlugins_;
    copy.skipScorePlugins_ = skipScorePlugins_;
    copy.recordPluginMetrics_ = recordPluginMetrics_;
    return copy;
  }

  // Whether this cycle times its plugin calls (SetRecordPluginMetrics upstream).
  bool recordPluginMetrics() const { return recordPluginMetrics_; }
  void setRecordPluginMetrics(bool record) { recordPluginMetrics_ = record; }

  // Plugins whose PreFilter / PreScore returned Skip this cycle, by the name the plugin
  // reports (which lives as long as the plugin, hence the framework running the cycle).
  void skipFilterPlugin(std::string_view name) { skipFilterPlugins_.emplace_back(name); }
  void skipScorePlugin(std::string_view name) { skipScorePlugins_.emplace_back(name); }
  bool isFilterSkipped(std::string_view name) const { return contains(skipFilterPlugins_, name); }
  bool isScoreSkipped(std::string_view name) const { return contains(skipScorePlugins_, name); }

 private:
  static bool contains(const std::vector<std::string_view>& v, std::string_view name) {
    return std::find(v.begin(), v.end(), name) != v.end();
  }

  const SharedLister* snapshot_;
  std::shared_ptr<const SharedLister> snapshotOwner_;  // null in a clone
  std::vector<std::pair<std::string_view, std::unique_ptr<StateData>>> data_;
  std::vector<std::string_view> skipFilterPlugins_;
  std::vector<std::string_view> skipScorePlugins_;
  bool recordPluginMetrics_ = true;
};

}  // namespace scheduling::framework
