// TensorId parsing and typed attribute access for Node.
#include "graph/node.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace dfc {

absl::StatusOr<TensorId> TensorId::Parse(absl::string_view text) {
  if (text.empty() || text[0] == '^') {
    return absl::InvalidArgumentError(absl::StrCat("\"", text, "\" is not a tensor name"));
  }
  TensorId id;
  const size_t colon = text.rfind(':');
  if (colon == absl::string_view::npos) {
    id.node = std::string(text);
    return id;
  }
  const absl::string_view suffix = text.substr(colon + 1);
  int index = 0;
  if (colon == 0 || suffix.empty() ||
      !std::all_of(suffix.begin(), suffix.end(), absl::ascii_isdigit) ||
      !absl::SimpleAtoi(suffix, &index)) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", text, "\" is not a tensor name (expected NODE or NODE:INDEX)"));
  }
  id.node = std::string(text.substr(0, colon));
  id.index = index;
  return id;
}

NodeInput ParseNodeInput(absl::string_view text) {
  NodeInput in;
  if (absl::StartsWith(text, "^")) {
    in.control = true;
    in.tensor.node = std::string(text.substr(1));
    return in;
  }
  const size_t colon = text.rfind(':');
  int index = 0;
  if (colon != absl::string_view::npos && absl::SimpleAtoi(text.substr(colon + 1), &index)) {
    in.tensor = TensorId{std::string(text.substr(0, colon)), index};
  } else {
    in.tensor.node = std::string(text);
  }
  return in;
}

std::string TensorId::ToString() const {
  return index == 0 ? node : absl::StrCat(node, ":", index);
}

bool PartialShape::IsCompatibleWith(const Shape& shape) const {
  if (unknown_rank) return true;
  if (dims.size() != shape.size()) return false;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] >= 0 && dims[i] != shape[i]) return false;
  }
  return true;
}

std::string PartialShape::ToString() const {
  if (unknown_rank) return "<unknown rank>";
  std::vector<std::string> parts;
  for (int64_t d : dims) parts.push_back(d < 0 ? "?" : absl::StrCat(d));
  return absl::StrCat("[", absl::StrJoin(parts, ","), "]");
}

absl::string_view AttrKindName(AttrKind kind) {
  switch (kind) {
    case AttrKind::kNone:
      return "none";
    case AttrKind::kString:
      return "string";
    case AttrKind::kInt:
      return "int";
    case AttrKind::kFloat:
      return "float";
    case AttrKind::kBool:
      return "bool";
    case AttrKind::kType:
      return "type";
    case AttrKind::kShape:
      return "shape";
    case AttrKind::kTensor:
      return "tensor";
    case AttrKind::kList:
      return "list";
    case AttrKind::kFunc:
      return "func";
  }
  return "?";
}

absl::Status Node::Error(absl::string_view message) const {
  return absl::InvalidArgumentError(absl::StrCat("node \"", name, "\" (", op, "): ", message));
}

absl::Status Node::Annotate(const absl::Status& status) const {
  if (status.ok()) return status;
  const std::string prefix = absl::StrCat("node \"", name, "\" (", op, "): ");
  if (absl::StartsWith(status.message(), prefix)) return status;  // already annotated
  return absl::Status(status.code(), absl::StrCat(prefix, status.message()));
}

namespace {

template <typename T, AttrKind kKind>
absl::StatusOr<T> Get(const Node& node, absl::string_view key) {
  auto it = node.attrs.find(key);
  if (it == node.attrs.end()) {
    return node.Error(absl::StrCat("missing attribute \"", key, "\" (", AttrKindName(kKind), ")"));
  }
  if (const T* v = std::get_if<T>(&it->second)) return *v;
  return node.Error(absl::StrCat("attribute \"", key, "\" is a ", AttrKindName(KindOf(it->second)),
                                 ", expected a ", AttrKindName(kKind)));
}

template <typename T, AttrKind kKind>
absl::StatusOr<T> GetOr(const Node& node, absl::string_view key, T fallback) {
  if (!node.HasAttr(key)) return fallback;
  return Get<T, kKind>(node, key);
}

}  // namespace

absl::StatusOr<DType> Node::GetType(absl::string_view k) const {
  return Get<DType, AttrKind::kType>(*this, k);
}
absl::StatusOr<int64_t> Node::GetInt(absl::string_view k) const {
  return Get<int64_t, AttrKind::kInt>(*this, k);
}
absl::StatusOr<float> Node::GetFloat(absl::string_view k) const {
  return Get<float, AttrKind::kFloat>(*this, k);
}
absl::StatusOr<bool> Node::GetBool(absl::string_view k) const {
  return Get<bool, AttrKind::kBool>(*this, k);
}
absl::StatusOr<std::string> Node::GetString(absl::string_view k) const {
  return Get<std::string, AttrKind::kString>(*this, k);
}
absl::StatusOr<PartialShape> Node::GetShape(absl::string_view k) const {
  return Get<PartialShape, AttrKind::kShape>(*this, k);
}
absl::StatusOr<Tensor> Node::GetTensor(absl::string_view k) const {
  return Get<Tensor, AttrKind::kTensor>(*this, k);
}
absl::StatusOr<AttrList> Node::GetList(absl::string_view k) const {
  return Get<AttrList, AttrKind::kList>(*this, k);
}
absl::StatusOr<int64_t> Node::GetInt(absl::string_view k, int64_t fallback) const {
  return GetOr<int64_t, AttrKind::kInt>(*this, k, fallback);
}
absl::StatusOr<float> Node::GetFloat(absl::string_view k, float fallback) const {
  return GetOr<float, AttrKind::kFloat>(*this, k, fallback);
}
absl::StatusOr<bool> Node::GetBool(absl::string_view k, bool fallback) const {
  return GetOr<bool, AttrKind::kBool>(*this, k, fallback);
}
absl::StatusOr<std::string> Node::GetString(absl::string_view k, std::string fallback) const {
  return GetOr<std::string, AttrKind::kString>(*this, k, std::move(fallback));
}
absl::StatusOr<DType> Node::GetType(absl::string_view k, DType fallback) const {
  return GetOr<DType, AttrKind::kType>(*this, k, fallback);
}

}  // namespace dfc
