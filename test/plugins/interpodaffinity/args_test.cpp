// InterPodAffinityArgs: defaults (SetDefaults_InterPodAffinityArgs), validation
// (TestValidateInterPodAffinityArgs in pkg/scheduler/apis/config/validation, ported case by
// case) and decoding from YAML.

#include "plugins/interpodaffinity/args.hpp"

#include <boost/test/unit_test.hpp>
#include <string>

#include "scheduling/config/configuration.hpp"

namespace {

namespace ipa = plugins::interpodaffinity;
using scheduling::config::ConfigError;

// The message of the ConfigError `fn` throws, or "" when it does not throw.
template <typename Fn>
std::string errorOf(Fn fn) {
  try {
    fn();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(interpodaffinity_args)

BOOST_AUTO_TEST_CASE(TestValidateInterPodAffinityArgs) {
  struct Case {
    std::string name;
    ipa::InterPodAffinityArgs args;
    std::string wantErr;
  };
  const Case cases[] = {
      {"valid args", {.hardPodAffinityWeight = 10}, ""},
      {"hardPodAffinityWeight less than min",
       {.hardPodAffinityWeight = -1},
       "args.hardPodAffinityWeight: not in valid range [0-100]"},
      {"hardPodAffinityWeight more than max",
       {.hardPodAffinityWeight = 101},
       "args.hardPodAffinityWeight: not in valid range [0-100]"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      BOOST_TEST(errorOf([&] { ipa::validateArgs(c.args, "args"); }) == c.wantErr);
    }
  }
}

BOOST_AUTO_TEST_CASE(Defaults) {
  const ipa::InterPodAffinityArgs defaults;
  BOOST_TEST(defaults.hardPodAffinityWeight == 1);
  BOOST_TEST(!defaults.ignorePreferredTermsOfExistingPods);
  BOOST_TEST((ipa::decodeArgs(YAML::Node(), "args") == defaults));
  BOOST_TEST((ipa::decodeArgs(YAML::Load("~"), "args") == defaults));
  BOOST_TEST((ipa::decodeArgs(YAML::Load("{}"), "args") == defaults));
  BOOST_TEST((ipa::decodeArgs(YAML::Load("{hardPodAffinityWeight: null}"), "args") == defaults));
}

BOOST_AUTO_TEST_CASE(Decode) {
  const auto args = ipa::decodeArgs(
      YAML::Load("{apiVersion: kubescheduler.config.k8s.io/v1, kind: InterPodAffinityArgs, "
                 "hardPodAffinityWeight: 0, ignorePreferredTermsOfExistingPods: true}"),
      "args");
  BOOST_TEST(args.hardPodAffinityWeight == 0);
  BOOST_TEST(args.ignorePreferredTermsOfExistingPods);
  BOOST_TEST(ipa::decodeArgs(YAML::Load(R"({"hardPodAffinityWeight": 100})"), "args")
                 .hardPodAffinityWeight == 100);
}

BOOST_AUTO_TEST_CASE(DecodeErrors) {
  const std::string path = "pluginConfig[0].args";
  const auto decode = [&](const std::string& yaml) {
    return errorOf([&] { ipa::decodeArgs(YAML::Load(yaml), path); });
  };
  BOOST_TEST(decode("{hardPodAffinityWeight: 101}") ==
             "pluginConfig[0].args.hardPodAffinityWeight: not in valid range [0-100]");
  BOOST_TEST(decode("{hardPodAffinityWeight: -1}") ==
             "pluginConfig[0].args.hardPodAffinityWeight: not in valid range [0-100]");
  BOOST_TEST(decode("{hardPodAffinityWieght: 1}") ==
             "pluginConfig[0].args.hardPodAffinityWieght: unknown field");
  BOOST_TEST(decode("{hardPodAffinityWeight: 1.5}") ==
             "pluginConfig[0].args.hardPodAffinityWeight: expected a 32-bit integer, got \"1.5\"");
  BOOST_TEST(decode("{hardPodAffinityWeight: 4294967297}") ==
             "pluginConfig[0].args.hardPodAffinityWeight: expected a 32-bit integer, got "
             "\"4294967297\"");
  BOOST_TEST(decode("{ignorePreferredTermsOfExistingPods: maybe}") ==
             "pluginConfig[0].args.ignorePreferredTermsOfExistingPods: expected a boolean, got "
             "\"maybe\"");
  BOOST_TEST(
      decode("{kind: NodeAffinityArgs}") ==
      "pluginConfig[0].args.kind: expected \"InterPodAffinityArgs\", got \"NodeAffinityArgs\"");
  BOOST_TEST(decode("[1, 2]") == "pluginConfig[0].args: expected an object, got a list");
}

BOOST_AUTO_TEST_SUITE_END()
