"""Every ``--json`` output of every verb, and every certificate manifest, against its JSON Schema (issue 52).

The schemas ship inside the package (``sigmar/schemas/``, docs/formats.md#json-schemas); these tests load them
as an installed reader would (``importlib.resources``) and validate with ``jsonschema``, an implementation of
the standard written apart from ours. Each verb runs on instances/small.txt (survey, fuzz and generate deal
their own boards); every object it prints validates. Then every object of that output is given one key the
schema does not list, and must fail: an output that gains a key without its schema fails here. The maps
(backend to status, a backend's free-form statistics, ...) are the only objects that take any key, and
:data:`MAPS` names each.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Iterator
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from sigmar.runners.cli import build_parser, main
from tests.conftest import INSTANCES

SMALL = INSTANCES / "small.txt"
BASE = "https://sigmar.invalid/schemas/"
# The objects that are maps (any key, each value of one schema), by the output's schema and the object's path
# (keys joined by '.', '[]' for an item of a list). Every other object must refuse a key its schema does not list.
ANSWER_MAPS = {"statistics", "wrong", "corroboration"}
GRADED_MAPS = ANSWER_MAPS | {"answers", "grades", "times", "certified"}
MAPS: dict[str, set[str]] = {
    "solve": ANSWER_MAPS,
    "prove": ANSWER_MAPS,
    "explain": ANSWER_MAPS,
    "survey-answer": ANSWER_MAPS,
    "crosscheck": GRADED_MAPS | {"counts.sequences.counts", "counts.pairings.counts"},
    "bench": GRADED_MAPS | {"record.backends[].options"},
    "bench-record": {"backends[].options"},
    "count": {"counts"},
    "encode": {"texts"},
    "backends": {"missing"},
    "fuzz": {"answers", "certified"},
    "vars": {"names"},
    "selector": {"trained", "trained.cross_validated_par2"},
    "hint": {f"stuck.{key}" for key in ANSWER_MAPS},
}


@cache
def schemas() -> dict[str, dict[str, Any]]:
    """Every schema the package ships, by name (``solve`` for ``solve.schema.json``)."""
    folder = files("sigmar") / "schemas"
    found = {}
    for path in folder.iterdir():
        if path.name.endswith(".schema.json"):
            found[path.name.removesuffix(".schema.json")] = json.loads(path.read_text(encoding="utf-8"))
    return found


@cache
def registry() -> Registry:
    return Registry().with_resources((s["$id"], Resource.from_contents(s)) for s in schemas().values())


def validator(name: str, part: str | None = None) -> Draft202012Validator:
    """The validator of schema ``name`` (of its ``$defs/part``: a manifest's header or line)."""
    schema = schemas()[name]
    if part is not None:
        schema = {"$ref": f"{schema['$id']}#/$defs/{part}"}
    return Draft202012Validator(schema, registry=registry(), format_checker=Draft202012Validator.FORMAT_CHECKER)


def errors(name: str, record: object, part: str | None = None) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator(name, part).iter_errors(record)]


