"""A Redfish SessionService (DSP0266 section 13.3) in front of the sushy-tools emulator.

sushy-tools answers HTTP basic auth only; real BMCs also offer sessions, and sushy's
``SessionAuth`` needs them. This WSGI middleware adds what the standard defines: the
service root links ``SessionService`` and ``Links/Sessions``; ``POST .../Sessions`` with
``UserName``/``Password`` checked against the emulator's own bcrypt htpasswd file answers
201 with ``X-Auth-Token`` and ``Location``; ``DELETE`` of a session ends it; any other
request must carry a live ``X-Auth-Token`` (in ``sessions_only`` mode basic auth is
refused, which proves a client really used its session). Each event is logged to stderr
("session created", "session deleted") so tests can read what happened.
"""

import base64
import json
import sys
import uuid

import bcrypt

ROOT = "/redfish/v1"
SERVICE = ROOT + "/SessionService"
SESSIONS = SERVICE + "/Sessions"


def _read_htpasswd(path):
    users = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            user, _, hashed = line.strip().partition(":")
            if user:
                users[user] = hashed.encode()
    return users


def _json_response(start_response, status, body, headers=()):
    payload = json.dumps(body).encode()
    start_response(status, [("Content-Type", "application/json"),
                            ("Content-Length", str(len(payload))), *headers])
    return [payload]


class SessionServiceMiddleware:
    """Adds token sessions in front of an app that checks basic auth."""

    def __init__(self, app, htpasswd_path, sessions_only):
        self.app = app
        self.users = _read_htpasswd(htpasswd_path)
        self.sessions_only = sessions_only
        self.sessions = {}  # session id -> (token, user, password)

    def __call__(self, env, start_response):
        path = env.get("PATH_INFO", "").rstrip("/")
        method = env["REQUEST_METHOD"]
        if path == ROOT and method == "GET":
            return self._root(env, start_response)
        if path == SERVICE and method == "GET":
            return _json_response(start_response, "200 OK", {
                "@odata.id": SERVICE, "@odata.type": "#SessionService.v1_1_8.SessionService",
                "Id": "SessionService", "Name": "Session Service", "ServiceEnabled": True,
                "Sessions": {"@odata.id": SESSIONS}})
        if path == SESSIONS and method == "POST":
            return self._create(env, start_response)
        if path.startswith(SESSIONS + "/") and method == "DELETE":
            return self._delete(path.rsplit("/", 1)[1], start_response)
        return self._authorised(env, start_response)

    def _root(self, env, start_response):
        captured = {}

        def capture(status, headers, exc_info=None):
            captured["status"] = status
            return lambda data: None

        body = json.loads(b"".join(self.app(env, capture)))
        body["SessionService"] = {"@odata.id": SERVICE}
        body.setdefault("Links", {})["Sessions"] = {"@odata.id": SESSIONS}
        return _json_response(start_response, captured["status"], body)

    def _create(self, env, start_response):
        length = int(env.get("CONTENT_LENGTH") or 0)
        try:
            request = json.loads(env["wsgi.input"].read(length) or b"{}")
            user, password = request["UserName"], request["Password"]
        except (ValueError, KeyError, TypeError):
            return _json_response(start_response, "400 Bad Request",
                                  {"error": {"message": "UserName and Password are required"}})
        hashed = self.users.get(user)
        if hashed is None or not bcrypt.checkpw(str(password).encode(), hashed):
            return _json_response(start_response, "401 Unauthorized",
                                  {"error": {"message": "invalid credentials"}})
        session_id, token = uuid.uuid4().hex, uuid.uuid4().hex
        self.sessions[session_id] = (token, user, password)
        print(f"session created {session_id} for {user}", file=sys.stderr, flush=True)
        location = f"{SESSIONS}/{session_id}"
        return _json_response(start_response, "201 Created",
                              {"@odata.id": location, "Id": session_id, "UserName": user},
                              headers=[("X-Auth-Token", token), ("Location", location)])

    def _delete(self, session_id, start_response):
        if self.sessions.pop(session_id, None) is None:
            return _json_response(start_response, "404 Not Found",
                                  {"error": {"message": "no such session"}})
        print(f"session deleted {session_id}", file=sys.stderr, flush=True)
        start_response("204 No Content", [])
        return [b""]

    def _authorised(self, env, start_response):
        token = env.get("HTTP_X_AUTH_TOKEN")
        if token is not None:
            for stored_token, user, password in self.sessions.values():
                if stored_token == token:
                    basic = base64.b64encode(f"{user}:{password}".encode()).decode()
                    env["HTTP_AUTHORIZATION"] = f"Basic {basic}"
                    return self.app(env, start_response)
            return _json_response(start_response, "401 Unauthorized",
                                  {"error": {"message": "session expired or unknown"}})
        if self.sessions_only:
            return _json_response(start_response, "401 Unauthorized",
                                  {"error": {"message": "this BMC accepts sessions only"}})
        return self.app(env, start_response)
