//===- AccuracyWriters.cpp - Accuracy and calibration reports -------------===//
//
// tshape-predict's accuracy report (schema tshape-accuracy/1) and
// tshape-calibrate's fit report (tshape-calibration/1) in JSON and
// Markdown, and the two tools' terminal views, all from the models of
// AccuracyReport.h. Errors are fractions in JSON, at full precision (a
// program rounds them as it likes); the views show percent to one decimal.
//
//===----------------------------------------------------------------------===//

#include "tshape/Report/AccuracyReport.h"
#include "tshape/Report/Writers.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"

using namespace tshape;
using namespace tshape::predict;
using namespace tshape::report;

namespace {
std::string pct(double v) {
  char buf[32];
  snprintf(buf, sizeof(buf), "%.1f%%", 100 * v);
  return buf;
}

/// "h100-sxm" or "a100-80gb, h100-sxm": the targets of a file's rows.
std::string targetNames(const AccuracyReport::File &f) {
  std::string s;
  for (const target::GpuTarget &t : f.targets)
    s += (s.empty() ? "" : ", ") + t.name;
  return s.empty() ? "no target" : s;
}

/// "part held-out, dtype bf16".
std::string selection(const AccuracyReport &r) {
  return "part " + std::string(partName(r.part)) +
         (r.dtype.empty() ? std::string() : ", dtype " + r.dtype);
}

void targetObject(llvm::json::OStream &j, const target::GpuTarget &t) {
  j.object([&] {
    j.attribute("name", t.name);
    j.attribute("description", t.description);
    j.attribute("constants", t.constantsSource);
  });
}

void statsObject(llvm::json::OStream &j, const ErrorStats &s) {
  j.object([&] {
    j.attribute("rows", int64_t(s.count));
    j.attribute("median", s.median);
    j.attribute("p90", s.p90);
  });
}

void dtypeAttribute(llvm::json::OStream &j, const std::string &dtype) {
  if (dtype.empty())
    j.attribute("dtype", nullptr);
  else
    j.attribute("dtype", dtype);
}

/// The constants a fit identified, in fitting order.
std::vector<const FitParam *> identified(const CalibrationResult &r) {
  std::vector<const FitParam *> out;
  for (const FitParam &p : target::modelConstants()) {
    bool skipped = false;
    for (const FitParam &u : r.unidentified)
      skipped |= u.key == p.key;
    if (!skipped)
      out.push_back(&p);
  }
  return out;
}

/// ", 3 without a measurement, 1 with no kernel on the target" (or "").
std::string leftOut(const AccuracyReport::File &f) {
  std::string s;
  if (f.unmeasured)
    s += ", " + std::to_string(f.unmeasured) + " without a measurement";
  if (f.noKernel)
    s += ", " + std::to_string(f.noKernel) + " with no kernel on the target";
  return s;
}

/// The m -> m+1 direction agreement in words.
std::string direction(const DirectionStats &d) {
  if (!d.pairs)
    return "no pair of rows m, m+1 whose measured times differ by > 10%";
  return std::to_string(d.agree) + " of " + std::to_string(d.pairs) +
         " pairs agree (" + pct(d.agreement()) + "); " +
         std::to_string(d.drops) +
         " are kernel-switch drops (measured time falls > 10%), " +
         std::to_string(d.dropsAgree) + " of them agree; without them " +
         pct(d.agreementWithoutDrops());
}

/// "52.6% -> 11.2%".
std::string change(double before, double after) {
  return pct(before) + " -> " + pct(after);
}

/// Calls `part` with the errors before and after on the fitting rows and,
/// when the split held shapes out, on those; returns whether it did.
bool forEachPart(const CalibrationResult &c,
                 llvm::function_ref<void(const char *, const ErrorStats &,
                                         const ErrorStats &)>
                     part) {
  part("fit", c.fitBefore, c.fitAfter);
  if (c.heldOutRows)
    part("held-out", c.heldOutBefore, c.heldOutAfter);
  return c.heldOutRows > 0;
}

std::string edgeWarning(const FitParam &e, const std::string &target) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << e.key << " stopped at an edge of its range ["
     << llvm::format("%.2f", e.lo) << ", " << llvm::format("%.2f", e.hi)
     << "]: the measurements are probably not from a " << target
     << " GPU, or show an effect the model lacks";
  return s;
}
} // namespace

