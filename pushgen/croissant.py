"""The Croissant description (``croissant.json``, JSON-LD) of a split folder.

Every file is a ``cr:FileObject`` with its sha256; every table a ``cr:RecordSet`` whose fields
take their types from ``pushgen.schemas`` (other columns from their Arrow type).
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from pushgen import schemas
from pushgen.dataset import sha256_file
from pushgen.split_card import CARD_FILE, LICENSE_URL, split_label
from pushgen.splits import SPLIT_FILE

CROISSANT_FILE = "croissant.json"
CONFORMS_TO = "http://mlcommons.org/croissant/1.0"
CONTEXT = {
    "@language": "en",
    "@vocab": "https://schema.org/",
    "citeAs": "cr:citeAs",
    "column": "cr:column",
    "conformsTo": "dct:conformsTo",
    "cr": "http://mlcommons.org/croissant/",
    "rai": "http://mlcommons.org/croissant/RAI/",
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "dct": "http://purl.org/dc/terms/",
    "equivalentProperty": "cr:equivalentProperty",
    "examples": {"@id": "cr:examples", "@type": "@json"},
    "extract": "cr:extract",
    "field": "cr:field",
    "fileProperty": "cr:fileProperty",
    "fileObject": "cr:fileObject",
    "fileSet": "cr:fileSet",
    "format": "cr:format",
    "includes": "cr:includes",
    "isLiveDataset": "cr:isLiveDataset",
    "jsonPath": "cr:jsonPath",
    "key": "cr:key",
    "md5": "cr:md5",
    "parentField": "cr:parentField",
    "path": "cr:path",
    "recordSet": "cr:recordSet",
    "references": "cr:references",
    "regex": "cr:regex",
    "repeated": "cr:repeated",
    "replace": "cr:replace",
    "samplingRate": "cr:samplingRate",
    "sc": "https://schema.org/",
    "separator": "cr:separator",
    "source": "cr:source",
    "subField": "cr:subField",
    "transform": "cr:transform",
}
SCHEMA_TYPES = {"string": "sc:Text", "boolean": "sc:Boolean", "integer": "sc:Integer",
                "number": "sc:Float"}
LISTED_VALUES = 12  # longer value lists are named, not repeated in every record set
ENCODINGS = {".parquet": "application/x-parquet", ".json": "application/json",
             ".md": "text/markdown"}
COLUMNS = {
    "user_id": "Pseudonymous user number.",
    "notification_id": "Notification number, unique in the dataset (user_id * 10^7 + the user's row).",
    "context_id": "Key of a submission's row: equal to notification_id.",
    "posted_at": "When the notification was posted (local time of the simulated user).",
    "name": "Invented pseudonym of the simulated user.",
    "hour": "Hour of the day at posting, with its fraction.",
    "days": "Days since the start of the simulation at posting.",
    "asleep": "Whether the user was asleep when the notification arrived.",
    "fatigue": "The user's notification fatigue at posting (decaying count of recent arrivals).",
    "mood": "The user's hidden availability that day and in that stretch of the routine (log-odds).",
    "routine_state": "The user's routine state at posting.",
    "draw": "The uniform random draw that decided the action: opened if draw < p_open.",
    "p_open": "The engagement model's probability that the user opens the notification.",
    "feature": "Feature whose value the weight belongs to.",
    "code": "Position of the value in the feature's published value list.",
    "value": "The feature's value.",
    "weight": "Log-odds contribution of the value to opening.",
}
RECORD_SETS = {
    "task1/train": "Task 1 users: the training months, less the validation weeks.",
    "task1/validation": "Task 1 users: the last weeks of the training months.",
    "task1/test": "Task 1 users: the test months.",
    "task2/test": "Cold-start users (held out entirely): their test months.",
    "users": "One row per user: pseudonym and a summary of the simulated habits.",
    "ground_truth/engagement_rows": "Per notification: the dynamic state and draw behind its action.",
    "ground_truth/engagement_users": "Per user: the engagement model's scalar parameters.",
    "ground_truth/engagement_weights": "Per user, feature and value: the engagement model's weight.",
}


def arrow_data_type(data_type: pa.DataType) -> str:
    if pa.types.is_dictionary(data_type):
        return arrow_data_type(data_type.value_type)
    if pa.types.is_boolean(data_type):
        return "sc:Boolean"
    if pa.types.is_integer(data_type):
        return "sc:Integer"
    if pa.types.is_floating(data_type):
        return "sc:Float"
    if pa.types.is_timestamp(data_type) or pa.types.is_date(data_type):
        return "sc:DateTime"
    return "sc:Text"


def column_field(record_set: str, file_id: str, column: pa.Field) -> dict:
    spec = schemas.fields().get(column.name)
    if spec is not None:
        data_type = SCHEMA_TYPES[spec.type]
        description = spec.description
        if spec.values is not None and len(spec.values) <= LISTED_VALUES:
            description += " One of: " + ", ".join(map(str, spec.values)) + "."
        elif spec.values is not None:
            description += f" One of {len(spec.values)} published values (pushgen.schemas)."
    else:
        data_type = arrow_data_type(column.type)
        description = COLUMNS.get(column.name, f"{column.name} (see the dataset card).")
    return {
        "@type": "cr:Field",
        "@id": f"{record_set}/{column.name}",
        "name": column.name,
        "description": description,
        "dataType": data_type,
        "source": {"fileObject": {"@id": file_id}, "extract": {"column": column.name}},
    }


def file_object(path: str, size: int, sha256: str) -> dict:
    return {
        "@type": "cr:FileObject",
        "@id": path,
        "name": path,
        "contentUrl": path,
        "contentSize": f"{size} B",
        "encodingFormat": ENCODINGS[Path(path).suffix],
        "sha256": sha256,
    }


def semantic_version(version: str) -> str:
    """Croissant's MAJOR.MINOR.PATCH form of a split version (``v1`` -> ``1.0.0``)."""
    number = version.removeprefix("v")
    return f"{number}.0.0" if number.isdigit() else version


