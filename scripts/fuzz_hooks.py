"""Schemathesis hooks for scripts/fuzz-server.

- An Idempotency-Key generator: every valid generated key is replaced by a fresh UUID, so
  writes reach their handlers instead of colliding on a handful of short keys; one write in
  eight reuses the previous key of its route instead, so replays (same request) and key-reuse
  422s (other request) are exercised too. Invalid generated keys (negative mode) are kept, so
  the 400s are exercised as well.
- A check, rejected_request_changes_nothing: a request answered 4xx must not have changed the
  user's data — neither the change feed (workouts and sets, tombstones included) nor the
  favorites. Runs sequentially (--workers 1), so "before" and "after" bracket one request. The
  one thing a refusal records: an edit of an entity another device deleted is answered 404 and
  leaves a conflict (field "deleted") naming that entity, so the user learns the edit was lost.
"""

import os
import random
import re
import uuid

import requests
import schemathesis

BASE = os.environ["SPOTTER_FUZZ_URL"]
AUTH = {"Authorization": "Bearer " + os.environ["SPOTTER_FUZZ_TOKEN"]}
VALID_KEY = re.compile(r"^[!-~]([ -~]*[!-~])?$")
_rng = random.Random(int(os.environ.get("SPOTTER_FUZZ_SEED", "1")))
_last_key_by_route = {}
_snapshot = {}


def _state():
    """(latest change cursor, favorites) of the fuzzing user, read through the API itself."""
    cursor = _snapshot.get("cursor", "0")
    while True:
        page = requests.get(BASE + "/v1/changes", params={"since": cursor, "limit": 5000}, headers=AUTH, timeout=10)
        page.raise_for_status()
        body = page.json()
        cursor = body["cursor"]
        if not body["has_more"]:
            break
    favorites = requests.get(BASE + "/v1/favorites", headers=AUTH, timeout=10)
    favorites.raise_for_status()
    return cursor, sorted(favorites.json()["favorites"])


@schemathesis.hook
def before_call(context, case, kwargs):
    method = case.method.upper()
    if method in ("POST", "PATCH") and case.headers is not None:
        key = case.headers.get("Idempotency-Key")
        if isinstance(key, str) and VALID_KEY.match(key) and len(key) <= 255:
            route = case.operation.path
            previous = _last_key_by_route.get(route)
            if previous is not None and _rng.random() < 0.125:
                case.headers["Idempotency-Key"] = previous
            else:
                fresh = str(uuid.UUID(int=_rng.getrandbits(128)))
                case.headers["Idempotency-Key"] = fresh
                _last_key_by_route[route] = fresh
    if method in ("POST", "PUT", "PATCH", "DELETE"):
        _snapshot["cursor"], _snapshot["favorites"] = _state()
        _snapshot["for"] = id(case)


def _only_lost_edit_conflicts(case, response, since):
    """Whether every change after `since` is a conflict saying this 404'd PATCH lost to a delete."""
    if case.method.upper() != "PATCH" or response.status_code != 404:
        return False
    entity_id = case.formatted_path.rstrip("/").rsplit("/", 1)[-1].lower()
    page = requests.get(BASE + "/v1/changes", params={"since": since, "limit": 5000}, headers=AUTH, timeout=10)
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
