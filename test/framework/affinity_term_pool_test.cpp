#include "scheduling/framework/affinity_term_pool.hpp"

#include <boost/test/unit_test.hpp>
#include <memory>
#include <string>
#include <vector>

#include "scheduling/framework/types.hpp"
#include "test/testing/wrappers.hpp"

namespace scheduling::framework {
namespace {

using ::testing::affinityTerm;
using ::testing::kPreferredReq;
using ::testing::kRequiredReq;
using ::testing::MakeLabelSelector;
using ::testing::MakePod;

// A replica of a workload: hostname anti-affinity against its app, preferred zone affinity.
api::Pod replica(const std::string& name, const std::string& ns, const std::string& app) {
  return MakePod()
      .name(name)
      .ns(ns)
      .uid(ns + "/" + name)
      .schedulerName("default-scheduler")
      .label("app", app)
      .node("n1")
      .podAntiAffinityIn("app", "kubernetes.io/hostname", {app}, kRequiredReq)
      .podAffinityIn("app", "topology.kubernetes.io/zone", {"cache"}, kPreferredReq)
      .obj();
}

BOOST_AUTO_TEST_SUITE(AffinityTermPoolTest)

// A term that fails to parse: the cached copy reports the error NewPodInfo gives, and pods
// whose lists failed alike share one copy of lists and error.
BOOST_AUTO_TEST_CASE(CachedPodKeepsItsParseError) {
  AffinityTermPool pool;
  const auto broken = [](std::string name) {
    return MakePod()
        .name(std::move(name))
        .ns("shop")
        .podAffinity(affinityTerm(MakeLabelSelector().in("app", {"{{bad}}"}).obj(), "zone"),
                     kRequiredReq)
        .obj();
  };
  const PodInfo parsed(std::make_shared<const api::Pod>(broken("a")));
  BOOST_TEST_REQUIRE(!parsed.parseError().empty());
  const auto a = PodInfo::forCache(broken("a"), pool);
  const auto b = PodInfo::forCache(broken("b"), pool);
  BOOST_TEST(a->parseError() == parsed.parseError());
  BOOST_TEST(b->parseError() == parsed.parseError());
  BOOST_TEST(&a->parseError() == &b->parseError());
  BOOST_TEST(PodInfo::forCache(replica("web-1", "shop", "web"), pool)->parseError().empty());
}

// The cached copy parses like the pod's own PodInfo, then drops the raw affinity.
BOOST_AUTO_TEST_CASE(CachedPodKeepsItsTermsNotItsRawAffinity) {
  AffinityTermPool pool;
  const api::Pod pod = replica("web-1", "shop", "web");
  const PodInfo parsed(std::make_shared<const api::Pod>(pod));
  const auto cached = PodInfo::forCache(pod, pool);
  BOOST_TEST(!cached->pod().spec.affinity.has_value());
  BOOST_TEST(cached->hasPodAffinityOrAntiAffinity());
  BOOST_TEST((cached->requiredAntiAffinityTerms() == parsed.requiredAntiAffinityTerms()));
  BOOST_TEST((cached->preferredAffinityTerms() == parsed.preferredAffinityTerms()));
  BOOST_TEST(cached->requiredAntiAffinityTerms().size() == 1U);
  BOOST_TEST(cached->pod().metadata.labels == pod.metadata.labels);
  BOOST_TEST(!pod.spec.schedulerName.empty());
  BOOST_TEST(cached->pod().spec.schedulerName.empty());  // only /bind reads it, of its own pod

  const auto plain = PodInfo::forCache(MakePod().name("p").ns("shop").uid("u").obj(), pool);
  BOOST_TEST(!plain->hasPodAffinityOrAntiAffinity());
  BOOST_TEST(plain->requiredAntiAffinityTerms().empty());
  BOOST_TEST(pool.size() == 1U);  // pods without terms do not go through the pool
}

// Replicas in one namespace share one copy; the same spec in another namespace resolves its
// terms to that namespace, so it is another list.
BOOST_AUTO_TEST_CASE(EqualListsAreSharedUnequalOnesAreNot) {
  AffinityTermPool pool;
  const auto a = PodInfo::forCache(replica("web-1", "shop", "web"), pool);
  const auto b = PodInfo::forCache(replica("web-2", "shop", "web"), pool);
  const auto c = PodInfo::forCache(replica("web-1", "blog", "web"), pool);
  const auto d = PodInfo::forCache(replica("api-1", "shop", "api"), pool);
  BOOST_TEST(&a->requiredAntiAffinityTerms() == &b->requiredAntiAffinityTerms());
  BOOST_TEST(&a->requiredAntiAffinityTerms() != &c->requiredAntiAffinityTerms());
  BOOST_TEST(&a->requiredAntiAffinityTerms() != &d->requiredAntiAffinityTerms());
  BOOST_TEST(c->requiredAntiAffinityTerms().front().namespaces == std::vector<std::string>{"blog"});
  BOOST_TEST(pool.size() == 3U);
}

// Rewriting a copy's terms (as the plugins do with the incoming pod's) leaves the lists it
// shared untouched.
BOOST_AUTO_TEST_CASE(MutableAccessCopiesSharedLists) {
  AffinityTermPool pool;
  const auto cached = PodInfo::forCache(replica("web-1", "shop", "web"), pool);
  PodInfo copy = *cached;
  copy.mutableRequiredAntiAffinityTerms().front().namespaces = {"elsewhere"};
  BOOST_TEST(cached->requiredAntiAffinityTerms().front().namespaces ==
             std::vector<std::string>{"shop"});
  BOOST_TEST(copy.requiredAntiAffinityTerms().front().namespaces ==
             std::vector<std::string>{"elsewhere"});

  PodInfo none(std::make_shared<const api::Pod>(MakePod().name("p").uid("u").obj()));
  PodInfo other(std::make_shared<const api::Pod>(MakePod().name("q").uid("v").obj()));
  none.mutableRequiredAffinityTerms().push_back(AffinityTerm{});
  BOOST_TEST(none.requiredAffinityTerms().size() == 1U);
  BOOST_TEST(other.requiredAffinityTerms().empty());  // the shared empty lists stay empty
}

// Lists no pod holds are forgotten once they outnumber the live ones, and a live one is
// still found after the sweep.
BOOST_AUTO_TEST_CASE(ForgetsListsNoPodHolds) {
  AffinityTermPool pool;
  const auto kept = PodInfo::forCache(replica("kept", "shop", "kept"), pool);
  for (int i = 0; i < 3000; ++i) {
    PodInfo::forCache(replica("p", "shop", "app-" + std::to_string(i)), pool);
  }
  BOOST_TEST(pool.size() < 1100U);
  const auto again = PodInfo::forCache(replica("kept-2", "shop", "kept"), pool);
  BOOST_TEST(&again->requiredAntiAffinityTerms() == &kept->requiredAntiAffinityTerms());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace scheduling::framework
