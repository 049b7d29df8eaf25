"""Schemathesis hooks for scripts/fuzz-server.

- An Idempotency-Key generator: every valid generated key is replaced by a fresh UUID, so
  writes reach their handlers instead of colliding on a handful of short keys; one write in
  eight reuses the previous key of its route instead. A request meant to be accepted (positive
  data) that reuses a key is sent exactly as the last such request of its route (same path and
  body), so it is a replay and answers the stored status with `Idempotent-Replayed: true`; a
  request meant to be refused (negative data) reuses the key with its own body, so the key-reuse
  422 is exercised too. Invalid generated keys (negative mode) are kept, so the 400s are
  exercised as well.
- Rules that span fields, entities or requests, which openapi.yaml states in words but a schema
  cannot express, are kept by every body generated to fit the schema, so that positive data
  reaches the success paths (a body generated not to fit is sent as it is):
    - the `id` an update sends is the id in its path;
    - a set names one of the user's live workouts (one is created when there is none);
    - a workout does not end before it starts (the sent times, or the stored ones they change);
    - each planned set of a workout's plan has its own id;
    - a routine's planned set has `reps_max` no lower than `reps`;
    - a workout's `exercise_notes` are keyed by exercise names (a schema of this version cannot
      say what an object's keys may be).
- A check, rejected_request_changes_nothing: a request answered 4xx must not have changed the
  user's data — neither the change feed (workouts, sets, routines and weigh-ins, tombstones and
  conflicts included) nor the favorites. Runs sequentially (--workers 1), so "before" and "after" bracket one request. The
  one thing a refusal records: an edit of an entity another device deleted is answered 404 and
  leaves a conflict (field "deleted") naming that entity, so the user learns the edit was lost.
"""

import copy
import datetime
import os
import random
import re
import uuid

import requests
import schemathesis

BASE = os.environ["SPOTTER_FUZZ_URL"]
AUTH = {"Authorization": "Bearer " + os.environ["SPOTTER_FUZZ_TOKEN"]}
# The two spellings openapi.yaml gives an Idempotency-Key: bare, or a structured-field string.
VALID_KEY = re.compile(r'^[!#-~]([ -~]{0,253}[!-~])?$|^"([ !#-\[\]-~]|\\["\\]){1,255}"$')
TIMESTAMP = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$")
_rng = random.Random(int(os.environ.get("SPOTTER_FUZZ_SEED", "1")))
_last_key_by_route = {}
_last_positive_by_route = {}
_snapshot = {}
# One keep-alive connection for the hooks' own reads and writes, instead of one per call.
_http = requests.Session()


def _state():
    """(latest change cursor, favorites) of the fuzzing user, read through the API itself."""
    cursor = _snapshot.get("cursor", "0")
    while True:
        page = _http.get(BASE + "/v1/changes", params={"since": cursor, "limit": 5000}, headers=AUTH, timeout=10)
        page.raise_for_status()
        body = page.json()
        cursor = body["cursor"]
        if not body["has_more"]:
            break
    favorites = _http.get(BASE + "/v1/favorites", headers=AUTH, timeout=10)
    favorites.raise_for_status()
    return cursor, sorted(favorites.json()["favorites"])


def _is_positive(case):
    mode = getattr(getattr(case.meta, "generation", None), "mode", None)
    return getattr(mode, "value", mode) == "positive"


def _body_is_positive(case):
    """Whether the body was generated to fit the schema (the case may still be negative elsewhere)."""
    for location, info in (getattr(case.meta, "components", None) or {}).items():
        if getattr(location, "value", location) == "body":
            return getattr(info.mode, "value", info.mode) == "positive"
    return _is_positive(case)


