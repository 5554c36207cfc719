// .npy reading (writing: npy_write.cc). The header is a Python dict literal, parsed here by a
// small recursive-descent parser rather than by pattern matching, so that files written by any
// NumPy version (keys in any order, Python 2 "3L" integers, odd spacing) read the same.
#include "graph/npy.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "graph/npy_internal.h"

namespace dfc {
namespace npy_internal {

// An I/O failure; iostreams do not always leave errno set, so a failure with none is EIO.
absl::Status IoError(int error_number, absl::string_view what) {
  return absl::ErrnoToStatus(error_number != 0 ? error_number : EIO, what);
}

void ByteSwapElements(unsigned char* data, size_t element_size, int64_t num_elements) {
  for (int64_t i = 0; i < num_elements; ++i) {
    std::reverse(data + i * element_size, data + (i + 1) * element_size);
  }
}

}  // namespace npy_internal

namespace {

using npy_internal::ByteSwapElements;
using npy_internal::IoError;
using npy_internal::kLittleEndianHost;
using npy_internal::kMagic;

// Deeper nesting than any NumPy header has; bounds the parser's recursion.
constexpr int kMaxNesting = 32;

absl::Status FileError(absl::string_view source, absl::string_view message,
                       absl::StatusCode code = absl::StatusCode::kInvalidArgument) {
  return absl::Status(code, absl::StrCat(source, ": ", message));
}

absl::Status Annotate(absl::string_view source, const absl::Status& status) {
  return FileError(source, status.message(), status.code());
}

// `text` with bytes outside printable ASCII written as \xNN, for quoting file contents.
std::string Printable(absl::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      absl::StrAppend(&out, "\\x", absl::Hex(c, absl::kZeroPad2));
    }
  }
  return out;
}

// --- The header: a Python literal --------------------------------------------------------------

// A value of the literal subset NumPy headers use: strings, True/False/None, integers, and
// tuples or lists of these.
struct PyValue {
  enum class Kind { kString, kBool, kNone, kInt, kTuple, kList };
  Kind kind = Kind::kNone;
  absl::string_view text;  // the literal as written, quoted in error messages
  std::string string_value;
  bool bool_value = false;
  int64_t int_value = 0;
  std::vector<PyValue> items;
};

class LiteralParser {
 public:
  explicit LiteralParser(absl::string_view text) : text_(text) {}

  // Parses the whole text as one dict with string keys, followed by nothing but whitespace.
  absl::StatusOr<std::vector<std::pair<std::string, PyValue>>> ParseDict() {
    std::vector<std::pair<std::string, PyValue>> entries;
    SkipSpace();
    if (!Consume('{')) return Error("expected '{'");
    while (true) {
      SkipSpace();
      if (Consume('}')) break;
      absl::StatusOr<std::string> key = ParseString();
      if (!key.ok()) return key.status();
      SkipSpace();
      if (!Consume(':')) return Error("expected ':' after a key");
      absl::StatusOr<PyValue> value = ParseValue(1);
      if (!value.ok()) return value.status();
      entries.emplace_back(*std::move(key), *std::move(value));
      SkipSpace();
      if (Consume('}')) break;
      if (!Consume(',')) return Error("expected ',' or '}'");
    }
    SkipSpace();
    if (pos_ != text_.size()) return Error("unexpected text after the dict");
    return entries;
  }

 private:
  absl::Status Error(absl::string_view what) const {
    constexpr size_t kQuoted = 120;
    return absl::InvalidArgumentError(absl::StrCat("malformed header at offset ", pos_, ": ", what,
                                                   " in \"", Printable(text_.substr(0, kQuoted)),
                                                   text_.size() > kQuoted ? "..." : "", "\""));
  }

  void SkipSpace() {
    while (pos_ < text_.size() && absl::ascii_isspace(static_cast<unsigned char>(text_[pos_]))) {
      ++pos_;
    }
  }
  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek() const { return AtEnd() ? '\0' : text_[pos_]; }
  bool Consume(char c) {
    if (Peek() != c || AtEnd()) return false;
    ++pos_;
    return true;
  }

