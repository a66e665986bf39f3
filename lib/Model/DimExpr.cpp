//===- DimExpr.cpp - A GEMM size as an expression over parameters ---------===//

#include "tshape/Model/DimExpr.h"

#include <cctype>

using namespace tshape::model;

DimExpr DimExpr::constant(int64_t v) {
  auto n = std::make_shared<Node>();
  n->kind = Kind::Const;
  n->value = v;
  return DimExpr(n);
}

DimExpr DimExpr::param(Param p) {
  auto n = std::make_shared<Node>();
  n->kind = Kind::Param;
  n->param = p;
  return DimExpr(n);
}

DimExpr DimExpr::binary(Kind k, const DimExpr &a, const DimExpr &b) {
  auto n = std::make_shared<Node>();
  n->kind = k;
  n->lhs = a.node;
  n->rhs = b.node;
  return DimExpr(n);
}

// The builders fold the neutral elements so that the printed form stays as
// a person would write it (x*1 is x, x/1 is x, 0+x is x).
DimExpr tshape::model::operator+(const DimExpr &a, const DimExpr &b) {
  if (a.isConstant(0))
    return b;
  if (b.isConstant(0))
    return a;
  return DimExpr::binary(DimExpr::Kind::Add, a, b);
}

DimExpr tshape::model::operator*(const DimExpr &a, const DimExpr &b) {
  if (a.isConstant(1))
    return b;
  if (b.isConstant(1))
    return a;
  return DimExpr::binary(DimExpr::Kind::Mul, a, b);
}

DimExpr tshape::model::operator/(const DimExpr &a, const DimExpr &b) {
  if (b.isConstant(1))
    return a;
  return DimExpr::binary(DimExpr::Kind::Div, a, b);
}

DimExpr DimExpr::max(const DimExpr &a, const DimExpr &b) {
  return binary(Kind::Max, a, b);
}

DimExpr DimExpr::floorDiv(const DimExpr &a, const DimExpr &b) {
  if (b.isConstant(1))
    return a;
  return binary(Kind::FloorDiv, a, b);
}

DimExpr DimExpr::ceilDiv(const DimExpr &a, const DimExpr &b) {
  if (b.isConstant(1))
    return a;
  return binary(Kind::CeilDiv, a, b);
}

namespace {
/// The function-call spelling of a binary node, or nullptr for an operator.
const char *functionName(DimExpr::Kind k) {
  switch (k) {
  case DimExpr::Kind::Max:
    return "max";
  case DimExpr::Kind::FloorDiv:
    return "floordiv";
  case DimExpr::Kind::CeilDiv:
    return "ceildiv";
  default:
    return nullptr;
  }
}
} // namespace

std::optional<int64_t> DimExpr::eval(const Bindings &env,
                                     bool *overflowed) const {
  bool dummy = false;
  struct Eval {
    const Bindings &env;
    bool &overflow;
    std::optional<int64_t> operator()(const Node &n) const {
      switch (n.kind) {
      case Kind::Const:
        return n.value;
      case Kind::Param:
        return env.get(n.param);
      default:
        break;
      }
      auto a = (*this)(*n.lhs), b = (*this)(*n.rhs);
      if (!a || !b)
        return std::nullopt;
      int64_t r;
      switch (n.kind) {
      case Kind::Add:
        if (__builtin_add_overflow(*a, *b, &r))
          return overflow = true, std::nullopt;
        return r;
      case Kind::Mul:
        if (__builtin_mul_overflow(*a, *b, &r))
          return overflow = true, std::nullopt;
        return r;
      case Kind::Div:
        // Exact: no value for a remainder (a share below one included).
        if (*b <= 0 || *a < 0 || *a % *b != 0)
          return std::nullopt;
        return *a / *b;
      case Kind::FloorDiv:
        if (*b <= 0 || *a < 0)
          return std::nullopt;
        return *a / *b;
      case Kind::CeilDiv:
        if (*b <= 0 || *a < 0)
          return std::nullopt;
        // a / b + (a % b != 0) cannot overflow, unlike (a + b - 1) / b.
        return *a / *b + (*a % *b != 0);
      case Kind::Max:
        return std::max(*a, *b);
      default:
        return std::nullopt;
      }
    }
  };
  return Eval{env, overflowed ? *overflowed : dummy}(*node);
}

bool DimExpr::mentions(Param p) const {
  struct Walk {
    Param p;
    bool operator()(const Node &n) const {
      if (n.kind == Kind::Param)
        return n.param == p;
      if (n.kind == Kind::Const)
        return false;
      return (*this)(*n.lhs) || (*this)(*n.rhs);
    }
  };
  return Walk{p}(*node);
}

std::vector<Param> DimExpr::params() const {
  std::vector<Param> out;
  for (size_t i = 0; i < kNumParams; ++i)
    if (mentions(Param(i)))
      out.push_back(Param(i));
  return out;
}

// Precedence contexts: 0 = sum, 1 = product operand, 2 = divisor.
void DimExpr::print(const Node &n, std::string &out, int context) {
  switch (n.kind) {
  case Kind::Const:
    out += std::to_string(n.value);
    return;
  case Kind::Param:
    out += paramName(n.param);
    return;
  case Kind::Max:
  case Kind::FloorDiv:
  case Kind::CeilDiv:
    out += functionName(n.kind);
    out += "(";
    print(*n.lhs, out, 0);
    out += ",";
    print(*n.rhs, out, 0);
    out += ")";
    return;
  case Kind::Add: {
    bool paren = context > 0;
    if (paren)
      out += "(";
    print(*n.lhs, out, 0);
    out += "+";
    print(*n.rhs, out, 0);
    if (paren)
      out += ")";
    return;
  }
  case Kind::Mul:
  case Kind::Div: {
    // a*b and a/b are left-associative: the right operand of / needs
    // parentheses when it is itself a product.
    bool paren = context == 2;
    if (paren)
      out += "(";
    print(*n.lhs, out, 1);
    out += n.kind == Kind::Mul ? "*" : "/";
    print(*n.rhs, out, 2);
    if (paren)
      out += ")";
    return;
  }
  }
}

