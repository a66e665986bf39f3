//===- HardwareScale.cpp - User-scaled hardware variants ------------------===//
//
// The factors, their parser and the scaling (HardwareScale.h).
//
//===----------------------------------------------------------------------===//

#include "tshape/Cost/HardwareScale.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace tshape;
using namespace tshape::cost;

namespace {
/// One factor: its key in a factor list and its field.
struct FactorKey {
  const char *key;
  double HardwareFactors::*field;
};

const FactorKey kFactors[] = {
    {"compute", &HardwareFactors::compute},
    {"hbm-bw", &HardwareFactors::hbmBandwidth},
    {"hbm", &HardwareFactors::hbmCapacity},
    {"link", &HardwareFactors::link},
    {"nvlink", &HardwareFactors::nvlink},
    {"network", &HardwareFactors::network},
};

std::string number(double v) {
  char buf[32];
  snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}

bool valid(double v) { return std::isfinite(v) && v > 0; }
} // namespace

bool HardwareFactors::identity() const { return describe().empty(); }

std::string HardwareFactors::describe() const {
  std::string s;
  for (const FactorKey &f : kFactors)
    if (this->*f.field != 1)
      s += (s.empty() ? "" : ", ") + std::string(f.key) + " " +
           number(this->*f.field);
  return s;
}

std::string tshape::cost::hardwareFactorKeys() {
  std::string s;
  for (const FactorKey &f : kFactors)
    s += (s.empty() ? "" : ", ") + std::string(f.key);
  return s;
}

bool tshape::cost::parseHardwareFactors(const std::string &text,
                                        HardwareFactors &factors,
                                        std::string &error) {
  if (text.empty()) {
    error = "no hardware factor given (known: " + hardwareFactorKeys() + ")";
    return false;
  }
  std::vector<bool> seen(std::size(kFactors), false);
  llvm::SmallVector<llvm::StringRef> items;
  llvm::StringRef(text).split(items, ',');
  for (llvm::StringRef itemRef : items) {
    const std::string item = itemRef.str();
    const size_t eq = item.find('=');
    const std::string key = item.substr(0, eq);
    size_t i = 0;
    while (i < std::size(kFactors) && key != kFactors[i].key)
      ++i;
    if (i == std::size(kFactors)) {
      error = "unknown hardware factor '" + key +
              "' (known: " + hardwareFactorKeys() + ")";
      return false;
    }
    if (seen[i]) {
      error = "hardware factor '" + key + "' given twice";
      return false;
    }
    seen[i] = true;
    const std::string value =
        eq == std::string::npos ? "" : item.substr(eq + 1);
    char *endp = nullptr;
    const double v = std::strtod(value.c_str(), &endp);
    if (value.empty() || *endp != '\0') {
      error = "hardware factor '" + key + "' needs a number ('" + key +
              "=1.5'), got '" + value + "'";
      return false;
    }
    if (!valid(v)) {
      error = "hardware factor '" + key + "' must be above 0, got " + value;
      return false;
    }
    factors.*kFactors[i].field = v;
  }
  return true;
}

std::optional<Hardware> tshape::cost::scaleHardware(
    const target::GpuTarget &target, const Cluster &cluster,
    const HardwareFactors &factors, std::string &error) {
  for (const FactorKey &f : kFactors)
    if (!valid(factors.*f.field)) {
      error = "hardware factor '" + std::string(f.key) +
              "' must be above 0, got " + number(factors.*f.field);
      return std::nullopt;
    }
  Hardware hw{target, cluster};
  if (factors.identity())
    return hw;
  const std::string what = " x " + factors.describe();
  target::GpuTarget &t = hw.target;
  for (double &peak : t.peakTflops)
    peak *= factors.compute;
  t.memoryBandwidthGBs *= factors.hbmBandwidth;
  t.memoryGiB *= factors.hbmCapacity;
  t.name += what;
  t.description += " (scaled:" + what.substr(2) + ")";
  Cluster &c = hw.cluster;
  c.node.bandwidthGBs *= factors.link * factors.nvlink;
  c.network.bandwidthGBs *= factors.link * factors.network;
  c.name += what;
  c.description += " (scaled:" + what.substr(2) + ")";
  c.gpu = t.name;
  return hw;
}