  absl::StatusOr<PyValue> ParseValue(int depth) {
    if (depth > kMaxNesting) return Error("nesting too deep");
    SkipSpace();
    const size_t start = pos_;
    absl::StatusOr<PyValue> value = ParseValueAt(depth);
    if (value.ok()) value->text = text_.substr(start, pos_ - start);
    return value;
  }

  absl::StatusOr<PyValue> ParseValueAt(int depth) {
    PyValue value;
    const char c = Peek();
    if (c == '\'' || c == '"') {
      absl::StatusOr<std::string> s = ParseString();
      if (!s.ok()) return s.status();
      value.kind = PyValue::Kind::kString;
      value.string_value = *std::move(s);
      return value;
    }
    if (c == '(' || c == '[') return ParseSequence(depth);
    if (c == '-' || c == '+' || absl::ascii_isdigit(static_cast<unsigned char>(c))) {
      absl::StatusOr<int64_t> i = ParseInt();
      if (!i.ok()) return i.status();
      value.kind = PyValue::Kind::kInt;
      value.int_value = *i;
      return value;
    }
    size_t end = pos_;
    while (end < text_.size() && absl::ascii_isalnum(static_cast<unsigned char>(text_[end]))) {
      ++end;
    }
    const absl::string_view word = text_.substr(pos_, end - pos_);
    if (word == "True" || word == "False") {
      value.kind = PyValue::Kind::kBool;
      value.bool_value = word == "True";
    } else if (word == "None") {
      value.kind = PyValue::Kind::kNone;
    } else {
      return Error("expected a string, number, True, False, None, tuple or list");
    }
    pos_ = end;
    return value;
  }

  // "(a, b)", "(a,)", "()", "[a, b]"; "(a)" is just a, as in Python.
  absl::StatusOr<PyValue> ParseSequence(int depth) {
    const bool is_tuple = text_[pos_] == '(';
    const char close = is_tuple ? ')' : ']';
    ++pos_;
    PyValue value;
    value.kind = is_tuple ? PyValue::Kind::kTuple : PyValue::Kind::kList;
    bool saw_comma = false;
    while (true) {
      SkipSpace();
      if (Consume(close)) break;
      absl::StatusOr<PyValue> item = ParseValue(depth + 1);
      if (!item.ok()) return item.status();
      value.items.push_back(*std::move(item));
      SkipSpace();
      if (Consume(close)) break;
      if (!Consume(',')) {
        return Error(absl::StrCat("expected ',' or '", absl::string_view(&close, 1), "'"));
      }
      saw_comma = true;
    }
    if (is_tuple && value.items.size() == 1 && !saw_comma) return std::move(value.items[0]);
    return value;
  }

  absl::StatusOr<std::string> ParseString() {
    const char quote = Peek();
    if (quote != '\'' && quote != '"') return Error("expected a quoted string");
    ++pos_;
    std::string out;
    while (!AtEnd() && text_[pos_] != quote) {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) ++pos_;  // keep the escaped char
      out.push_back(text_[pos_++]);
    }
    if (!Consume(quote)) return Error("unterminated string");
    return out;
  }

  // A decimal integer with an optional sign and Python 2's "L" suffix, as an int64.
  absl::StatusOr<int64_t> ParseInt() {
    const size_t start = pos_;
    const bool negative = Peek() == '-';
    if (Peek() == '-' || Peek() == '+') ++pos_;
    if (!absl::ascii_isdigit(static_cast<unsigned char>(Peek()))) return Error("expected digits");
    // Accumulate negatively so that INT64_MIN parses; the limit check precedes each step.
    int64_t value = 0;
    constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
    while (absl::ascii_isdigit(static_cast<unsigned char>(Peek()))) {
      const int digit = text_[pos_++] - '0';
      if (value < (kMin + digit) / 10) {
        pos_ = start;
        return Error("integer does not fit in 64 bits");
      }
      value = value * 10 - digit;
    }
    if (!negative) {
      if (value == kMin) {
        pos_ = start;
        return Error("integer does not fit in 64 bits");
      }
      value = -value;
    }
    if (Peek() == 'L' || Peek() == 'l') ++pos_;
    return value;
  }

  absl::string_view text_;
  size_t pos_ = 0;
};

// --- What the header says ----------------------------------------------------------------------

