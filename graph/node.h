// Node: one TensorFlow operation in a Graph, with its inputs split into data and control
// edges and its attributes typed.
#ifndef DFC_GRAPH_NODE_H_
#define DFC_GRAPH_NODE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/attr.h"

namespace dfc {

// Output `index` of node `node`: written "node" for index 0, "node:1" otherwise.
struct TensorId {
  std::string node;
  int index = 0;

  // Parses "name", "name:3". Fails on "name:", "name:x", "name:-1" and "^name".
  static absl::StatusOr<TensorId> Parse(absl::string_view text);
  std::string ToString() const;
  bool operator==(const TensorId&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const TensorId& t) {
    return H::combine(std::move(h), t.node, t.index);
  }
};

// A NodeDef input as a GraphDef holds it, read without checks (a graph is validated when it is
// built): "^name" is a control input on node `name`, "name:2" output 2 of it, "name" output 0.
struct NodeInput {
  TensorId tensor;
  bool control = false;
};
NodeInput ParseNodeInput(absl::string_view text);

struct Node {
  std::string name;
  std::string op;
  std::string device;
  std::vector<TensorId> inputs;             // data inputs, in order
  std::vector<std::string> control_inputs;  // from "^name"
  AttrMap attrs;

  bool HasAttr(absl::string_view key) const { return attrs.contains(key); }

  // Typed access. A missing attribute or one of another kind is an error that names this
  // node, the attribute and the kind expected.
  absl::StatusOr<DType> GetType(absl::string_view key) const;
  absl::StatusOr<int64_t> GetInt(absl::string_view key) const;
  absl::StatusOr<float> GetFloat(absl::string_view key) const;
  absl::StatusOr<bool> GetBool(absl::string_view key) const;
  absl::StatusOr<std::string> GetString(absl::string_view key) const;
  absl::StatusOr<PartialShape> GetShape(absl::string_view key) const;
  absl::StatusOr<Tensor> GetTensor(absl::string_view key) const;
  absl::StatusOr<AttrList> GetList(absl::string_view key) const;

  // The same, with a default when the attribute is absent (TensorFlow's op defaults).
  absl::StatusOr<int64_t> GetInt(absl::string_view key, int64_t fallback) const;
  absl::StatusOr<float> GetFloat(absl::string_view key, float fallback) const;
  absl::StatusOr<bool> GetBool(absl::string_view key, bool fallback) const;
  absl::StatusOr<std::string> GetString(absl::string_view key, std::string fallback) const;
  absl::StatusOr<DType> GetType(absl::string_view key, DType fallback) const;

  // An InvalidArgument error whose message begins `node "NAME" (OP): `.
  absl::Status Error(absl::string_view message) const;
  // The same prefix on another status, keeping its code (a status that already has it is
  // returned unchanged).
  absl::Status Annotate(const absl::Status& status) const;
};

}  // namespace dfc

#endif  // DFC_GRAPH_NODE_H_