def _millis(text):
    """The instant of an RFC 3339 timestamp in ms since 0001-01-01, or None when it does not read."""
    match = TIMESTAMP.match(text) if isinstance(text, str) else None
    if match is None:
        return None
    year, month, day, hour, minute, second = (int(part) for part in match.group(1, 2, 3, 4, 5, 6))
    try:
        days = datetime.date(year, month, day).toordinal()
    except ValueError:
        return None
    fraction = int(((match.group(7) or "") + "000")[:3])
    offset = 0
    if match.group(9):
        offset = (int(match.group(10)) * 60 + int(match.group(11))) * (1 if match.group(9) == "+" else -1)
    return ((days * 24 + hour) * 60 + minute - offset) * 60_000 + second * 1000 + fraction


def _live_workouts():
    response = _http.get(BASE + "/v1/workouts", headers=AUTH, timeout=10)
    response.raise_for_status()
    return response.json()["workouts"]


def _a_live_workout_id():
    """The id of one of the user's live workouts, creating one when there is none."""
    workouts = _live_workouts()
    if workouts:
        return _rng.choice(workouts)["id"]
    workout_id = str(uuid.UUID(int=_rng.getrandbits(128)))
    created = _http.post(
        BASE + "/v1/workouts",
        json={"id": workout_id, "name": "Fuzz anchor", "started_at": "2026-01-01T00:00:00.000Z"},
        headers={**AUTH, "Idempotency-Key": str(uuid.UUID(int=_rng.getrandbits(128)))}, timeout=10)
    created.raise_for_status()
    return workout_id


def _keep_time_order(body, stored):
    """Makes a workout's times sent in `body` end no earlier than they start (with `stored`, the times they change)."""
    started_text = body.get("started_at", (stored or {}).get("started_at"))
    ended_text = body["ended_at"] if "ended_at" in body else (stored or {}).get("ended_at")
    started, ended = _millis(started_text), _millis(ended_text)
    if started is None or ended is None or ended >= started:
        return
    if "started_at" in body and "ended_at" in body:
        body["started_at"], body["ended_at"] = body["ended_at"], body["started_at"]
    elif "ended_at" in body:
        body["ended_at"] = started_text
    else:
        body["started_at"] = ended_text


def _keep_rep_ranges(exercises):
    if not isinstance(exercises, list):
        return
    for exercise in exercises:
        planned_sets = exercise.get("sets") if isinstance(exercise, dict) else None
        for planned in planned_sets if isinstance(planned_sets, list) else []:
            if not isinstance(planned, dict):
                continue
            reps, top = planned.get("reps"), planned.get("reps_max")
            if isinstance(reps, int) and isinstance(top, int) and top < reps:
                planned["reps_max"] = reps


def _keep_plan_ids_unique(plan):
    planned_sets = plan.get("sets") if isinstance(plan, dict) else None
    seen = set()
    for planned in planned_sets if isinstance(planned_sets, list) else []:
        if isinstance(planned, dict) and isinstance(planned.get("id"), str):
            if planned["id"].lower() in seen:
                planned["id"] = str(uuid.UUID(int=_rng.getrandbits(128)))
            seen.add(planned["id"].lower())


EXERCISE_NAMES = ["Bench Press (Barbell)", "Squat (Barbell)", "Deadlift (Barbell)", "Pull Up", "Curl 💪🏽"]


def _keep_exercise_note_names(notes):
    if not isinstance(notes, dict):
        return
    notes_in_order = list(notes.values())
    notes.clear()
    for index, note in enumerate(notes_in_order):
        suffix = "" if index < len(EXERCISE_NAMES) else f" {index}"
        notes[EXERCISE_NAMES[index % len(EXERCISE_NAMES)] + suffix] = note


def _keep_cross_field_rules(case):
    """Makes positive data keep the rules openapi.yaml states only in words."""
    body, path, method = case.body, case.operation.path, case.method.upper()
    if not isinstance(body, dict):
        return
    if method == "PATCH" and "id" in body:
        body["id"] = case.path_parameters.get("id", body["id"])
    if path.startswith("/v1/sets") and isinstance(body.get("workout_id"), str):
        if body["workout_id"].lower() not in {workout["id"] for workout in _live_workouts()}:
            body["workout_id"] = _a_live_workout_id()
    if path == "/v1/workouts":
        _keep_time_order(body, None)
        _keep_plan_ids_unique(body.get("plan"))
    elif path == "/v1/workouts/{id}" and ("started_at" in body or "ended_at" in body):
        entity_id = str(case.path_parameters.get("id", "")).lower()
        stored = next((workout for workout in _live_workouts() if workout["id"] == entity_id), None)
        _keep_time_order(body, stored)
    if path.startswith("/v1/workouts"):
        _keep_exercise_note_names(body.get("exercise_notes"))
    if path.startswith("/v1/routines"):
        _keep_rep_ranges(body.get("exercises"))


