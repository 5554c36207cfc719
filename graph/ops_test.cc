// The op table's own consistency: what an OpDef says of its outputs' dtype refers to what the
// same OpDef declares.
#include "graph/ops.h"

#include <algorithm>

#include "gtest/gtest.h"

namespace dfc {
namespace {

TEST(OpsTest, AnOutputDTypeRuleReadsATypeAttributeItsOpDeclares) {
  int ruled = 0;
  for (const OpDef& def : AllOpDefs()) {
    const OutputDTypeRule& rule = def.output_dtype;
    if (rule.attr.empty()) continue;
    ++ruled;
    EXPECT_TRUE(std::ranges::any_of(
        def.attrs,
        [&](const AttrSpec& a) { return a.name == rule.attr && a.kind == AttrKind::kType; }))
        << def.name << " takes its output dtype from " << rule.attr
        << ", which it does not declare as a type";
    EXPECT_FALSE(rule.each_input) << def.name;
  }
  EXPECT_GE(ruled, 8);
}

TEST(OpsTest, ComparisonsAndShapesSayTheirOutputDTypes) {
  for (const char* op : {"Less", "Equal", "IsNan", "ApproximateEqual"}) {
    ASSERT_NE(FindOpDef(op), nullptr) << op;
    EXPECT_EQ(FindOpDef(op)->output_dtype.fixed, DType::kBool) << op;
  }
  for (const char* op : {"Shape", "ShapeN", "Size"}) {
    EXPECT_EQ(FindOpDef(op)->output_dtype.attr, "out_type") << op;
    EXPECT_EQ(FindOpDef(op)->output_dtype.fixed, DType::kInt32) << op;
  }
  // Arithmetic says nothing: its T.
  EXPECT_EQ(FindOpDef("Add")->output_dtype.fixed, DType::kInvalid);
  EXPECT_TRUE(FindOpDef("Add")->output_dtype.attr.empty());
}

}  // namespace
}  // namespace dfc
