// Writing the diagnosis document: each structure walked through its field list, optional
// readings as null.
#include "report/diagnosis_json.hpp"

#include "report/diagnosis_fields.hpp"

namespace collbench::diagnose {
namespace {

using nlohmann::json;

// A member's value: a number, text or list as itself, a structure as an object.
template <typename T>
json value_json(const T& value);
template <typename T>
json value_json(const std::optional<T>& value);
json value_json(SuspectKind kind);
template <typename Structure>
json array_json(const std::vector<Structure>& structures);

// A structure as an object (walked on a copy: the field lists take members by reference).
template <typename Structure>
json object_json(Structure structure) {
  json object = json::object();
  visit_fields(structure,
               [&](const char* name, const auto& value) { object[name] = value_json(value); });
  return object;
}

template <typename T>
json value_json(const std::optional<T>& value) {
  return value ? value_json(*value) : json(nullptr);
}

json value_json(SuspectKind kind) {
  return kind_name(kind);
}

template <typename T>
json value_json(const T& value) {
  if constexpr (HasFields<T>::value) {
    return object_json(value);
  } else if constexpr (IsStructureList<T>::value) {
    return array_json(value);
  } else {
    return value;
  }
}

template <typename Structure>
json array_json(const std::vector<Structure>& structures) {
  json array = json::array();
  for (const Structure& structure : structures) array.push_back(object_json(structure));
  return array;
}

}  // namespace

json diagnosis_json(const Measurements& measurements, const Verdict& verdict,
                    const std::string& injected, double wall_s) {
  return {{"format", kDiagnosisFormat},
          {"version", kDiagnosisFormatVersion},
          {"injected", injected},
          {"ranks", array_json(measurements.ranks)},
          {"gpus", array_json(measurements.gpus)},
          {"pairs", array_json(measurements.pairs)},
          {"groups", array_json(measurements.groups)},
          {"arrivals", array_json(measurements.arrivals)},
          {"missing", array_json(measurements.missing)},
          {"rechecks", object_json(measurements.rechecks)},
          {"expectations", object_json(verdict.expectations)},
          {"thresholds", object_json(verdict.thresholds)},
          {"suspects", array_json(verdict.suspects)},
          {"cleared", array_json(verdict.cleared)},
          {"margins", object_json(verdict.margins)},
          {"wall_s", wall_s}};
}

}  // namespace collbench::diagnose