struct NpyLayout {
  DType dtype = DType::kInvalid;
  size_t element_size = 0;
  bool byte_swap = false;  // the file's byte order is not the host's
  bool fortran_order = false;
  Shape shape;
  int64_t data_bytes = 0;
};

absl::Status UnsupportedDescr(absl::string_view source, absl::string_view descr_text) {
  return FileError(source,
                   absl::StrCat("unsupported dtype descr ", descr_text,
                                " (dfc reads float16/32/64, int8/16/32/64, uint8/16/32/64 and "
                                "bool, in either byte order)"));
}

// '<f4', '>i8', '|b1', '?', '=f2'... into the layout's dtype and byte order.
absl::Status ParseDescr(const PyValue& descr, absl::string_view source, NpyLayout& layout) {
  if (descr.kind != PyValue::Kind::kString) return UnsupportedDescr(source, descr.text);
  absl::string_view type = descr.string_value;
  char order = '=';
  if (!type.empty() && absl::string_view("<>=|").find(type[0]) != absl::string_view::npos) {
    order = type[0];
    type.remove_prefix(1);
  }
  struct Known {
    absl::string_view type;
    DType dtype;
  };
  static constexpr Known kKnown[] = {
      {"f2", DType::kHalf},   {"f4", DType::kFloat},  {"f8", DType::kDouble}, {"i1", DType::kInt8},
      {"i2", DType::kInt16},  {"i4", DType::kInt32},  {"i8", DType::kInt64},  {"u1", DType::kUInt8},
      {"u2", DType::kUInt16}, {"u4", DType::kUInt32}, {"u8", DType::kUInt64}, {"b1", DType::kBool},
      {"?", DType::kBool},
  };
  const auto it = std::find_if(std::begin(kKnown), std::end(kKnown),
                               [&](const Known& k) { return k.type == type; });
  if (it == std::end(kKnown)) return UnsupportedDescr(source, descr.text);
  layout.dtype = it->dtype;
  layout.element_size = SizeOf(it->dtype);
  const bool file_little = order == '<' || (order != '>' && kLittleEndianHost);
  layout.byte_swap = layout.element_size > 1 && file_little != kLittleEndianHost;
  return absl::OkStatus();
}

absl::StatusOr<NpyLayout> ParseHeader(absl::string_view header, absl::string_view source) {
  LiteralParser parser(header);
  absl::StatusOr<std::vector<std::pair<std::string, PyValue>>> entries = parser.ParseDict();
  if (!entries.ok()) return Annotate(source, entries.status());

  const PyValue* descr = nullptr;
  const PyValue* fortran_order = nullptr;
  const PyValue* shape = nullptr;
  for (const auto& [key, value] : *entries) {
    const PyValue** slot = key == "descr"           ? &descr
                           : key == "fortran_order" ? &fortran_order
                           : key == "shape"         ? &shape
                                                    : nullptr;
    if (slot == nullptr) {
      return FileError(source, absl::StrCat("unexpected header key '", Printable(key),
                                            "' (expected descr, fortran_order and shape)"));
    }
    if (*slot != nullptr) {
      return FileError(source, absl::StrCat("header key '", key, "' appears twice"));
    }
    *slot = &value;
  }
  for (const auto& [name, value] : {std::pair<absl::string_view, const PyValue*>{"descr", descr},
                                    {"fortran_order", fortran_order},
                                    {"shape", shape}}) {
    if (value == nullptr) {
      return FileError(source, absl::StrCat("header has no '", name, "' key"));
    }
  }

  NpyLayout layout;
  if (absl::Status s = ParseDescr(*descr, source, layout); !s.ok()) return s;
  if (fortran_order->kind != PyValue::Kind::kBool) {
    return FileError(
        source, absl::StrCat("fortran_order is ", fortran_order->text, ", expected True or False"));
  }
  layout.fortran_order = fortran_order->bool_value;
  if (shape->kind != PyValue::Kind::kTuple) {
    return FileError(source, absl::StrCat("shape is ", shape->text, ", expected a tuple"));
  }
  for (const PyValue& dim : shape->items) {
    if (dim.kind != PyValue::Kind::kInt) {
      return FileError(source, absl::StrCat("shape ", shape->text, " has a dimension ", dim.text,
                                            " that is not an integer"));
    }
    layout.shape.push_back(dim.int_value);
  }
  absl::StatusOr<int64_t> n = NumElements(layout.shape);
  if (!n.ok()) return Annotate(source, n.status());
  const int64_t element_size = static_cast<int64_t>(layout.element_size);
  if (*n > kMaxTensorBytes / element_size) {
    return FileError(
        source,
        absl::StrCat("array ", descr->text, " ", shape->text, " has ", *n, " elements of ",
                     element_size, " bytes, over dfc's limit of ", kMaxTensorBytes, " bytes"),
        absl::StatusCode::kResourceExhausted);
  }
  layout.data_bytes = *n * element_size;
  return layout;
}