@schemathesis.hook
def before_call(context, case, kwargs):
    method = case.method.upper()
    # A wait on the feed is cut to a second: a 25 s wait on a feed nothing writes to would spend
    # the run's time on one request (the value still goes through the parameter's checks).
    if method == "GET" and case.operation.path == "/v1/changes" and isinstance(case.query, dict):
        wait = case.query.get("wait")
        if isinstance(wait, int) and not isinstance(wait, bool) and wait > 1:
            case.query["wait"] = 1
        elif isinstance(wait, str) and wait.isdigit() and int(wait) > 1:
            case.query["wait"] = "1"
    positive = _is_positive(case)
    replayed = False
    if method in ("POST", "PATCH") and case.headers is not None:
        key = case.headers.get("Idempotency-Key")
        if isinstance(key, str) and VALID_KEY.match(key):
            route = case.operation.path
            previous = _last_positive_by_route.get(route) if positive else _last_key_by_route.get(route)
            if previous is not None and _rng.random() < 0.125:
                if positive:
                    key, body, path_parameters = previous
                    case.body = copy.deepcopy(body)
                    case.path_parameters = copy.deepcopy(path_parameters)
                    replayed = True
                else:
                    key = previous
                case.headers["Idempotency-Key"] = key
            else:
                fresh = str(uuid.UUID(int=_rng.getrandbits(128)))
                case.headers["Idempotency-Key"] = fresh
                _last_key_by_route[route] = fresh
    if not replayed and method in ("POST", "PATCH") and _body_is_positive(case):
        _keep_cross_field_rules(case)
        key = (case.headers or {}).get("Idempotency-Key")
        if positive and isinstance(key, str) and VALID_KEY.match(key):
            _last_positive_by_route[case.operation.path] = (
                key, copy.deepcopy(case.body), copy.deepcopy(case.path_parameters))
    if method in ("POST", "PUT", "PATCH", "DELETE"):
        _snapshot["cursor"], _snapshot["favorites"] = _state()
        _snapshot["for"] = id(case)


def _only_lost_edit_conflicts(case, response, since):
    """Whether every change after `since` is a conflict saying this 404'd PATCH lost to a delete."""
    if case.method.upper() != "PATCH" or response.status_code != 404:
        return False
    entity_id = case.formatted_path.rstrip("/").rsplit("/", 1)[-1].lower()
    page = _http.get(BASE + "/v1/changes", params={"since": since, "limit": 5000}, headers=AUTH, timeout=10)
    page.raise_for_status()
    changes = page.json()["changes"]
    return bool(changes) and all(
        change.get("entity_type") == "conflict"
        and change["conflict"].get("field") == "deleted"
        and change["conflict"].get("entity_id", "").lower() == entity_id
        for change in changes)


@schemathesis.check
def rejected_request_changes_nothing(ctx, response, case):
    """A request answered 4xx changed no data of the user."""
    if not (400 <= response.status_code < 500) or _snapshot.get("for") != id(case):
        return None
    before_cursor, before_favorites = _snapshot["cursor"], _snapshot["favorites"]
    after_cursor, after_favorites = _state()
    if after_cursor != before_cursor and not _only_lost_edit_conflicts(case, response, before_cursor):
        raise AssertionError(
            f"{case.method} {case.formatted_path} was answered {response.status_code}, "
            f"yet the change feed moved from {before_cursor} to {after_cursor}")
    if after_favorites != before_favorites:
        raise AssertionError(
            f"{case.method} {case.formatted_path} was answered {response.status_code}, yet favorites changed")
    return None
