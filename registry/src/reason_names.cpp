// Checks the names `[reasons]` and allow comments use (reason_names.h), so
// that a typo is reported at its line instead of silently matching nothing.
#include "ljcheck/reason_names.h"

#include <algorithm>
#include <vector>

#include "ljcheck/reason.h"

namespace ljcheck {
namespace {

bool knownTo(std::string_view subject, const RecorderProfile& profile) {
  if (subject == kPlainCSubject || profile.fastFunction(subject) || profile.cFunctions.count(std::string(subject)))
    return true;
  return std::any_of(profile.bytecodes.begin(), profile.bytecodes.end(),
                     [&](const BytecodeDef& b) { return b.name == subject; });
}

// The builtin names a split's subject may be, the bytecodes NYIBC's: those
// of `profile`, or of another profile ljcheck ships, so that one config
// serves a project checked against several (jit.prngstate is OpenResty's).
bool knownSubject(std::string_view subject, const RecorderProfile& profile) {
  if (knownTo(subject, profile)) return true;
  const auto& all = builtinProfiles();
  return std::any_of(all.begin(), all.end(), [&](const RecorderProfile& p) { return knownTo(subject, p); });
}

bool knownCode(std::string_view code, const ReasonCatalog& catalog) { return catalog.find(code) != nullptr; }

// The catalog's newer name for an id an older catalog used (NYIFF is
// STITCH since version 1).
const ReasonAlias* aliasOf(std::string_view id, const ReasonCatalog& catalog) {
  for (const auto& a : catalog.aliases())
    if (a.from == id) return &a;
  return nullptr;
}

// Levenshtein distance, case-insensitive: "nyibc" is one from "NYIBC".
std::size_t distance(std::string_view a, std::string_view b) {
  auto lower = [](char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c); };
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The known name nearest `name`, when it is near enough to be a typo of it;
// first a builtin that `name` is the last part of ("gsub": string.gsub).
std::optional<std::string> closest(std::string_view name, const std::vector<std::string>& known) {
  for (const auto& k : known)
    if (k.size() > name.size() + 1 && k.compare(k.size() - name.size(), name.size(), name) == 0 &&
        k[k.size() - name.size() - 1] == '.')
      return k;
  // A short name tolerates one edit: "é" is no typo of "C".
  const std::size_t tolerated = name.size() <= 3 ? 1 : std::max<std::size_t>(2, name.size() / 4);
  std::optional<std::string> best;
  std::size_t bestDistance = tolerated + 1;
  for (const auto& k : known) {
    // A builtin is compared whole and by its last part ("gsubb": string.gsub).
    const std::size_t dot = k.rfind('.');
    std::size_t d = distance(name, k);
    if (dot != std::string::npos) d = std::min(d, distance(name, std::string_view(k).substr(dot + 1)));
    if (d < bestDistance) {
      bestDistance = d;
      best = k;
    }
  }
  return best;
}

std::vector<std::string> subjectsOf(const RecorderProfile& profile) {
  std::vector<std::string> names{std::string(kPlainCSubject)};
  for (const auto& b : profile.bytecodes) names.push_back(b.name);
  for (const auto& f : profile.fastFunctions) names.push_back(f.name);
  names.insert(names.end(), profile.cFunctions.begin(), profile.cFunctions.end());
  return names;
}

std::vector<std::string> codesOf(const ReasonCatalog& catalog) {
  std::vector<std::string> codes;
  for (const auto& r : catalog.reasons()) codes.push_back(r.code);
  return codes;
}

UnknownReasonName unknown(std::string_view id, const std::optional<std::string>& suggestion) {
  std::string message = "no reason, code or subject is called '" + std::string(id) + "'";
  if (suggestion) message += " (did you mean " + *suggestion + "?)";
  return {message, suggestion.value_or("")};
}

}  // namespace

std::optional<UnknownReasonName> unknownReasonName(std::string_view id, const RecorderProfile& profile) {
  const ReasonCatalog& catalog = ReasonCatalog::builtin();
  if (knownCode(id, catalog)) return std::nullopt;
  if (id == "*")
    return UnknownReasonName{"'*' (every reason) is for allow comments; a level names a code, a subject or a reasonId", ""};
  const std::size_t colon = id.find(':');
  // An old name: [reasons] levels match today's ids, so say which.
  for (std::string_view old : {id, id.substr(0, colon)})
    if (const ReasonAlias* alias = aliasOf(old, catalog)) {
      std::string now = alias->to + std::string(old.size() < id.size() ? id.substr(colon) : std::string_view());
      return UnknownReasonName{"'" + std::string(old) + "' is called " + alias->to + " since reason catalog version " +
                                   std::to_string(alias->sinceVersion) + ": write '" + now + "'",
                               now};
    }
  if (colon == std::string_view::npos) {
    if (knownSubject(id, profile)) return std::nullopt;
    std::vector<std::string> names = codesOf(catalog);
    std::vector<std::string> subjects = subjectsOf(profile);
    names.insert(names.end(), subjects.begin(), subjects.end());
    return unknown(id, closest(id, names));
  }
  const std::string_view code = id.substr(0, colon), subject = id.substr(colon + 1);
  if (!knownCode(code, catalog)) {
    auto near = closest(code, codesOf(catalog));
    return unknown(id, near ? std::optional<std::string>(*near + ":" + std::string(subject)) : std::nullopt);
  }
  const bool takesSubject = traceErrorHasSubject(code) || code == "STITCH" || code == "RETURN";
  if (!takesSubject)
    return UnknownReasonName{"the reason " + std::string(code) + " has no subject: write '" + std::string(code) +
                                 "', not '" + std::string(id) + "'",
                             std::string(code)};
  // IR instructions are not in the profile: any name stands.
  if (code == "NYIIR" ? !subject.empty() : knownSubject(subject, profile)) return std::nullopt;
  auto near = closest(subject, subjectsOf(profile));
  return unknown(id, near ? std::optional<std::string>(std::string(code) + ":" + *near) : std::nullopt);
}

}  // namespace ljcheck
