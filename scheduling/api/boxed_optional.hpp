#pragma once

#include <memory>
#include <optional>
#include <utility>

namespace scheduling::api {

// An optional whose value lives on the heap, so an absent one costs a pointer. For the
// members of cached objects that are large and usually absent: inline, a pod's spec.affinity
// took 120 bytes and metadata.deletionTimestamp 40, in each of a million cached pods, which
// keep neither (affinity is parsed into terms, and few pods are terminating). Reads like
// std::optional; copies copy the value.
template <typename T>
class BoxedOptional {
 public:
  BoxedOptional() = default;
  BoxedOptional(std::nullopt_t) {}  // NOLINT(google-explicit-constructor): as std::optional
  BoxedOptional(T value)            // NOLINT(google-explicit-constructor): as std::optional
      : value_(std::make_unique<T>(std::move(value))) {}
  BoxedOptional(const BoxedOptional& other)
      : value_(other.value_ ? std::make_unique<T>(*other.value_) : nullptr) {}
  BoxedOptional(BoxedOptional&&) noexcept = default;
  BoxedOptional& operator=(const BoxedOptional& other) {
    if (this != &other) value_ = other.value_ ? std::make_unique<T>(*other.value_) : nullptr;
    return *this;
  }
  BoxedOptional& operator=(BoxedOptional&&) noexcept = default;
  ~BoxedOptional() = default;

  bool has_value() const { return value_ != nullptr; }
  explicit operator bool() const { return has_value(); }
  T& operator*() { return *value_; }
  const T& operator*() const { return *value_; }
  T* operator->() { return value_.get(); }
  const T* operator->() const { return value_.get(); }

  template <typename... Args>
  T& emplace(Args&&... args) {
    value_ = std::make_unique<T>(std::forward<Args>(args)...);
    return *value_;
  }
  void reset() { value_.reset(); }

  friend bool operator==(const BoxedOptional& a, const BoxedOptional& b) {
    return a.has_value() == b.has_value() && (!a.has_value() || *a == *b);
  }

 private:
  std::unique_ptr<T> value_;
};

}  // namespace scheduling::api
