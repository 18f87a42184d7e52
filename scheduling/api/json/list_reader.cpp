#include "scheduling/api/json/list_reader.hpp"

#include <array>
#include <optional>
#include <string_view>

#include "scheduling/api/json/decoder.hpp"
#include "scheduling/api/json/input.hpp"
#include "scheduling/api/json/object_schemas.hpp"
#include "scheduling/api/json/schema.hpp"
#include "scheduling/api/match_label_keys.hpp"

namespace scheduling::api::json {

namespace {

// The members of a List item that hold what is kept; what they mean depends on `kind`.
constexpr std::array<std::string_view, 3> kObjectMembers = {"metadata", "spec", "status"};

// One List item being read. Items are read one at a time into this single buffer, handed
// to the visitor at their end and cleared.
//
// `kind` usually comes first (kubectl writes apiVersion, kind, metadata, ...), and then
// each object member is decoded straight into the Pod, Node, Namespace or PodDisruptionBudget. When
// it comes later, the object members seen before it are kept as text and decoded at the item's end.
struct ListItem {
  const ListVisitor* visitor = nullptr;
  const std::string* source = nullptr;
  std::optional<std::string> kind;
  Pod pod;
  Node node;
  Namespace ns;
  PodDisruptionBudget pdb;
  std::array<std::string, kObjectMembers.size()> early;  // text of members before kind

  void clear() {
    kind.reset();
    pod = Pod{};
    node = Node{};
    ns = Namespace{};
    pdb = PodDisruptionBudget{};
    for (auto& text : early) text.clear();
  }
};

constexpr Field kKindField = schema::field<&ListItem::kind>("kind", schema::kString);

template <std::size_t I>
void* earlyText(void* item) {
  auto& text = static_cast<ListItem*>(item)->early[I];
  text.clear();  // a repeated member replaces the earlier one
  return &text;
}

template <std::size_t I>
void resetEarlyText(void* item) {
  static_cast<ListItem*>(item)->early[I].clear();
}

constexpr Field kEarlyFields[] = {
    {kObjectMembers[0], &schema::kCapture, &earlyText<0>, &resetEarlyText<0>},
    {kObjectMembers[1], &schema::kCapture, &earlyText<1>, &resetEarlyText<1>},
    {kObjectMembers[2], &schema::kCapture, &earlyText<2>, &resetEarlyText<2>},
};

// Where a member of an item of a known kind goes; other kinds are skipped whole.
Route routeByKind(ListItem& item, std::string_view key) {
  const std::string& kind = *item.kind;
  if (kind == "Pod") return {findField(kPodSchema.fields, key), &item.pod};
  if (kind == "Node") return {findField(kNodeSchema.fields, key), &item.node};
  if (kind == "Namespace") return {findField(kNamespaceSchema.fields, key), &item.ns};
  if (kind == "PodDisruptionBudget") {
    return {findField(kPodDisruptionBudgetSchema.fields, key), &item.pdb};
  }
  return {};
}

Route routeItemMember(void* target, std::string_view key) {
  auto& item = *static_cast<ListItem*>(target);
  if (equalsIgnoreCase(key, kKindField.name)) return {&kKindField, &item};
  if (item.kind) return routeByKind(item, key);
  for (std::size_t i = 0; i < kObjectMembers.size(); ++i) {
    if (equalsIgnoreCase(key, kObjectMembers[i])) return {&kEarlyFields[i], &item};
  }
  return {};
}

void finishItem(Decoder& decoder, void* target) {
  auto& item = *static_cast<ListItem*>(target);
  if (!item.kind) decoder.failMember("kind", "missing");
  const std::string path = decoder.objectPath();
  for (std::size_t i = 0; i < kObjectMembers.size(); ++i) {
    if (item.early[i].empty()) continue;
    const Route route = routeByKind(item, kObjectMembers[i]);
    if (route.field == nullptr) continue;
    Input in(item.early[i]);
    Decoder(in, *item.source, path + "." + std::string(route.field->name))
        .decode(*route.field, route.owner);
  }
  const ListVisitor& visitor = *item.visitor;
  if (*item.kind == "Pod") {
    // Decoded member by member, so the Pod schema's own finishing step did not run.
    mergeLabelKeysUnlessStored(item.pod);
    if (visitor.pod) visitor.pod(std::move(item.pod));
  } else if (*item.kind == "Node") {
    if (visitor.node) visitor.node(std::move(item.node));
  } else if (*item.kind == "Namespace") {
    if (visitor.ns) visitor.ns(std::move(item.ns));
  } else if (*item.kind == "PodDisruptionBudget") {
    if (visitor.pdb) visitor.pdb(std::move(item.pdb));
  }
  item.clear();
}

// Every element of `items` is decoded into the one ListItem.
void* nextItem(void* item, std::string_view) { return item; }
void noClear(void*) {}

constexpr Schema kItem{.type = SchemaType::Object,
                       .expected = "an object",
                       .route = &routeItemMember,
                       .finish = &finishItem};
constexpr Schema kItems{.type = SchemaType::Array,
                        .expected = "an array",
                        .element = &kItem,
                        .add = &nextItem,
                        .clear = &noClear};
constexpr Field kListFields[] = {
    {"items", &kItems, &schema::self, &noClear},
};
constexpr Schema kList{.type = SchemaType::Object, .expected = "an object", .fields = kListFields};
constexpr Field kDocument{"", &kList, &schema::self, &noClear};

}  // namespace

void readList(std::FILE* file, const std::string& source, const ListVisitor& visitor) {
  ListItem item;
  item.visitor = &visitor;
  item.source = &source;
  Input in(file);
  Decoder(in, source).decode(kDocument, &item);
}

}  // namespace scheduling::api::json