//===----------------------------------------------------------------------===//
// tshape-predict
//===----------------------------------------------------------------------===//

void tshape::report::writeJson(llvm::raw_ostream &os, const AccuracyReport &r) {
  llvm::json::OStream j(os, 2);
  j.object([&] {
    j.attribute("schema", "tshape-accuracy/1");
    j.attribute("part", partName(r.part));
    dtypeAttribute(j, r.dtype);
    j.attributeArray("files", [&] {
      for (const AccuracyReport::File &f : r.files)
        j.object([&] {
          j.attribute("file", f.name);
          if (f.kind)
            j.attribute("kind", kindName(*f.kind));
          else
            j.attribute("kind", nullptr);
          j.attributeArray("targets", [&] {
            for (const target::GpuTarget &t : f.targets)
              targetObject(j, t);
          });
          j.attribute("measured_rows", int64_t(f.measured));
          j.attribute("unmeasured_rows", int64_t(f.unmeasured));
          j.attribute("no_kernel_rows", int64_t(f.noKernel));
          j.attributeArray("regimes", [&] {
            for (const AccuracyReport::Regime &g : f.regimes)
              j.object([&] {
                j.attribute("regime", regimeName(g.regime));
                j.attribute("rows", int64_t(g.errors.count));
                j.attribute("median", g.errors.median);
                j.attribute("p90", g.errors.p90);
              });
          });
          const DirectionStats &d = f.direction;
          if (!d.pairs) {
            j.attribute("direction", nullptr);
            return;
          }
          j.attributeObject("direction", [&] {
            j.attribute("pairs", int64_t(d.pairs));
            j.attribute("agree", int64_t(d.agree));
            j.attribute("agreement", d.agreement());
            j.attribute("drops", int64_t(d.drops));
            j.attribute("drops_agree", int64_t(d.dropsAgree));
            j.attribute("agreement_without_drops", d.agreementWithoutDrops());
          });
        });
    });
  });
  os << "\n";
}

void tshape::report::writeMarkdown(llvm::raw_ostream &os,
                                   const AccuracyReport &r) {
  os << "# tshape prediction accuracy\n\nRows compared: " << selection(r)
     << ". Error of one kernel: |predicted - measured| / measured.\n";
  for (const AccuracyReport::File &f : r.files) {
    os << "\n## " << f.name << "\n\n"
       << f.measured << " measured "
       << (f.kind ? std::string(kindName(*f.kind)) + " " : "") << "rows"
       << leftOut(f) << ".";
    for (const target::GpuTarget &t : f.targets)
      os << " Predicted on " << t.name << " (" << t.description
         << "); cost-model constants: " << t.constantsSource << ".";
    os << "\n";
    if (!f.measured)
      continue;
    os << "\n| regime | rows | median | p90 |\n| --- | ---: | ---: | ---: |\n";
    for (const AccuracyReport::Regime &g : f.regimes)
      os << "| " << regimeName(g.regime) << " | " << g.errors.count << " | "
         << pct(g.errors.median) << " | " << pct(g.errors.p90) << " |\n";
    os << "\nDirection m -> m+1: " << direction(f.direction) << ".\n";
  }
}

void tshape::report::writeText(llvm::raw_ostream &os, const AccuracyReport &r,
                               size_t index) {
  const AccuracyReport::File &f = r.files[index];
  os << f.name << ": " << f.measured << " measured rows on " << targetNames(f)
     << " (" << selection(r) << ")" << leftOut(f) << "\n";
  if (!f.measured)
    return;
  os << llvm::format("  %-18s %7s %8s %8s\n", "regime", "rows", "median",
                     "p90");
  for (const AccuracyReport::Regime &g : f.regimes)
    os << llvm::format("  %-18s %7zu %8s %8s\n", regimeName(g.regime),
                       g.errors.count, pct(g.errors.median).c_str(),
                       pct(g.errors.p90).c_str());
  os << "  direction m -> m+1: " << direction(f.direction) << "\n";
}

//===----------------------------------------------------------------------===//
// tshape-calibrate
//===----------------------------------------------------------------------===//

