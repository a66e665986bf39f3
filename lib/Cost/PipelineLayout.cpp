//===- PipelineLayout.cpp - Megatron-LM's pipeline layout string ----------===//

#include "tshape/Cost/PipelineLayout.h"

#include <algorithm>
#include <cctype>

using namespace tshape::cost;

int64_t PipelineLayout::virtualStages(int64_t pp) const {
  return pp > 0 ? int64_t(chunks.size()) / pp : 0;
}

int64_t PipelineLayout::decoderLayers(size_t chunk) const {
  return chunk < chunks.size()
             ? std::count(chunks[chunk].begin(), chunks[chunk].end(), 't')
             : 0;
}

int64_t PipelineLayout::mtpRank(int64_t pp) const {
  for (size_t j = 0; j < chunks.size(); ++j)
    if (chunks[j].find('m') != std::string::npos)
      return pp > 0 ? int64_t(j) % pp : 0;
  return -1;
}

namespace {
/// The most symbols a layout may unroll to: a bound, so that a count such
/// as "(t*999999|)*999999" is an error, not a terabyte.
constexpr size_t kMaxSymbols = size_t(1) << 20;

/// Unrolls "(...)*n" and then "x*n" as Megatron-LM's two regular
/// expressions do, innermost parentheses first; nullopt with `error` on a
/// '*' without a count, an unbalanced parenthesis or more than kMaxSymbols
/// symbols.
std::optional<std::string> unroll(std::string s, std::string &error) {
  auto tooLong = [&](size_t body, int64_t n) {
    if (body * size_t(n) + s.size() <= kMaxSymbols)
      return false;
    error = "it unrolls to more than " + std::to_string(kMaxSymbols) +
            " symbols";
    return true;
  };
  auto count = [&](size_t at, size_t &end) -> std::optional<int64_t> {
    end = at;
    while (end < s.size() && std::isdigit((unsigned char)s[end]))
      ++end;
    if (end == at || end - at > 6)
      return std::nullopt;
    return std::stoll(s.substr(at, end - at));
  };
  // Parentheses: a group without parentheses inside, then '*n'.
  for (size_t close; (close = s.find(')')) != std::string::npos;) {
    const size_t open = s.rfind('(', close);
    size_t end;
    std::optional<int64_t> n;
    if (open == std::string::npos || close + 1 >= s.size() ||
        s[close + 1] != '*' || !(n = count(close + 2, end))) {
      error = "a group '(...)' must be followed by '*' and a count";
      return std::nullopt;
    }
    std::string body = s.substr(open + 1, close - open - 1), rep;
    if (tooLong(body.size(), *n))
      return std::nullopt;
    for (int64_t i = 0; i < *n; ++i)
      rep += body;
    s = s.substr(0, open) + rep + s.substr(end);
  }
  if (s.find('(') != std::string::npos) {
    error = "an unbalanced '('";
    return std::nullopt;
  }
  for (size_t star; (star = s.find('*')) != std::string::npos;) {
    size_t end;
    std::optional<int64_t> n;
    if (star == 0 || !(n = count(star + 1, end))) {
      error = "'*' must follow a symbol and precede a count";
      return std::nullopt;
    }
    if (tooLong(1, *n))
      return std::nullopt;
    s = s.substr(0, star - 1) + std::string(size_t(*n), s[star - 1]) +
        s.substr(end);
  }
  return s;
}
} // namespace

std::optional<PipelineLayout>
tshape::cost::parsePipelineLayout(const std::string &text,
                                  std::string &error) {
  std::string s;
  for (char ch : text)
    if (ch != ',' && !std::isspace((unsigned char)ch))
      s += ch; // commas are cosmetic
  std::optional<std::string> flat = unroll(s, error);
  if (!flat) {
    error = "pipeline layout '" + text + "': " + error;
    return std::nullopt;
  }
  PipelineLayout out;
  out.text = text;
  out.chunks.emplace_back();
  for (char ch : *flat) {
    if (ch == '|') {
      out.chunks.emplace_back();
    } else if (ch == 'E' || ch == 't' || ch == 'm' || ch == 'L') {
      out.chunks.back() += ch;
    } else {
      error = "pipeline layout '" + text + "': unknown symbol '" +
              std::string(1, ch) +
              "' (E embedding, t decoder layer, m MTP layer, L loss; '|' "
              "between stages)";
      return std::nullopt;
    }
  }
  return out;
}

std::string tshape::cost::checkPipelineLayout(const PipelineLayout &layout,
                                              int64_t pp, int64_t layers,
                                              int64_t mtp) {
  auto n = [](int64_t v) { return std::to_string(v); };
  const int64_t stages = int64_t(layout.chunks.size());
  const std::string where = "pipeline layout '" + layout.text + "': ";
  if (pp < 1 || stages % pp)
    return where + n(stages) + " stages not divisible by pp " + n(pp) +
           " (Megatron-LM, arguments.py:944)";
  std::string flat;
  for (const std::string &c : layout.chunks)
    flat += c;
  auto count = [&](char ch) { return int64_t(std::count(flat.begin(), flat.end(), ch)); };
  // pipeline_parallel_layer_layout.py:94-116.
  if (flat.empty() || flat.front() != 'E' || flat.back() != 'L')
    return where + "the first symbol must be E (the embedding) and the last "
                   "L (the loss) (pipeline_parallel_layer_layout.py:94-99)";
  if (count('E') != 1 || count('L') != 1)
    return where + "E and L must appear once each "
                   "(pipeline_parallel_layer_layout.py:103-106)";
  if (count('t') != layers)
    return where + n(count('t')) + " decoder layers (t), the model has " +
           n(layers) + " (pipeline_parallel_layer_layout.py:107)";
  if (count('m') != mtp)
    return where + n(count('m')) + " MTP layers (m), the model has " +
           n(mtp) + " (pipeline_parallel_layer_layout.py:112)";
  if (mtp > 0) {
    const size_t firstMtp = flat.find('m');
    if (flat.find('t', firstMtp) != std::string::npos)
      return where + "decoder layers must come before the MTP layers "
                     "(pipeline_parallel_layer_layout.py:117)";
    // Every MTP layer in one chunk, the last virtual stage of its rank
    // (pipeline_parallel_layer_layout.py:121-135).
    const int64_t v = stages / pp;
    for (int64_t j = 0; j < stages; ++j) {
      const std::string &c = layout.chunks[size_t(j)];
      const int64_t here = int64_t(std::count(c.begin(), c.end(), 'm'));
      if (here == 0)
        continue;
      if (j / pp != v - 1 || here != mtp)
        return where + "the MTP layers must all be in one chunk, the last "
                       "virtual stage of its rank "
                       "(pipeline_parallel_layer_layout.py:121-135)";
    }
  }
  return "";
}
