// The API server's merge of matchLabelKeys / mismatchLabelKeys into the label selector
// (pkg/registry/core/pod/strategy.go, applyMatchLabelKeysAndMismatchLabelKeys), plus the
// idempotence the extender needs because it mostly reads pods that were merged already.
#include "scheduling/api/match_label_keys.hpp"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "test/testing/wrappers.hpp"

namespace scheduling::api {
namespace {

using ::testing::affinityTerm;
using ::testing::kPreferredReq;
using ::testing::kRequiredReq;
using ::testing::MakeLabelSelector;
using ::testing::MakePod;

PodAffinityTerm withKeys(PodAffinityTerm term, std::vector<std::string> match,
                         std::vector<std::string> mismatch = {}) {
  term.matchLabelKeys = std::move(match);
  term.mismatchLabelKeys = std::move(mismatch);
  return term;
}

const LabelSelector kWeb = MakeLabelSelector().label("tier", "web").obj();

struct Case {
  std::string name;
  Pod pod;
  Pod want;
};

std::ostream& operator<<(std::ostream& os, const Case& c) { return os << c.name; }

const Labels kPodLabels{{"app", "a"}, {"version", "v1"}};

const Case kCases[] = {
    {"no affinity", MakePod().labels(kPodLabels).obj(), MakePod().labels(kPodLabels).obj()},
    {"matchLabelKeys of a required affinity term",
     MakePod()
         .labels(kPodLabels)
         .podAffinity(withKeys(affinityTerm(kWeb, "zone"), {"app"}), kRequiredReq)
         .obj(),
     MakePod()
         .labels(kPodLabels)
         .podAffinity(
             withKeys(affinityTerm(MakeLabelSelector().label("tier", "web").in("app", {"a"}).obj(),
                                   "zone"),
                      {"app"}),
             kRequiredReq)
         .obj()},
    {"mismatchLabelKeys of a preferred anti-affinity term",
     MakePod()
         .labels(kPodLabels)
         .podAntiAffinity(withKeys(affinityTerm(kWeb, "zone"), {}, {"version"}), kPreferredReq, 5)
         .obj(),
     MakePod()
         .labels(kPodLabels)
         .podAntiAffinity(
             withKeys(affinityTerm(
                          MakeLabelSelector().label("tier", "web").notIn("version", {"v1"}).obj(),
                          "zone"),
                      {}, {"version"}),
             kPreferredReq, 5)
         .obj()},
    {"both kinds of keys, match keys first",
     MakePod()
         .labels(kPodLabels)
         .podAntiAffinity(withKeys(affinityTerm(kWeb, "zone"), {"app"}, {"version"}), kRequiredReq)
         .obj(),
     MakePod()
         .labels(kPodLabels)
         .podAntiAffinity(withKeys(affinityTerm(MakeLabelSelector()
                                                    .label("tier", "web")
                                                    .in("app", {"a"})
                                                    .notIn("version", {"v1"})
                                                    .obj(),
                                                "zone"),
                                   {"app"}, {"version"}),
                          kRequiredReq)
         .obj()},
    {"keys the pod does not carry are ignored",
     MakePod()
         .labels(kPodLabels)
         .podAffinity(withKeys(affinityTerm(kWeb, "zone"), {"missing"}, {"gone"}), kPreferredReq)
         .obj(),
     MakePod()
         .labels(kPodLabels)
         .podAffinity(withKeys(affinityTerm(kWeb, "zone"), {"missing"}, {"gone"}), kPreferredReq)
         .obj()},
    {"a nil labelSelector stays nil",
     MakePod()
         .labels(kPodLabels)
         .podAffinity(withKeys(affinityTerm(std::nullopt, "zone"), {"app"}), kRequiredReq)
         .obj(),
     MakePod()
         .labels(kPodLabels)
         .podAffinity(withKeys(affinityTerm(std::nullopt, "zone"), {"app"}), kRequiredReq)
         .obj()},
    {"an empty labelSelector gets the expressions",
     MakePod()
         .labels(kPodLabels)
         .podAffinity(withKeys(affinityTerm(LabelSelector{}, "zone"), {"app"}), kRequiredReq)
         .obj(),
     MakePod()
         .labels(kPodLabels)
         .podAffinity(
             withKeys(affinityTerm(MakeLabelSelector().in("app", {"a"}).obj(), "zone"), {"app"}),
             kRequiredReq)
         .obj()},
    {"already merged: unchanged",
     MakePod()
         .labels(kPodLabels)
         .podAffinity(
             withKeys(affinityTerm(MakeLabelSelector().label("tier", "web").in("app", {"a"}).obj(),
                                   "zone"),
                      {"app"}),
             kRequiredReq)
         .obj(),
     MakePod()
         .labels(kPodLabels)
         .podAffinity(
             withKeys(affinityTerm(MakeLabelSelector().label("tier", "web").in("app", {"a"}).obj(),
                                   "zone"),
                      {"app"}),
             kRequiredReq)
         .obj()},
    {"an expression on the same key with another value is kept and the merge added",
     MakePod()
         .labels(kPodLabels)
         .podAffinity(
             withKeys(affinityTerm(MakeLabelSelector().in("app", {"b"}).obj(), "zone"), {"app"}),
             kRequiredReq)
         .obj(),
     MakePod()
         .labels(kPodLabels)
         .podAffinity(
             withKeys(
                 affinityTerm(MakeLabelSelector().in("app", {"b"}).in("app", {"a"}).obj(), "zone"),
                 {"app"}),
             kRequiredReq)
         .obj()},
};

bool sameSelectors(const PodAffinityTerm& a, const PodAffinityTerm& b) {
  return a.labelSelector == b.labelSelector && a.namespaceSelector == b.namespaceSelector &&
         a.matchLabelKeys == b.matchLabelKeys && a.mismatchLabelKeys == b.mismatchLabelKeys;
}

bool sameAffinity(const std::optional<PodAffinity>& a, const std::optional<PodAffinity>& b) {
  if (a.has_value() != b.has_value()) return false;
  if (!a) return true;
  const auto& ra = a->requiredDuringSchedulingIgnoredDuringExecution;
  const auto& rb = b->requiredDuringSchedulingIgnoredDuringExecution;
  const auto& pa = a->preferredDuringSchedulingIgnoredDuringExecution;
  const auto& pb = b->preferredDuringSchedulingIgnoredDuringExecution;
  if (ra.size() != rb.size() || pa.size() != pb.size()) return false;
  for (std::size_t i = 0; i < ra.size(); ++i) {
    if (!sameSelectors(ra[i], rb[i])) return false;
  }
  for (std::size_t i = 0; i < pa.size(); ++i) {
    if (pa[i].weight != pb[i].weight) return false;
    if (!sameSelectors(pa[i].podAffinityTerm, pb[i].podAffinityTerm)) return false;
  }
  return true;
}

bool sameAffinity(const Pod& a, const Pod& b) {
  if (a.spec.affinity.has_value() != b.spec.affinity.has_value()) return false;
  if (!a.spec.affinity) return true;
  return sameAffinity(a.spec.affinity->podAffinity, b.spec.affinity->podAffinity) &&
         sameAffinity(a.spec.affinity->podAntiAffinity, b.spec.affinity->podAntiAffinity);
}

BOOST_AUTO_TEST_SUITE(api_match_label_keys)

BOOST_DATA_TEST_CASE(MergesAsTheApiServer, boost::unit_test::data::make(kCases), c) {
  Pod pod = c.pod;
  applyMatchLabelKeysAndMismatchLabelKeys(pod);
  BOOST_TEST(sameAffinity(pod, c.want));
}

BOOST_DATA_TEST_CASE(IsIdempotent, boost::unit_test::data::make(kCases), c) {
  Pod pod = c.pod;
  applyMatchLabelKeysAndMismatchLabelKeys(pod);
  applyMatchLabelKeysAndMismatchLabelKeys(pod);
  BOOST_TEST(sameAffinity(pod, c.want));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace scheduling::api