void tshape::report::writeJson(llvm::raw_ostream &os,
                               const CalibrationReport &r) {
  const CalibrationResult &c = r.result;
  llvm::json::OStream j(os, 2);
  j.object([&] {
    j.attribute("schema", "tshape-calibration/1");
    j.attributeBegin("target");
    targetObject(j, r.start);
    j.attributeEnd();
    dtypeAttribute(j, r.dtype);
    j.attribute("measurements", int64_t(r.measurements));
    j.attribute("fit_rows", int64_t(c.fitRows));
    j.attribute("held_out_rows", int64_t(c.heldOutRows));
    j.attributeObject("fitted", [&] {
      for (const FitParam *p : identified(c))
        j.attribute(p->key, c.fitted.*p->field);
    });
    j.attributeArray("unidentified", [&] {
      for (const FitParam &u : c.unidentified)
        j.value(u.key);
    });
    j.attributeArray("at_edge", [&] {
      for (const FitParam &e : c.atEdge)
        j.object([&] {
          j.attribute("constant", e.key);
          j.attribute("value", c.fitted.*e.field);
          j.attribute("lo", e.lo);
          j.attribute("hi", e.hi);
        });
    });
    auto part = [&](const char *key, bool present, const ErrorStats &before,
                    const ErrorStats &after) {
      if (!present) {
        j.attribute(key, nullptr);
        return;
      }
      j.attributeObject(key, [&] {
        j.attributeBegin("before");
        statsObject(j, before);
        j.attributeEnd();
        j.attributeBegin("after");
        statsObject(j, after);
        j.attributeEnd();
      });
    };
    part("fit", true, c.fitBefore, c.fitAfter);
    part("held_out", c.heldOutRows > 0, c.heldOutBefore, c.heldOutAfter);
  });
  os << "\n";
}

void tshape::report::writeMarkdown(llvm::raw_ostream &os,
                                   const CalibrationReport &r) {
  const CalibrationResult &c = r.result;
  os << "# tshape calibration: " << r.start.description << "\n\n"
     << "Started from " << r.start.name
     << "; cost-model constants before the fit: " << r.start.constantsSource
     << ".\n\n"
     << r.measurements << " measurements"
     << (r.dtype.empty() ? std::string() : " of dtype " + r.dtype) << ", "
     << c.fitRows << " to fit, " << c.heldOutRows
     << " held out (no (n, k), (heads, kv_heads), decode context or MoE shape in both).\n\n"
     << "| constant | fitted |\n| --- | ---: |\n";
  for (const FitParam *p : identified(c))
    os << "| " << p->key << " | " << llvm::format("%.3f", c.fitted.*p->field)
       << " |\n";
  os << "\n| part | rows | median before -> after | p90 before -> after "
        "|\n| --- | ---: | --- | --- |\n";
  if (!forEachPart(
          c, [&](const char *what, const ErrorStats &b, const ErrorStats &a) {
            os << "| " << what << " | " << a.count << " | "
               << change(b.median, a.median) << " | " << change(b.p90, a.p90)
               << " |\n";
          }))
    os << "\nNo shape held out (too few shapes): the figures are on the "
          "fitting rows.\n";
  for (const FitParam &e : c.atEdge)
    os << "\n**Warning:** " << edgeWarning(e, r.start.name) << ".\n";
}

void tshape::report::writeText(llvm::raw_ostream &os,
                               const CalibrationReport &r,
                               llvm::StringRef tool) {
  const CalibrationResult &c = r.result;
  os << tool << ": " << r.measurements << " measurements, " << c.fitRows
     << " to fit, " << c.heldOutRows
     << " held out (no (n, k), (heads, kv_heads), decode context or MoE shape in both)\n"
     << "  fitted:";
  const char *sep = " ";
  for (const FitParam *p : identified(c)) {
    os << sep << p->key << " " << llvm::format("%.3f", c.fitted.*p->field);
    sep = ", ";
  }
  os << "\n";
  if (!forEachPart(
          c, [&](const char *what, const ErrorStats &b, const ErrorStats &a) {
            os << "  " << what << " |predicted - measured| / measured: median "
               << change(b.median, a.median) << ", p90 " << change(b.p90, a.p90)
               << "\n";
          }))
    os << "  held-out: none (too few shapes to hold one out; the figures "
          "above are on the fitting rows)\n";
  for (const FitParam &e : c.atEdge)
    os << tool << ": warning: " << edgeWarning(e, r.start.name) << "\n";
}