// --- The file's parts ----------------------------------------------------------------------------

struct HeaderSpan {
  size_t start = 0;   // offset of the dict text
  size_t length = 0;  // its length; the data follows it
};

// Checks the magic, version and header length. `prefix` holds the file's first
// min(12, file_size) bytes (or more).
absl::StatusOr<HeaderSpan> LocateHeader(absl::string_view prefix, uint64_t file_size,
                                        absl::string_view source) {
  const bool magic_ok = prefix.size() < kMagic.size() ? absl::StartsWith(kMagic, prefix)
                                                      : absl::StartsWith(prefix, kMagic);
  if (file_size == 0) return FileError(source, "not a .npy file: it is empty");
  if (!magic_ok) {
    return FileError(
        source, absl::StrCat("not a .npy file: it starts with \"", Printable(prefix.substr(0, 8)),
                             "\", expected \"\\x93NUMPY\""));
  }
  if (file_size < 8) {
    return FileError(source, absl::StrCat("truncated .npy file: ", file_size,
                                          " bytes end inside the magic and version"));
  }
  const int major = static_cast<unsigned char>(prefix[6]);
  const int minor = static_cast<unsigned char>(prefix[7]);
  if (major < 1 || major > 3 || minor != 0) {
    return FileError(source, absl::StrCat("unsupported .npy format version ", major, ".", minor,
                                          " (dfc reads 1.0, 2.0 and 3.0)"));
  }
  const size_t length_bytes = major == 1 ? 2 : 4;
  HeaderSpan span;
  span.start = 8 + length_bytes;
  if (file_size < span.start) {
    return FileError(source, absl::StrCat("truncated .npy file: ", file_size,
                                          " bytes end inside the header length"));
  }
  for (size_t i = 0; i < length_bytes; ++i) {
    span.length |= static_cast<size_t>(static_cast<unsigned char>(prefix[8 + i])) << (8 * i);
  }
  if (span.length > file_size - span.start) {
    return FileError(source,
                     absl::StrCat("truncated .npy file: the header of ", span.length,
                                  " bytes runs past the end of the file (", file_size, " bytes)"));
  }
  return span;
}

absl::Status CheckDataSize(const NpyLayout& layout, uint64_t available, absl::string_view source) {
  const uint64_t needed = static_cast<uint64_t>(layout.data_bytes);
  if (available == needed) return absl::OkStatus();
  return FileError(source, absl::StrCat(available < needed ? "truncated .npy file: " : "",
                                        "the data section has ", available, " bytes, shape ",
                                        ShapeToString(layout.shape), " of ",
                                        DTypeName(layout.dtype), " needs ", needed, " bytes"));
}

// Copies the element at each C-order position from its column-major position in `src`.
void FortranToC(const unsigned char* src, unsigned char* dst, const Shape& shape,
                size_t element_size, int64_t num_elements) {
  const int rank = static_cast<int>(shape.size());
  std::vector<int64_t> stride(rank);  // column-major strides, in elements
  int64_t s = 1;
  for (int k = 0; k < rank; ++k) {
    stride[k] = s;
    s *= shape[k];
  }
  std::vector<int64_t> index(rank, 0);
  int64_t offset = 0;
  for (int64_t i = 0; i < num_elements; ++i) {
    std::memcpy(dst + i * element_size, src + offset * element_size, element_size);
    for (int k = rank - 1; k >= 0; --k) {  // advance the C-order index, last axis fastest
      if (++index[k] < shape[k]) {
        offset += stride[k];
        break;
      }
      offset -= (shape[k] - 1) * stride[k];
      index[k] = 0;
    }
  }
}

