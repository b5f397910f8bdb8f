// What changed from one recorder profile to another: the facts that decide
// whether code that traces well on one LuaJIT build still does on the other
// (`ljcheck registry diff`).
#pragma once

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "ljcheck/profile.h"

namespace ljcheck {

// Names only the second profile has (added) and only the first has
// (removed), each in its own profile's order.
struct NameChanges {
  std::vector<std::string> added, removed;
  bool empty() const { return added.empty() && removed.empty(); }
};

// One named fact with different values; a side without it is "".
struct ValueChange {
  std::string name;
  std::string from, to;
};

struct ProfileDiff {
  std::string fromName, fromId, toName, toId;

  // Each list of changes is sorted by name.
  std::vector<ValueChange> build;   // version, versionNum, openresty, arch, os, gc64
  NameChanges jitFlags;
  std::vector<ValueChange> params;  // JIT parameter defaults (minstitch 0 -> 3)

  NameChanges bytecodes;
  std::vector<std::string> bytecodesRenumbered;  // in both, with another opcode
  std::vector<ValueChange> bytecodeModes;        // in both, other operand modes "a b cd mm"
  NameChanges nyiBytecodes;                      // the recorder refuses them (NYIBC)

  NameChanges fastFunctions;  // by ffname
  // Recorded in the second and not in the first (added, or without a
  // recorder there), and the other way round.
  NameChanges recorded;
  std::vector<ValueChange> recorders;           // recorded in both, by another recff_
  std::size_t fastFunctionsRenumbered = 0;      // in both, with another ffid
  NameChanges neverStitch;
  NameChanges cFunctions;
  std::vector<ValueChange> returnsFunction;      // function -> the function it returns

  NameChanges traceErrors;                      // TREDEF names
  std::vector<ValueChange> traceErrorMessages;  // same name, other message
  std::vector<std::string> traceErrorsRenumbered;
  NameChanges recorderNames;                      // recorders with an error list
  std::map<std::string, NameChanges> recorderErrors;  // recorders in both whose errors differ

  // True when the two profiles agree on every fact above.
  bool identical() const;
};

ProfileDiff diffProfiles(const RecorderProfile& from, const RecorderProfile& to);

// One heading per changed fact, then a line naming the facts that did not change.
void writeDiffText(std::ostream& out, const ProfileDiff& diff);
// Every fact, changed or not, as one JSON object.
void writeDiffJson(std::ostream& out, const ProfileDiff& diff);

}  // namespace ljcheck