DimExpr DimExpr::withoutUnitDegrees(const Bindings &env) const {
  struct Walk {
    const Bindings &env;
    DimExpr operator()(const std::shared_ptr<const Node> &n) const {
      switch (n->kind) {
      case Kind::Const:
        return DimExpr(n);
      case Kind::Param:
        if (paramInfo(n->param).kind == ParamKind::Degree &&
            env.get(n->param) == 1)
          return constant(1);
        return DimExpr(n);
      case Kind::Add:
        return (*this)(n->lhs) + (*this)(n->rhs);
      case Kind::Mul:
        return (*this)(n->lhs) * (*this)(n->rhs);
      case Kind::Div:
        return (*this)(n->lhs) / (*this)(n->rhs);
      case Kind::FloorDiv:
        return floorDiv((*this)(n->lhs), (*this)(n->rhs));
      case Kind::CeilDiv:
        return ceilDiv((*this)(n->lhs), (*this)(n->rhs));
      case Kind::Max: {
        DimExpr a = (*this)(n->lhs), b = (*this)(n->rhs);
        // max(1, x) is x once x no longer divides by a degree.
        if (a.isConstant(1) && b.kind() == Kind::Param)
          return b;
        return max(a, b);
      }
      }
      return DimExpr(n);
    }
  };
  return Walk{env}(node);
}

std::string DimExpr::str() const {
  std::string s;
  print(*node, s, 0);
  return s;
}

namespace {
/// Recursive-descent parser of the grammar
///   sum     := product ('+' product)*
///   product := atom (('*' | '/') atom)*
///   atom    := INTEGER | NAME | FUNC '(' sum ',' sum ')' | '(' sum ')'
///   FUNC    := 'max' | 'floordiv' | 'ceildiv'
/// with a depth bound so that hostile input cannot exhaust the stack.
struct Parser {
  std::string_view text;
  size_t pos = 0;
  std::string &error;
  int depth = 0;

  void skip() {
    while (pos < text.size() && std::isspace((unsigned char)text[pos]))
      ++pos;
  }
  bool eat(char c) {
    skip();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  std::optional<DimExpr> fail(const std::string &msg) {
    if (error.empty())
      error = msg + " at offset " + std::to_string(pos);
    return std::nullopt;
  }
  std::optional<DimExpr> sum() {
    if (++depth > 64)
      return fail("expression nested too deeply");
    auto lhs = product();
    while (lhs && eat('+')) {
      auto rhs = product();
      if (!rhs)
        return std::nullopt;
      lhs = *lhs + *rhs;
    }
    --depth;
    return lhs;
  }
  std::optional<DimExpr> product() {
    auto lhs = atom();
    while (lhs) {
      bool mul = eat('*');
      if (!mul && !eat('/'))
        break;
      auto rhs = atom();
      if (!rhs)
        return std::nullopt;
      lhs = mul ? *lhs * *rhs : *lhs / *rhs;
    }
    return lhs;
  }
  std::optional<DimExpr> atom() {
    skip();
    if (pos >= text.size())
      return fail("expected a number, a parameter or '('");
    if (eat('(')) {
      auto e = sum();
      if (e && !eat(')'))
        return fail("expected ')'");
      return e;
    }
    if (std::isdigit((unsigned char)text[pos])) {
      int64_t v = 0;
      while (pos < text.size() && std::isdigit((unsigned char)text[pos])) {
        if (__builtin_mul_overflow(v, 10, &v) ||
            __builtin_add_overflow(v, text[pos] - '0', &v))
          return fail("integer overflows int64");
        ++pos;
      }
      return DimExpr::constant(v);
    }
    size_t start = pos;
    while (pos < text.size() &&
           (std::isalnum((unsigned char)text[pos]) || text[pos] == '_'))
      ++pos;
    std::string_view name = text.substr(start, pos - start);
    if (name.empty())
      return fail(std::string("unexpected '") + text[pos] + "'");
    for (DimExpr::Kind k : {DimExpr::Kind::Max, DimExpr::Kind::FloorDiv,
                            DimExpr::Kind::CeilDiv}) {
      std::string fn = functionName(k);
      if (name != fn)
        continue;
      if (!eat('('))
        return fail("expected '(' after " + fn);
      auto a = sum();
      if (!a)
        return std::nullopt;
      if (!eat(','))
        return fail("expected ',' in " + fn);
      auto b = sum();
      if (!b)
        return std::nullopt;
      if (!eat(')'))
        return fail("expected ')' after " + fn);
      return k == DimExpr::Kind::Max        ? DimExpr::max(*a, *b)
             : k == DimExpr::Kind::FloorDiv ? DimExpr::floorDiv(*a, *b)
                                            : DimExpr::ceilDiv(*a, *b);
    }
    if (auto p = parseParam(name))
      return DimExpr::param(*p);
    pos = start;
    return fail("unknown parameter '" + std::string(name) + "'");
  }
};
} // namespace

std::optional<DimExpr> DimExpr::parse(std::string_view text,
                                      std::string &error) {
  error.clear();
  Parser p{text, 0, error};
  auto e = p.sum();
  if (!e)
    return std::nullopt;
  p.skip();
  if (p.pos != text.size()) {
    error = "unexpected '" + std::string(1, text[p.pos]) + "' at offset " +
            std::to_string(p.pos);
    return std::nullopt;
  }
  return e;
}