// `raw` holds the data section as stored in the file; returns it in dfc's form: native byte
// order, C order, bools 0 or 1.
absl::StatusOr<Tensor> FinishTensor(const NpyLayout& layout, Tensor raw) {
  auto* bytes = static_cast<unsigned char*>(raw.mutable_raw_data());
  const int64_t n = raw.num_elements();
  if (layout.byte_swap) ByteSwapElements(bytes, layout.element_size, n);
  if (layout.dtype == DType::kBool) {
    // NumPy treats any nonzero byte as True; a C++ bool must hold exactly 0 or 1.
    for (int64_t i = 0; i < n; ++i) bytes[i] = bytes[i] != 0 ? 1 : 0;
  }
  if (!layout.fortran_order || raw.rank() < 2 || n == 0) return raw;
  absl::StatusOr<Tensor> c_order = Tensor::Create(layout.dtype, layout.shape);
  if (!c_order.ok()) return c_order.status();
  FortranToC(bytes, static_cast<unsigned char*>(c_order->mutable_raw_data()), layout.shape,
             layout.element_size, n);
  return c_order;
}

}  // namespace

absl::StatusOr<Tensor> ParseNpy(absl::string_view bytes, absl::string_view source_name) {
  absl::StatusOr<HeaderSpan> span = LocateHeader(bytes, bytes.size(), source_name);
  if (!span.ok()) return span.status();
  absl::StatusOr<NpyLayout> layout =
      ParseHeader(bytes.substr(span->start, span->length), source_name);
  if (!layout.ok()) return layout.status();
  const absl::string_view data = bytes.substr(span->start + span->length);
  if (absl::Status s = CheckDataSize(*layout, data.size(), source_name); !s.ok()) return s;
  absl::StatusOr<Tensor> raw = Tensor::Create(layout->dtype, layout->shape);
  if (!raw.ok()) return Annotate(source_name, raw.status());
  if (!data.empty()) std::memcpy(raw->mutable_raw_data(), data.data(), data.size());
  return FinishTensor(*layout, *std::move(raw));
}

absl::StatusOr<Tensor> ReadNpy(const std::string& path) {
  std::error_code error;
  const uint64_t file_size = std::filesystem::file_size(path, error);
  if (error) {
    return IoError(error.value(), absl::StrCat("cannot read ", path));
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    return IoError(errno, absl::StrCat("cannot open ", path));
  }
  // Only the header is read into memory first, so a corrupt header length or shape costs
  // nothing; the data then goes straight into the tensor.
  auto read = [&](char* into, uint64_t count) {
    file.read(into, static_cast<std::streamsize>(count));
    return static_cast<uint64_t>(file.gcount()) == count;
  };
  auto changed = [&]() {
    return FileError(path, "the file changed or could not be read while it was being read",
                     absl::StatusCode::kDataLoss);
  };
  std::string prefix(std::min<uint64_t>(file_size, 12), '\0');
  if (!read(prefix.data(), prefix.size())) return changed();
  absl::StatusOr<HeaderSpan> span = LocateHeader(prefix, file_size, path);
  if (!span.ok()) return span.status();
  std::string header(span->length, '\0');
  if (!file.seekg(static_cast<std::streamoff>(span->start)) ||
      !read(header.data(), header.size())) {
    return changed();
  }
  absl::StatusOr<NpyLayout> layout = ParseHeader(header, path);
  if (!layout.ok()) return layout.status();
  const uint64_t data_size = file_size - span->start - span->length;
  if (absl::Status s = CheckDataSize(*layout, data_size, path); !s.ok()) return s;
  absl::StatusOr<Tensor> raw = Tensor::Create(layout->dtype, layout->shape);
  if (!raw.ok()) return Annotate(path, raw.status());
  if (data_size > 0 && !read(static_cast<char*>(raw->mutable_raw_data()), data_size)) {
    return changed();
  }
  return FinishTensor(*layout, *std::move(raw));
}

}  // namespace dfc
