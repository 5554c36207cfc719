// GraphDef file loading. Protobuf's parsers bound recursion and never read past the input, so
// a corrupt file gives an error; the checks here turn its failures into messages that say
// which file and where.
#include "graph/loader.h"

#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/control_flow.h"
#include "graph/functions.h"
#include "graph/resource_variables.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"

namespace dfc {
namespace {

// Keeps the first text-format error (with line and column) instead of letting protobuf log.
class FirstError : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (message_.empty())
      message_ = absl::StrCat("line ", line + 1, ":", column + 1, ": ", message);
  }
  void AddWarning(int, google::protobuf::io::ColumnNumber, const std::string&) override {}
  const std::string& message() const { return message_; }

 private:
  std::string message_;
};

// Protobuf's binary parser needs a size that fits in int.
constexpr size_t kMaxGraphBytes = size_t{2} << 30;

}  // namespace

GraphFormat DetectFormat(absl::string_view bytes) {
  for (unsigned char c : bytes) {
    const bool control = c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v';
    if (control || c == 0x7f) return GraphFormat::kBinary;
  }
  return GraphFormat::kText;
}

absl::StatusOr<tf::GraphDef> ParseGraphDef(absl::string_view bytes, absl::string_view source) {
  if (bytes.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": the file is empty"));
  }
  if (bytes.size() >= kMaxGraphBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": ", bytes.size(), " bytes is over protobuf's 2 GiB limit"));
  }
  tf::GraphDef def;
  if (DetectFormat(bytes) == GraphFormat::kText) {
    // Protobuf's text printer, and so TensorFlow, ends every file with a newline; a file that
    // does not was cut mid-line, and what remains may still parse (a cut inside a trailing
    // comment, or just after a closing brace) into a graph that silently lacks nodes.
    if (bytes.back() != '\n') {
      return absl::InvalidArgumentError(
          absl::StrCat(source,
                       ": the text GraphDef does not end with a newline, so it looks truncated "
                       "(TensorFlow always ends text GraphDefs with one)"));
    }
    google::protobuf::TextFormat::Parser parser;
    FirstError errors;
    parser.RecordErrorsTo(&errors);
    if (!parser.ParseFromString(std::string(bytes), &def)) {
      return absl::InvalidArgumentError(
          absl::StrCat(source, ": not a valid text GraphDef: ", errors.message()));
    }
  } else {
    if (!def.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
      return absl::InvalidArgumentError(absl::StrCat(
          source, ": not a valid binary GraphDef (truncated or corrupt protobuf data)"));
    }
  }
  if (def.node_size() == 0) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": no nodes found (", bytes.size(),
                                                   " bytes, none of them a GraphDef node)"));
  }
  return def;
}

absl::StatusOr<Graph> ParseGraph(absl::string_view bytes, absl::string_view source) {
  absl::StatusOr<tf::GraphDef> def = ParseGraphDef(bytes, source);
  if (!def.ok()) return def.status();
  def = InlineFunctionCalls(*std::move(def));
  if (def.ok()) def = LowerResourceVariables(*std::move(def));
  absl::StatusOr<FunctionBodies> bodies =
      def.ok() ? FunctionalizeControlFlow(*def) : absl::StatusOr<FunctionBodies>(def.status());
  if (!bodies.ok()) {
    return absl::Status(bodies.status().code(),
                        absl::StrCat(source, ": ", bodies.status().message()));
  }
  absl::StatusOr<Graph> graph = Graph::FromGraphDef(*def, *bodies);
  if (!graph.ok()) {
    return absl::Status(graph.status().code(),
                        absl::StrCat(source, ": ", graph.status().message()));
  }
  return graph;
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open the file"));
  std::ostringstream contents;
  contents << in.rdbuf();
  if (in.bad()) return absl::DataLossError(absl::StrCat(path, ": read error"));
  return std::move(contents).str();
}

absl::StatusOr<Graph> LoadGraph(const std::string& path) {
  absl::StatusOr<std::string> bytes = ReadFile(path);
  if (!bytes.ok()) return bytes.status();
  return ParseGraph(*bytes, path);
}

}  // namespace dfc
