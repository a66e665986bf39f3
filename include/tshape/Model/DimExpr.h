//===- DimExpr.h - A GEMM size as an expression over parameters -*- C++ -*-===//
//
// Where a GEMM dimension comes from: an integer expression over the named
// parameters of Params.h, for example the N of the QKV projection,
// (heads/tp + 2*max(1, kv_heads/tp))*head_dim. Expressions are built where a
// GEMM is defined (the block models), printed into the lowered IR, parsed
// back by the analysis, and evaluated with other parameter values to ask
// "what would this GEMM be if ffn were 11008". `/` is exact: an expression
// whose division leaves a remainder (or a quotient below one) has no value,
// which is how a candidate value that breaks a divisibility rule is
// recognised. Where a size is not whole by design, the block model says so
// with `floordiv` (key/value heads replicated when tp exceeds them:
// max(1,floordiv(kv_heads,tp))) or `ceildiv` (the busiest expert's tokens).
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_MODEL_DIMEXPR_H
#define TSHAPE_MODEL_DIMEXPR_H

#include "tshape/Model/Params.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tshape::model {

class DimExpr {
public:
  enum class Kind : uint8_t { Const, Param, Add, Mul, Div, FloorDiv, CeilDiv, Max };

  /// The constant 1.
  DimExpr() : DimExpr(constant(1)) {}
  static DimExpr constant(int64_t v);
  static DimExpr param(Param p);

  friend DimExpr operator+(const DimExpr &a, const DimExpr &b);
  friend DimExpr operator*(const DimExpr &a, const DimExpr &b);
  /// Exact division: no value when a is not a multiple of b.
  friend DimExpr operator/(const DimExpr &a, const DimExpr &b);
  static DimExpr max(const DimExpr &a, const DimExpr &b);
  /// floor(a / b) and ceil(a / b) for a >= 0, b > 0; printed
  /// floordiv(a,b) and ceildiv(a,b).
  static DimExpr floorDiv(const DimExpr &a, const DimExpr &b);
  static DimExpr ceilDiv(const DimExpr &a, const DimExpr &b);

  /// The value with `env`; nullopt when a parameter is unbound, a division
  /// is inexact or by zero, or int64 overflows.
  /// Sets `*overflowed` when the reason is overflow.
  std::optional<int64_t> eval(const Bindings &env,
                              bool *overflowed = nullptr) const;
  /// Whether `p` occurs in the expression.
  bool mentions(Param p) const;
  /// Every parameter that occurs, in vocabulary order.
  std::vector<Param> params() const;
  /// Canonical text, e.g.
  /// "(heads/tp+2*max(1,floordiv(kv_heads,tp)))*head_dim"; parse
  /// reads it back.
  std::string str() const;
  /// The expression with every parallel degree that `env` binds to 1
  /// removed (x/tp is x at tp = 1), for labels a person reads.
  DimExpr withoutUnitDegrees(const Bindings &env) const;
  /// Parses the text of str() (spaces allowed); nullopt with `error` set.
  static std::optional<DimExpr> parse(std::string_view text,
                                      std::string &error);

  Kind kind() const { return node->kind; }
  bool isConstant(int64_t v) const {
    return node->kind == Kind::Const && node->value == v;
  }

private:
  struct Node {
    Kind kind;
    int64_t value = 0; ///< Const
    Param param{};     ///< Param
    std::shared_ptr<const Node> lhs, rhs;
  };
  explicit DimExpr(std::shared_ptr<const Node> n) : node(std::move(n)) {}
  static DimExpr binary(Kind k, const DimExpr &a, const DimExpr &b);
  static void print(const Node &n, std::string &out, int context);
  std::shared_ptr<const Node> node;
};

DimExpr operator+(const DimExpr &a, const DimExpr &b);
DimExpr operator*(const DimExpr &a, const DimExpr &b);
DimExpr operator/(const DimExpr &a, const DimExpr &b);

} // namespace tshape::model

#endif // TSHAPE_MODEL_DIMEXPR_H
