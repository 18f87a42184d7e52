#include "plugins/registry.hpp"

#include <boost/test/unit_test.hpp>
#include <memory>
#include <string>

#include "plugins/interpodaffinity/plugin.hpp"
#include "plugins/names.hpp"
#include "scheduling/config/configuration.hpp"
#include "scheduling/framework/runtime/framework.hpp"

BOOST_AUTO_TEST_SUITE(plugins_registry)

BOOST_AUTO_TEST_CASE(InTreeRegistryListsEveryPlugin) {
  const auto registry = plugins::inTreeRegistry();
  BOOST_TEST(registry.factories().size() == 2U);
  for (const auto name : {plugins::names::kInterPodAffinity, plugins::names::kPodState}) {
    BOOST_TEST_CONTEXT(name) {
      const auto* factory = registry.find(std::string(name));
      BOOST_REQUIRE(factory != nullptr);
      const auto plugin = (*factory)(YAML::Node(), "pluginConfig[0].args");
      BOOST_REQUIRE(plugin != nullptr);
      BOOST_TEST(plugin->name() == name);
      // Both score; InterPodAffinity also filters.
      BOOST_TEST(dynamic_cast<const scheduling::framework::ScorePlugin*>(plugin.get()) != nullptr);
    }
  }
}

BOOST_AUTO_TEST_CASE(FactoriesDecodeArgs) {
  const auto registry = plugins::inTreeRegistry();
  const auto plugin = (*registry.find("InterPodAffinity"))(
      YAML::Load("{hardPodAffinityWeight: 7, ignorePreferredTermsOfExistingPods: true}"),
      "pluginConfig[0].args");
  const auto* ipa = dynamic_cast<const plugins::interpodaffinity::InterPodAffinity*>(plugin.get());
  BOOST_REQUIRE(ipa != nullptr);
  BOOST_TEST(ipa->args().hardPodAffinityWeight == 7);
  BOOST_TEST(ipa->args().ignorePreferredTermsOfExistingPods);
  BOOST_CHECK_THROW((*registry.find("InterPodAffinity"))(YAML::Load("{hardPodAffinityWeight: 200}"),
                                                         "pluginConfig[0].args"),
                    scheduling::config::ConfigError);
  BOOST_CHECK_THROW((*registry.find("PodState"))(YAML::Load("{x: 1}"), "pluginConfig[1].args"),
                    scheduling::config::ConfigError);
  // YAML allows any value as a member name; args only have names.
  for (const char* name : {"InterPodAffinity", "PodState"}) {
    BOOST_CHECK_THROW((*registry.find(name))(YAML::Load("{? [a] : 1}"), "pluginConfig[0].args"),
                      scheduling::config::ConfigError);
  }
}

// A pluginConfig entry may leave out args: the plugin then takes its defaults. (yaml-cpp's
// node for the missing member threw when the framework handed it to the factory.)
BOOST_AUTO_TEST_CASE(PluginConfigWithoutArgsTakesTheDefaults) {
  const auto configuration = scheduling::config::parseConfiguration(
      "pluginConfig: [{name: InterPodAffinity}, {name: PodState}]", "cfg.yaml");
  const scheduling::framework::runtime::Framework framework(configuration,
                                                            plugins::inTreeRegistry());
  BOOST_TEST_REQUIRE(framework.filterPlugins().size() == 1U);
  const auto* ipa = dynamic_cast<const plugins::interpodaffinity::InterPodAffinity*>(
      framework.filterPlugins()[0].owner.get());
  BOOST_REQUIRE(ipa != nullptr);
  BOOST_TEST(ipa->args().hardPodAffinityWeight == 1);
  BOOST_TEST(!ipa->args().ignorePreferredTermsOfExistingPods);
}

BOOST_AUTO_TEST_SUITE_END()
