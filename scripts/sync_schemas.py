"""Write schemas/*.schema.json from the published EvalUMAP 2019 feature reference.

Usage: python scripts/sync_schemas.py [REFERENCE_JSON]

The reference defaults to ../shared/reference/evalumap2019-features.json beside the
repository. Names, descriptions and value lists are copied as published; only the
Table Schema wrapping (types, required flags) is added here.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_REFERENCE = ROOT.parent / "shared" / "reference" / "evalumap2019-features.json"

# The entities pushgen writes, and which reference sections feed each of them.
ENTITIES = {
    "notification": ["notification"],
    "context": ["context", "context_optional"],
    "engagement": ["engagement"],
}
# Fields the generator always fills; the rest are optional columns.
REQUIRED = {
    "postingApp", "category", "numberOfUpdates", "subject", "priority", "ongoing",
    "visibility", "day", "time", "place", "activity", "noise", "batteryLevel",
    "charging", "headphonesIn", "musicActive", "proximity", "ringerMode", "action",
    "responseTime", "seenTime", "decisionTime",
}


def field_type(values: list | None) -> str:
    if values is None:
        return "number"
    if all(isinstance(v, bool) for v in values):
        return "boolean"
    if all(isinstance(v, int) for v in values):
        return "integer"
    return "string"


def table_schema(entity: str, sections: list[str], reference: dict) -> dict:
    fields = []
    for section in sections:
        for name, spec in reference[section].items():
            values = spec["values"]
            constraints: dict = {"required": name in REQUIRED}
            if values is None:
                constraints["minimum"] = 0
            else:
                constraints["enum"] = values
            field = {
                "name": name,
                "type": field_type(values),
                "description": spec["description"],
                "constraints": constraints,
            }
            if "hours" in spec:
                field["hours"] = spec["hours"]
            fields.append(field)
    return {
        "name": entity,
        "title": f"EvalUMAP 2019 {entity} features",
        "profile": "tabular-data-resource",
        "fields": fields,
    }


def main(argv: list[str]) -> int:
    source = Path(argv[1]) if len(argv) > 1 else DEFAULT_REFERENCE
    reference = json.loads(source.read_text())
    for entity, sections in ENTITIES.items():
        target = ROOT / "schemas" / f"{entity}.schema.json"
        target.write_text(json.dumps(table_schema(entity, sections, reference), indent=1) + "\n")
        print(f"wrote {target.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