def croissant(folder: Path, title: str | None = None, url: str | None = None) -> dict:
    """The Croissant JSON-LD of a split folder (``split.json`` and the card written)."""
    folder = Path(folder)
    description = json.loads((folder / SPLIT_FILE).read_text())
    files = dict(description["files"])
    for extra in (SPLIT_FILE, CARD_FILE):
        if (folder / extra).is_file():
            files[extra] = {"bytes": (folder / extra).stat().st_size,
                            "sha256": sha256_file(folder / extra)}
    recipe = description["recipe"]
    label = split_label(description)
    document = {
        "@context": CONTEXT,
        "@type": "sc:Dataset",
        "conformsTo": CONFORMS_TO,
        "name": label,
        "description": (
            f"{title or 'A pushgen split'}: synthetic smartphone push notifications of "
            f"{recipe['users']} simulated users from pushgen's dynamic Bayesian network (seed "
            f"{recipe['seed']}), split for the EvalUMAP 2019 tasks. Content fingerprint "
            f"{description['fingerprint']}."
        ),
        "license": LICENSE_URL,
        "citeAs": f"@misc{{{label}, title = {{{label}: {title or 'a pushgen split'}}}, "
                  f"author = {{{{pushgen developers}}}}, note = {{content fingerprint "
                  f"{description['fingerprint']}}}}}",
        "creator": {"@type": "sc:Organization", "name": "pushgen developers"},
        "keywords": ["synthetic data", "push notifications", "user modelling", "benchmark"],
        "rai:dataCollection": "Simulated: sampled from pushgen's dynamic Bayesian network; "
                              "no real person's data.",
        "rai:personalSensitiveInformation": "None: users and their pseudonyms are invented.",
    }
    if description.get("version"):
        document["version"] = semantic_version(description["version"])
    if url:
        document["url"] = url
    document["distribution"] = [file_object(path, f["bytes"], f["sha256"])
                                for path, f in sorted(files.items())]
    document["recordSet"] = [
        {
            "@type": "cr:RecordSet",
            "@id": name,
            "name": name,
            "description": text,
            "field": [column_field(name, f"{name}.parquet", column)
                      for column in pq.read_schema(folder / f"{name}.parquet")],
        }
        for name, text in RECORD_SETS.items()
        if f"{name}.parquet" in files
    ]
    return document


def write_croissant(folder: Path, title: str | None = None, url: str | None = None) -> Path:
    path = Path(folder) / CROISSANT_FILE
    path.write_text(json.dumps(croissant(folder, title, url), indent=1) + "\n")
    return path