def objects(value: object, path: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every JSON object within ``value`` (itself included), with its path."""
    if isinstance(value, dict):
        yield path, value
        for key, item in value.items():
            yield from objects(item, f"{path}.{key}" if path else key)
    elif isinstance(value, list):
        for item in value:
            yield from objects(item, f"{path}[]")


def with_key_at(record: dict[str, Any], target: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``record`` whose object ``target`` has one key more, valued as one of its own keys (so only the
    key is new)."""
    extra = next(iter(target.values()), None)
    target["zz_unlisted"] = extra
    try:
        return json.loads(json.dumps(record))
    finally:
        del target["zz_unlisted"]


def holds(name: str, records: list[dict[str, Any]], part: str | None = None) -> None:
    """Every record validates against schema ``name``, and refuses a key added to any of its objects but a map."""
    assert records, f"no output to hold to {name}"
    maps = MAPS.get(name, set())
    for record in records:
        found = errors(name, record, part)
        assert not found, (name, found, record)
        for path, target in list(objects(record)):
            if path in maps:
                continue
            changed = with_key_at(record, target)
            assert errors(name, changed, part), (
                f"{name}: a key added at '{path or 'the top'}' is not refused: list it in sigmar/schemas/{name}"
                ".schema.json (or, for a map, in MAPS here)"
            )


def run_json(argv: list[str], capsys: pytest.CaptureFixture[str], codes: tuple[int, ...] = (0,)) -> list[dict]:
    code = main(argv)
    out = capsys.readouterr().out
    assert code in codes, (argv, code, out)
    return [json.loads(line) for line in out.splitlines()]


def jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def manifests(folder: Path) -> None:
    """The certificate files in ``folder``, each against its manifest's schema: header, then one line each."""
    seen = 0
    for pattern, name, line in (
        ("*.dead.jsonl", "dead-states", "state"),
        ("*.bound.jsonl", "play-bound", "state"),
        ("*.cubes", "cubes", "node"),
    ):
        for path in folder.glob(pattern):
            first, *rest = jsonl(path)
            holds(name, [first], "header")
            holds(name, rest, line)
            seen += 1
    for path in folder.glob("*.vars.json"):
        holds("vars", [json.loads(path.read_text())])
        seen += 1
    assert seen, f"no certificate file in {folder}"


# -- the schemas themselves


def test_every_schema_is_a_valid_2020_12_schema_named_by_its_file() -> None:
    assert len(schemas()) >= 20
    for name, schema in schemas().items():
        Draft202012Validator.check_schema(schema)
        assert schema["$id"] == f"{BASE}{name}.schema.json", name
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema", name


def test_every_object_a_schema_describes_is_closed_or_a_declared_map() -> None:
    """An object schema lists its keys and refuses others (``additionalProperties`` or ``unevaluatedProperties``);
    only the ``...Keys`` bags of defs.schema.json, which the schemas that use them close, are left open (and the
    conditions of ``if``, which describe no object)."""

    def walk(node: object, where: str) -> Iterator[str]:
        if isinstance(node, dict):
            closed = {"additionalProperties", "unevaluatedProperties"} & node.keys()
            # a ...Keys bag is closed where it is used; an 'if' is a condition, not an object
            if "properties" in node and not closed and not re.search(r"\$defs/\w+Keys$|/if$", where):
                yield where
            for key, item in node.items():
                yield from walk(item, f"{where}/{key}")
        elif isinstance(node, list):
            for index, item in enumerate(node):
                yield from walk(item, f"{where}/{index}")

    open_ = [where for name, schema in schemas().items() for where in walk(schema, name)]
    assert not open_, open_


def test_every_verb_with_json_has_its_schema() -> None:
    """A verb added later (with ``--json``, as every verb takes) fails here until its schema ships."""
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    verbs = {verb for verb, p in sub.choices.items() if any("--json" in a.option_strings for a in p._actions)}
    assert len(verbs) >= 16
    missing = sorted(verb for verb in verbs if verb not in schemas())
    assert not missing, f"add sigmar/schemas/VERB.schema.json for {missing} (docs/formats.md#json-schemas)"


def test_a_key_the_schema_does_not_list_is_refused() -> None:
    """The mutation the verb tests make, shown on one answer: the schema test can fail."""
    answer = {"board": "b", "status": "solved", "backend": "search", "seconds": 0.1, "verified": True, "moves": []}
    assert errors("solve", answer) == []
    assert errors("solve", {**answer, "color": "red"})
    assert errors("solve", {**answer, "moves": [{"cells": [[0, 0]], "tiles": "6", "note": "x"}]})
    assert errors("solve", {**answer, "status": "maybe"})
    assert errors("solve", {k: v for k, v in answer.items() if k != "verified"})  # a solved answer says it


def test_the_schemas_ship_as_package_data() -> None:
    import tomllib

    data = tomllib.loads((INSTANCES.parent / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert "schemas/*.json" in data["sigmar"]


# -- every verb's --json on instances/small.txt


def test_solve(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    answers, proofs = tmp_path / "answers.jsonl", tmp_path / "proofs"
    out = run_json(["solve", str(SMALL), "--json", "-o", str(answers), "--proof-dir", str(proofs)], capsys)
    out += run_json(["solve", str(SMALL), "-b", "cnf", "--stats", "--json", "--proof-dir", str(proofs)], capsys)
    holds("solve", out + jsonl(answers))
    assert {r["status"] for r in out} == {"solved", "unsolvable"}
    manifests(proofs)


def test_prove_and_its_cubes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    proofs = tmp_path / "proofs"
    out = run_json(["prove", str(SMALL), "--json", "--proof-dir", str(proofs)], capsys)
    out += run_json(["prove", f"{SMALL}:11", "--cubes", "2", "--json", "--proof-dir", str(proofs)], capsys)
    holds("prove", out)
    assert any(r.get("corroboration") for r in out)
    assert list(proofs.glob("*.cubes"))
    manifests(proofs)


def test_explain_and_its_play_bounds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    proofs = tmp_path / "proofs"
    out = run_json(["explain", str(SMALL), "--json", "--proof-dir", str(proofs)], capsys)
    holds("explain", out)
    assert any(r["deepest"] and r["repair"] for r in out)
    assert list(proofs.glob("*.bound.jsonl"))
    manifests(proofs)


def test_count(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(["count", str(SMALL), "--json"], capsys)
    out += run_json(["count", str(SMALL), "--of", "pairings", "--json"], capsys)
    holds("count", out)


def test_crosscheck(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(["crosscheck", str(SMALL), "-b", "search,cnf,cpsat", "--json"], capsys)
    counted = run_json(["crosscheck", f"{SMALL}:0-3", "-b", "search,cnf", "--compare-counts", "--json"], capsys)
    holds("crosscheck", out + counted)
    assert all("counts" in r for r in counted)


def test_bench_and_its_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(["bench", str(SMALL), "-b", "search,cnf", "--json", "-o", str(tmp_path / "b.csv")], capsys)
    holds("bench", out)
    holds("bench-record", [out[0]["record"]])


def test_survey_and_its_answers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    answers = tmp_path / "survey.jsonl"
    out = run_json(["survey", "--count", "4", "--dim", "3", "--json", "-o", str(answers)], capsys)
    holds("survey", out)
    holds("survey-answer", jsonl(answers))


def test_fuzz_and_its_reports(fakes: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "out"
    argv = ["fuzz", "-b", "search,broken:wrong", "--count", "4", "--seed", "3", "--output-dir", str(folder), "--json"]
    out = run_json(argv, capsys, codes=(3,))
    holds("fuzz", out)
    assert any(r["failures"] for r in out)
    reports = [json.loads(p.read_text()) for p in folder.glob("*.json") if not p.name.endswith(".witness.json")]
    holds("fuzz-report", reports)


def test_generate(capsys: pytest.CaptureFixture[str]) -> None:
    holds("generate", run_json(["generate", "--count", "2", "--json"], capsys))


def test_show(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    solution = tmp_path / "moves.txt"
    solution.write_text("0,0 0,1\n1,1\n")
    wrong = tmp_path / "wrong.txt"
    wrong.write_text("1,1\n")
    out = run_json(["show", str(SMALL), "--json"], capsys)
    out += run_json(["show", f"{SMALL}:2", "--solution", str(solution), "--json"], capsys)
    out += run_json(["show", f"{SMALL}:2", "--solution", str(wrong), "--json"], capsys, codes=(1, 2))
    out += run_json(["show", f"{SMALL}:0-1", "--svg", f"{tmp_path}/svg/", "--json"], capsys)
    holds("show", out)
    assert {"cleared", "files"} <= {k for r in out for k in r}


def test_check_an_answers_file_and_a_certificate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    answers, proofs = tmp_path / "answers.jsonl", tmp_path / "proofs"
    run_json(["solve", str(SMALL), "-b", "search", "-o", str(answers), "--proof-dir", str(proofs), "--quiet"], capsys)
    out = run_json(["check", str(SMALL), str(answers), "--json"], capsys)
    (dead,) = proofs.glob("*.dead.jsonl")
    out += run_json(["check", str(SMALL), str(dead), "--json"], capsys)
    holds("check", out)


def test_verify(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good, bad = tmp_path / "good.txt", tmp_path / "bad.txt"
    good.write_text("0,0 0,1\n1,1\n")
    bad.write_text("0,0\n")
    out = run_json(["verify", f"{SMALL}:2", str(good), "--json"], capsys)
    out += run_json(["verify", f"{SMALL}:2", str(bad), "--json"], capsys, codes=(1,))
    holds("verify", out)
    assert [r["valid"] for r in out] == [True, False]


def test_encode_and_its_variable_maps(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(["encode", str(SMALL), "--to", "dimacs", "--json"], capsys)
    out += run_json(["encode", str(SMALL), "--to", "dimacs", "--output-dir", str(tmp_path / "enc"), "--json"], capsys)
    holds("encode", out)
    manifests(tmp_path / "enc")


def test_decode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from pysat.formula import CNF
    from pysat.solvers import Solver

    assert main(["encode", f"{SMALL}:2", "--to", "dimacs", "-o", str(tmp_path / "b.cnf"), "--quiet"]) == 0
    with Solver(name="minisat22", bootstrap_with=CNF(from_file=str(tmp_path / "b.cnf")).clauses) as solver:
        assert solver.solve()
        model = solver.get_model()
    (tmp_path / "b.out").write_text("s SATISFIABLE\nv " + " ".join(map(str, model)) + " 0\n")
    (tmp_path / "unsat.out").write_text("s UNSATISFIABLE\n")
    sidecar = ["--sidecar", str(tmp_path / "b.vars.json"), "--json"]
    out = run_json(["decode", f"{SMALL}:2", str(tmp_path / "b.out"), *sidecar], capsys)
    out += run_json(["decode", f"{SMALL}:2", str(tmp_path / "unsat.out"), *sidecar], capsys, codes=(1,))
    holds("decode", out)
    assert [r["status"] for r in out] == ["solved", "unknown"]


def test_hint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    played = tmp_path / "played.txt"
    played.write_text("0,0 0,1\n")
    out = run_json(["hint", str(SMALL), "--json", "--time-limit", "20"], capsys, codes=(0, 1))
    out += run_json(["hint", f"{SMALL}:2", "--played", str(played), "--json"], capsys, codes=(0, 1))
    holds("hint", out)
    assert {m["mark"] for r in out for m in r["moves"]} >= {"safe", "losing"}


def test_backends(capsys: pytest.CaptureFixture[str]) -> None:
    holds("backends", run_json(["backends", "--json"], capsys))


def test_serve() -> None:
    pytest.importorskip("uvicorn", reason="serve needs the workbench's server (uvicorn)")
    from tests import workbench_harness as harness

    with harness.serve_json(f"{SMALL}:2-4") as (_, record, _):
        holds("serve", [record])
