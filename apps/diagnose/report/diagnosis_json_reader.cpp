// Reading the diagnosis document back: each structure walked through its field list, every
// value checked against its member's type.
#include <fmt/format.h>

#include <limits>

#include "report/diagnosis_fields.hpp"
#include "report/diagnosis_json.hpp"
#include "report/json_fields.hpp"

namespace collbench::diagnose {
namespace {

using nlohmann::json;

// One member from the field `name` of `fields`, by the member's type.
void read_value(const JsonFields& fields, const char* name, int& value) {
  value = fields.integer(name);
}
void read_value(const JsonFields& fields, const char* name, double& value) {
  value = fields.number(name);
}
void read_value(const JsonFields& fields, const char* name, std::string& value) {
  value = fields.text(name);
}
void read_value(const JsonFields& fields, const char* name, bool& value) {
  value = fields.boolean(name);
}
void read_value(const JsonFields& fields, const char* name, std::optional<unsigned>& value) {
  const std::optional<unsigned long long> count = fields.count_or_null(name);
  if (count && *count > std::numeric_limits<unsigned>::max()) {
    wrong_type(fields.path_of(name), fields.value(name), "a count of processes");
  }
  value = count;
}
void read_value(const JsonFields& fields, const char* name, std::optional<int>& value) {
  value = fields.integer_or_null(name);
}
void read_value(const JsonFields& fields, const char* name, std::optional<double>& value) {
  value = fields.number_or_null(name);
}
void read_value(const JsonFields& fields, const char* name,
                std::optional<unsigned long long>& value) {
  value = fields.count_or_null(name);
}
void read_value(const JsonFields& fields, const char* name, std::vector<int>& value) {
  value = fields.integers(name);
}
// Per-sample evidence, which files saved before it was kept do not have: absent reads as none.
void read_value(const JsonFields& fields, const char* name, std::vector<double>& value) {
  value = fields.has(name) ? fields.numbers(name) : std::vector<double>();
}
void read_value(const JsonFields& fields, const char* name, std::vector<std::string>& value) {
  value = fields.texts(name);
}
void read_value(const JsonFields& fields, const char* name, SuspectKind& value) {
  const std::string kind = fields.text(name);
  const std::optional<SuspectKind> known = kind_from_name(kind);
  if (!known) {
    wrong_type(fields.path_of(name), kind, "one of " + kind_names());
  }
  value = *known;
}

template <typename Structure>
std::vector<Structure> read_array(const JsonFields& document, const char* name);

template <typename Structure>
Structure read_object(const JsonFields& fields) {
  Structure structure;
  visit_fields(structure, [&](const char* name, auto& value) {
    using Value = std::decay_t<decltype(value)>;
    if constexpr (HasFields<Value>::value) {
      value = read_object<Value>(fields.object(name));
    } else if constexpr (IsStructureList<Value>::value) {
      value = read_array<typename Value::value_type>(fields, name);
    } else if constexpr (IsOptionalStructure<Value>::value) {
      if (fields.value(name).is_null()) {
        value.reset();
      } else {
        value = read_object<typename Value::value_type>(fields.object(name));
      }
    } else {
      read_value(fields, name, value);
    }
  });
  return structure;
}

template <typename Structure>
std::vector<Structure> read_array(const JsonFields& document, const char* name) {
  std::vector<Structure> structures;
  for (const JsonFields& fields : document.objects(name)) {
    structures.push_back(read_object<Structure>(fields));
  }
  return structures;
}

void check_format(const JsonFields& document) {
  const json& format = document.value("format");
  if (format != kDiagnosisFormat) {
    wrong_type("format", format, fmt::format("\"{}\"", kDiagnosisFormat));
  }
  const json& version = document.value("version");
  if (version != kDiagnosisFormatVersion) {
    wrong_type("version", version,
               fmt::format("{} (the version this reader reads)", kDiagnosisFormatVersion));
  }
}

// The thresholds a diagnosis was judged with; one that its version did not have yet (a file saved
// before it was added) reads as its default.
Thresholds read_thresholds(const JsonFields& fields) {
  Thresholds thresholds;
  for (const ThresholdSetting& setting : threshold_settings()) {
    if (fields.has(setting.name)) thresholds.*(setting.value) = fields.number(setting.name);
  }
  return thresholds;
}

}  // namespace

Diagnosis read_diagnosis_json(const json& document_json) {
  const JsonFields document(document_json, "");
  check_format(document);
  Diagnosis diagnosis;
  diagnosis.injected = document.text("injected");
  Measurements& measurements = diagnosis.measurements;
  measurements.ranks = read_array<RankIdentity>(document, "ranks");
  measurements.gpus = read_array<GpuFigures>(document, "gpus");
  measurements.pairs = read_array<PairFigures>(document, "pairs");
  measurements.groups = read_array<GroupFigures>(document, "groups");
  measurements.arrivals = read_array<ArrivalFigures>(document, "arrivals");
  measurements.missing = read_array<MissingRank>(document, "missing");
  measurements.rechecks = read_object<Rechecks>(document.object("rechecks"));
  Verdict& verdict = diagnosis.verdict;
  verdict.expectations = read_object<Expectations>(document.object("expectations"));
  measurements.link_peak_gbps = verdict.expectations.link_peak_gbps;
  verdict.thresholds = read_thresholds(document.object("thresholds"));
  verdict.suspects = read_array<Suspect>(document, "suspects");
  verdict.cleared = read_array<ClearedFigure>(document, "cleared");
  verdict.margins = read_object<Margins>(document.object("margins"));
  diagnosis.wall_s = document.number("wall_s");
  // A test harness records the fault it made beside the diagnosis: an object, whose contents
  // are the harness's own.
  if (document.has("truth")) static_cast<void>(document.object("truth"));
  return diagnosis;
}

void validate_diagnosis_json(const json& document) {
  read_diagnosis_json(document);
}

}  // namespace collbench::diagnose
