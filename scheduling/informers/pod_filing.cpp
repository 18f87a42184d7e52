#include "scheduling/informers/pod_filing.hpp"

#include <utility>

#include "scheduling/api/json/api_server_codec.hpp"

namespace scheduling::informers {

namespace {

// Items per batch, and batches waiting at each step: enough that the threads rarely wait for
// each other, few enough that the pods between them are a few MiB.
constexpr std::size_t kBatchItems = 256;
constexpr std::size_t kBatchesInFlight = 8;

}  // namespace

PodFiling::PodFiling(cache::Cache& cache)
    : cache_(cache),
      texts_(kBatchesInFlight),
      pods_(kBatchesInFlight),
      decoder_([this] { decode(); }),
      filer_([this] { file(); }) {}

PodFiling::~PodFiling() {
  if (!decoder_.joinable()) return;
  try {
    finish();
  } catch (...) {
    // A thread failed; the reflector that owned this list has already moved on.
  }
}

void PodFiling::add(std::string_view itemText, std::size_t index) {
  if (batch_.ends.empty()) {
    batch_.firstIndex = index;
    batch_.bytes.reserve(itemText.size() * (kBatchItems + kBatchItems / 4));
  }
  batch_.bytes.append(itemText);
  batch_.ends.push_back(batch_.bytes.size());
  if (batch_.ends.size() < kBatchItems) return;
  if (!texts_.push(std::move(batch_))) {
    // The decoding thread has stopped taking batches: a thread failed.
    join();
    rethrowFailure();
  }
  batch_ = {};
}

bool PodFiling::finish() {
  if (decoder_.joinable()) {
    if (!batch_.ends.empty()) texts_.push(std::move(batch_));  // false: rethrown below
    texts_.close();
    join();
  }
  rethrowFailure();
  return placed_;
}

void PodFiling::decode() {
  PodChannel::Batch pods;
  try {
    while (auto texts = texts_.pop()) {
      pods.reserve(texts->ends.size());
      std::size_t begin = 0;
      for (std::size_t i = 0; i < texts->ends.size(); ++i) {
        const std::string_view text(texts->bytes.data() + begin, texts->ends[i] - begin);
        begin = texts->ends[i];
        api::Pod pod = api::json::decodeListItem<api::Pod>(text, texts->firstIndex + i);
        pods.push_back(cache_.preparePod(std::move(pod)));
      }
      if (!pods_.push(std::exchange(pods, {}))) break;  // the filing thread failed
    }
    pods_.close();
  } catch (...) {
    // The pods before the one that failed are filed, as the reflector filed them when it
    // decoded them itself.
    if (!pods.empty()) pods_.push(std::move(pods));
    pods_.close(std::current_exception());
  }
  texts_.abandon();  // a no-op once the texts were all taken
}

void PodFiling::file() {
  try {
    while (auto batch = pods_.pop()) {
      for (framework::PodInfoPtr& pod : *batch) {
        if (cache_.upsertPod(std::move(pod))) placed_ = true;
      }
    }
  } catch (...) {
    failure_ = std::current_exception();
    pods_.abandon();
  }
}

void PodFiling::join() {
  decoder_.join();
  filer_.join();
}

void PodFiling::rethrowFailure() {
  if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
}

}  // namespace scheduling::informers
