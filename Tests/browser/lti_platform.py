"""An LTI 1.3 platform for the tests, the kind a learning management system is to Rollcall: the 1EdTech Security
Framework (OpenID Connect launches, signed client assertions for service tokens), LTI Core 1.3, Names and Role
Provisioning Services 2.0, Assignment and Grade Services 2.0 and Deep Linking 2.0.

It is built on lti1p3platform (the registration, the login initiation, the launch message and its signature, the
bearer tokens it mints and checks) and checks everything a tool sends it as a strict platform would, so that a tool
that passes against it is right rather than merely accepted: each refusal is kept in `refusals` with its reason.

It runs on 127.0.0.1, a different site from Rollcall's `localhost`, so that Rollcall in the course page's frame is a
third-party frame as it is under a real platform. Tests drive it with plain methods (people, courses, `down`) and read
what it received (`scores`, `tokens`, `placed`). `python lti_platform.py --self-check` proves it against a small tool
written here, without Rollcall."""

import datetime
import html
import json
import logging
import re
import secrets
import threading
import time
import urllib.parse

import jwt
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from flask import Flask, Response, request
from lti1p3platform.exceptions import LtiException, PreflightRequestValidationException
from lti1p3platform.message_launch import LTIAdvantageMessageLaunchAbstract
from lti1p3platform.ags import LtiAgs
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.oidc_login import OIDCLoginAbstract
from lti1p3platform.registration import Registration
from lti1p3platform.request import Request as LibraryRequest
from werkzeug.serving import make_server

LTI = "https://purl.imsglobal.org/spec/lti/claim/"
NRPS_CLAIM = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
DL_SETTINGS = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
DL = "https://purl.imsglobal.org/spec/lti-dl/claim/"

INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
TEACHING_ASSISTANT = "http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant"
# Real platforms send the person's institution role beside the course role; a tool must read the course role.
INSTITUTION_ROLE = {
    INSTRUCTOR: "http://purl.imsglobal.org/vocab/lis/v2/institution/person#Faculty",
    TEACHING_ASSISTANT: "http://purl.imsglobal.org/vocab/lis/v2/institution/person#Student",
    LEARNER: "http://purl.imsglobal.org/vocab/lis/v2/institution/person#Student",
}
COURSE_OFFERING = "http://purl.imsglobal.org/vocab/lis/v2/course#CourseOffering"

SCOPE_LINEITEM = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
SCOPE_LINEITEM_READONLY = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly"
SCOPE_RESULT_READONLY = "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly"
SCOPE_SCORE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
SCOPE_NRPS = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
SCOPES = (SCOPE_LINEITEM, SCOPE_LINEITEM_READONLY, SCOPE_RESULT_READONLY, SCOPE_SCORE, SCOPE_NRPS)

MEMBERSHIPS_TYPE = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
LINEITEM_TYPE = "application/vnd.ims.lis.v2.lineitem+json"
LINEITEMS_TYPE = "application/vnd.ims.lis.v2.lineitemcontainer+json"
SCORE_TYPE = "application/vnd.ims.lis.v1.score+json"
RESULTS_TYPE = "application/vnd.ims.lis.v2.resultcontainer+json"
ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

ACTIVITY_PROGRESS = {"Initialized", "Started", "InProgress", "Submitted", "Completed"}
GRADING_PROGRESS = {"FullyGraded", "Pending", "PendingManual", "Failed", "NotReady"}
NRPS_PAGE = 15
# The most members one roster page holds, whatever the tool asks for: platforms cap it (Canvas at 50).
NRPS_MOST = 15

# Leeway for clocks: the tool and the platform share this machine, so a minute is plenty and still refuses a
# token from another hour.
LEEWAY = 60

logging.getLogger("werkzeug").setLevel(logging.ERROR)


def rsa_private_pem():
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()


def public_pem(private_pem):
    key = serialization.load_pem_private_key(private_pem.encode(), password=None)
    return key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()


class Refused(Exception):
    """A request the platform turns down: `status`, an OAuth/OIDC `error` code and the reason for people."""

    def __init__(self, status, error, reason):
        super().__init__(reason)
        self.status, self.error, self.reason = status, error, reason


class _Loopback:
    """A WSGI app on 127.0.0.1 at a port the system picks, served by threads (a page and its frame at once)."""

    def __init__(self, app):
        self.server = make_server("127.0.0.1", 0, app, threaded=True)
        self.port = self.server.server_port
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


class _Request(LibraryRequest):
    def build_metadata(self, values):
        return {"method": "POST", "form_data": dict(values), "get_data": {}, "headers": {}, "content_type": None,
                "path": "", "json": None}


class _Config(LTI1P3PlatformConfAbstract):
    """The library's platform configuration over one shared registration. It keeps per-call state (the JWT it is
    reading), so each request makes its own."""

    def init_platform_config(self, registration):
        self._registration = registration

    def get_registration_by_params(self, **kwargs):
        return self._registration

    def get_tool_public_key(self):
        try:
            return super().get_tool_public_key()
        except LtiException:
            # The library keeps the tool's key set once fetched; a tool that rotated its key publishes the new one,
            # so an unknown kid is looked up once more before it is refused.
            self._registration.set_tool_key_set(None)
            return super().get_tool_public_key()


class _Login(OIDCLoginAbstract):
    def set_lti_message_hint(self, **kwargs):
        self._lti_message_hint = kwargs["hint"]

    def get_redirect(self, url):
        return url


class _Launch(LTIAdvantageMessageLaunchAbstract):
    def render_launch_form(self, launch_data, **kwargs):
        return launch_data


def _auto_post(action, fields, title):
    """The page a browser submits at once: how OIDC's form_post and LTI messages travel."""
    inputs = "".join(
        f'<input type="hidden" name="{html.escape(name)}" value="{html.escape(str(value))}">'
        for name, value in fields.items())
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title></head>'
            f'<body><form id="lti-post" method="post" action="{html.escape(action)}">{inputs}'
            f'<noscript><button type="submit">Continue</button></noscript></form>'
            f'<script>document.getElementById("lti-post").submit()</script></body></html>')


def _page(title, body, status=200):
    return Response(
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        '<meta name="viewport" content="width=device-width, initial-scale=1"><style>'
        'body{margin:0;font:16px system-ui,sans-serif;background:#f4f5f7;color:#1d2433}'
        'header{background:#263a5b;color:#fff;padding:.6rem 1rem}header b{font-size:1.1rem}'
        'main{padding:1rem}iframe{width:100%;height:calc(100vh - 7rem);border:1px solid #c5cad3;background:#fff}'
        '.error{color:#9b1c1c}</style></head>'
        f'<body><header><b>Hill Learning</b> · {html.escape(title)}</header><main>{body}</main></body></html>',
        status=status, mimetype="text/html")


def iso_time(text):
    """An ISO 8601 date-time with its offset, as AGS requires for a score's timestamp, or None."""
    if not isinstance(text, str) or not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)", text):
        return None
    moment = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    return moment if moment.tzinfo else None


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class Platform:
    """The platform: start() serves it, stop() ends it. `issuer` is its URL; `client_id` and `deployment_id` are
    what it assigned to the tool, which register_tool() then describes."""

    def __init__(self, client_id="rollcall-tool-1", deployment_id="hill-deployment-1", name="Hill Learning"):
        self.name = name
        self.client_id = client_id
        self.deployment_id = deployment_id
        self.private_key = rsa_private_pem()
        self.registration = (Registration()
                             .set_client_id(client_id)
                             .set_deployment_id(deployment_id)
                             .set_platform_private_key(self.private_key)
                             .set_platform_public_key(public_pem(self.private_key)))
        self.kid = self.registration.get_kid()
        self._hint_secret = secrets.token_bytes(32)
        self._lock = threading.RLock()
        self._down = False
        self.tool = None
        self.users = {}
        self.contexts = {}
        # What came in, for the tests to read.
        self.refusals = []
        self.logins = []
        self.launches = []
        self.tokens = []
        self.placed = []
        self.unavailable = []
        self.received = []
        self._scores = []
        self._used_nonces = set()
        self._used_jtis = set()
        self._deep_requests = {}
        self._line_item_numbers = 0
        self._link_numbers = 0
        self.app = self._make_app()
        self._server = None

    # Serving

    def start(self):
        self._server = _Loopback(self.app)
        self.port = self._server.port
        self.issuer = f"http://127.0.0.1:{self.port}"
        self.registration.set_iss(self.issuer)
        return self

    def stop(self):
        if self._server:
            self._server.stop()

    @property
    def auth_url(self):
        return f"{self.issuer}/auth"

    @property
    def token_url(self):
        return f"{self.issuer}/token"

    @property
    def jwks_url(self):
        return f"{self.issuer}/jwks"

    def jwks(self):
        return {"keys": self.registration.get_jwks()}

    def register_tool(self, login_url, launch_url, jwks_url, deep_linking_url=None, redirect_uris=None):
        """The tool as an administrator enters it on the platform: where logins start, where launches go (the
        redirect URIs it may ask for) and where its keys are."""
        with self._lock:
            self.tool = {
                "login_url": login_url, "launch_url": launch_url, "jwks_url": jwks_url,
                "deep_linking_url": deep_linking_url or launch_url,
                "redirect_uris": set(redirect_uris or [launch_url, deep_linking_url or launch_url]),
            }
            self.registration.set_oidc_login_url(login_url)
            self.registration.set_launch_url(launch_url)
            self.registration.set_deeplink_launch_url(deep_linking_url or launch_url)
            self.registration.set_tool_key_set_url(jwks_url)
            self.registration.set_tool_key_set(None)

    @property
    def down(self):
        return self._down

    @down.setter
    def down(self, value):
        """Down, the token, NRPS and AGS endpoints answer 503, as a platform being upgraded does."""
        self._down = bool(value)

    # People and courses

    def add_user(self, sub, name, email=None, given_name=None, family_name=None, sourcedid=None):
        given, _, family = name.partition(" ")
        with self._lock:
            self.users[sub] = {"sub": sub, "name": name, "given_name": given_name or given,
                               "family_name": family_name or family or given, "email": email,
                               "sourcedid": sourcedid}
        return self.users[sub]

    def add_context(self, context_id, title, label=None):
        with self._lock:
            self.contexts[context_id] = {"id": context_id, "title": title, "label": label or context_id,
                                         "type": [COURSE_OFFERING], "members": {}, "links": {}, "line_items": {}}
        return self.contexts[context_id]

    def enroll(self, context_id, sub, role=LEARNER, status="Active"):
        """Puts `sub` in the course with a role (one of the membership URIs), or changes their role or status
        (Active, Inactive; Deleted keeps them listed as gone, as NRPS reports it)."""
        assert sub in self.users, f"unknown user {sub}"
        assert status in ("Active", "Inactive", "Deleted")
        with self._lock:
            roles = role if isinstance(role, list) else [role]
            self.contexts[context_id]["members"][sub] = {"roles": roles, "status": status}

    def add_link(self, context_id, link_id, title, url=None, custom=None):
        """A resource link to the tool in the course, as a teacher adds one by hand (no line item)."""
        with self._lock:
            self.contexts[context_id]["links"][link_id] = {"id": link_id, "title": title, "url": url,
                                                           "custom": custom or {}, "line_item": None}
        return self.contexts[context_id]["links"][link_id]

    def line_items(self, context_id):
        with self._lock:
            return [self._line_item_view(context_id, item) for item in self.contexts[context_id]["line_items"].values()]

    def learner_gradebook(self, context_id, user):
        """What a learner sees of their grades, as platforms that publish to learners only the columns bound to a
        placed link show it: the latest score of `user` in each such column, by its URL."""
        with self._lock:
            bound = {self._line_item_url(context_id, number) for number, item
                     in self.contexts[context_id]["line_items"].items() if item.get("resourceLinkId")}
            latest = {}
            for score in self._scores:
                if score["userId"] == user and score["lineItem"] in bound:
                    latest[score["lineItem"]] = score["scoreGiven"]
            return latest

    def scores(self, line_item=None, user=None):
        """Every score accepted, in the order it came, each with the `lineItem` URL it was posted to."""
        with self._lock:
            return [dict(score) for score in self._scores
                    if (line_item is None or score["lineItem"] == line_item) and (user is None or score["userId"] == user)]

    # Launches

    def _message_hint(self, user, context_id, link_id, deep):
        claims = {"user": user, "context": context_id, "link": link_id, "deep": bool(deep),
                  "exp": int(time.time()) + 900}
        return jwt.encode(claims, self._hint_secret, algorithm="HS256")

    def _target(self, context_id, link_id, deep):
        if deep:
            return self.tool["deep_linking_url"]
        link = self.contexts[context_id]["links"][link_id]
        return link["url"] or self.tool["launch_url"]

    def login_initiation(self, user, context_id, link_id=None, deep=False):
        """The third-party initiated login (LTI Core 5.1.1): the tool's login URL with iss, login_hint,
        target_link_uri, lti_message_hint, client_id and lti_deployment_id."""
        assert self.tool, "register the tool first"
        login = _Login(None, _Config(registration=self.registration))
        login.set_launch_url(self._target(context_id, link_id, deep))
        login.set_lti_message_hint(hint=self._message_hint(user, context_id, link_id, deep))
        return login.initiate_login(user)

    def launch_page_url(self, context_id, user, link_id=None, deep=False, top=False):
        """The course page a person opens on the platform to launch the tool: in a frame, or with `top` in the whole
        window."""
        query = {"user": user}
        if link_id:
            query["link"] = link_id
        if deep:
            query["deep"] = "1"
        if top:
            query["top"] = "1"
        return f"{self.issuer}/courses/{urllib.parse.quote(context_id)}/launch?{urllib.parse.urlencode(query)}"

    def _claims_for(self, user, context_id, link_id, deep, preflight):
        """The signed launch (an id_token) for `user`, built by the library from the tool's authentication
        request, with the LTI Advantage claims of this course and link."""
        person = self.users[user]
        context = self.contexts[context_id]
        member = context["members"][user]
        launch = _Launch(_Request(preflight), _Config(registration=self.registration))
        roles = list(member["roles"]) + sorted({INSTITUTION_ROLE[r] for r in member["roles"] if r in INSTITUTION_ROLE})
        launch.set_user_data(user, roles, full_name=person["name"], email_address=person["email"])
        launch.set_launch_context_claim(context_id, context["type"], context["title"], context["label"])
        launch.set_launch_presentation_claim("iframe", f"{self.issuer}/courses/{context_id}")
        launch.set_launch_url(self._target(context_id, link_id, deep))
        launch.set_nrps(f"{self.issuer}/contexts/{context_id}/memberships")
        link = None if deep else context["links"][link_id]
        ags = LtiAgs(f"{self.issuer}/contexts/{context_id}/lineitems", link["line_item"] if link else None,
                     allow_creating_lineitems=True).get_lti_ags_launch_claim()
        ags[AGS_CLAIM]["scope"] = [SCOPE_LINEITEM, SCOPE_LINEITEM_READONLY, SCOPE_RESULT_READONLY, SCOPE_SCORE]
        launch.set_extra_claims(ags)
        extra = {"given_name": person["given_name"], "family_name": person["family_name"]}
        if person["sourcedid"]:
            extra[LTI + "lis"] = {"person_sourcedid": person["sourcedid"]}
        launch.set_extra_claims(extra)
        if deep:
            data = secrets.token_urlsafe(16)
            with self._lock:
                self._deep_requests[data] = {"context": context_id, "user": user, "open": True}
            launch.set_dl(f"{self.issuer}/deep-link-return", title=context["title"],
                          accept_types={"ltiResourceLink"}, extra_data=data)
            settings = launch._deep_linking_launch_data[DL_SETTINGS]
            # One Rollcall attendance link per placement, shown in a frame or a window.
            settings.update({"accept_multiple": False, "accept_presentation_document_targets": ["iframe", "window"],
                             "auto_create": True, "data": data})
        else:
            launch.set_resource_link_claim(link_id, title=link["title"])
            if link["custom"]:
                launch.set_custom_parameters_claim(link["custom"])
        return launch.lti_launch()

    def id_token(self, user, context_id, link_id=None, deep=False, nonce=None, key=None, kid="platform", alg="RS256",
                 drop=(), **claims):
        """An id_token as this platform would send it, changed for a test of a launch a tool must refuse: signed
        with another `key` (PEM), with another `kid` or none (None), without the claims in `drop`, with `claims`
        replacing others (a claim's URL, or its last part for the LTI claims, as `version="1.2.0"`)."""
        preflight = {"nonce": nonce or secrets.token_urlsafe(12), "state": "test", "client_id": self.client_id,
                     "redirect_uri": self.tool["launch_url"]}
        token = self._claims_for(user, context_id, link_id, deep, preflight)["id_token"]
        payload = jwt.decode(token, options={"verify_signature": False})
        for name in drop:
            payload.pop(name if name in payload else LTI + name, None)
        for name, value in claims.items():
            payload[name if name in payload or ":" in name or name in ("iss", "aud", "sub", "exp", "iat", "nonce", "azp")
                    else LTI + name] = value
        headers = {} if kid is None else {"kid": self.kid if kid == "platform" else kid}
        return jwt.encode(payload, key or self.private_key, algorithm=alg, headers=headers)

    # The tool's signed messages

    def _tool_claims(self, token, audience, issuer, required):
        """A JWT from the tool, checked: RS256 under a key of the tool's JWKS named by its kid, the audience, the
        issuer, the times, and the claims the message needs."""
        config = _Config(registration=self.registration)
        try:
            config.validate_jwt_format(token)
            header = config._jwt["header"]
            if header.get("alg") != "RS256":
                raise Refused(401, "invalid_client", f"signed with {header.get('alg')}, not RS256")
            if not header.get("kid"):
                raise Refused(401, "invalid_client", "no kid in the JWT header")
            public_key = config.get_tool_public_key()
        except LtiException as error:
            raise Refused(401, "invalid_client", f"the tool's key: {error}") from error
        try:
            payload = jwt.decode(token, public_key, algorithms=["RS256"], audience=audience, issuer=issuer,
                                 leeway=LEEWAY, options={"require": required})
        except jwt.PyJWTError as error:
            raise Refused(401, "invalid_client", f"{type(error).__name__}: {error}") from error
        if payload["exp"] - payload["iat"] > 3600 + LEEWAY:
            raise Refused(401, "invalid_client", "lives longer than an hour")
        return payload

    def _bearer(self, scopes):
        """The access token of a service call, minted here and still good, granting one of `scopes`."""
        config = _Config(registration=self.registration)
        parts = request.headers.get("Authorization", "").split()
        if len(parts) != 2 or parts[0].lower() != "bearer":
            raise Refused(401, "invalid_token", "no bearer token")
        try:
            granted = config.validate_token(parts[1], scopes)
        except (LtiException, jwt.PyJWTError) as error:
            raise Refused(401, "invalid_token", f"bad bearer token: {error}") from error
        if not granted:
            raise Refused(403, "insufficient_scope", f"the token grants none of {scopes}")

    # The web app

    def _make_app(self):
        app = Flask("lti_platform")
        platform = self

        @app.errorhandler(Refused)
        def refused(error):
            platform.refusals.append({"path": request.path, "status": error.status, "error": error.error,
                                      "reason": error.reason})
            headers = {}
            if error.status in (401, 403) and request.path != "/token":
                headers["WWW-Authenticate"] = f'Bearer error="{error.error}"'
            return Response(json.dumps({"error": error.error, "error_description": error.reason}),
                            status=error.status, mimetype="application/json", headers=headers)

        @app.before_request
        def services_down():
            service = request.path == "/token" or re.match(r"^/contexts/[^/]+/(memberships|lineitems)", request.path)
            if platform._down and service:
                platform.unavailable.append({"method": request.method, "path": request.full_path, "at": time.time()})
                return Response("down for maintenance", status=503, headers={"Retry-After": "1"})
            return None

        @app.after_request
        def keep(response):
            platform.received.append({"method": request.method, "path": request.full_path, "status": response.status_code})
            return response

        app.add_url_rule("/jwks", view_func=lambda: platform.jwks())
        app.add_url_rule("/.well-known/openid-configuration", view_func=self._configuration)
        app.add_url_rule("/courses/<context_id>", view_func=self._course_home)
        app.add_url_rule("/courses/<context_id>/launch", view_func=self._course_page)
        app.add_url_rule("/auth", view_func=self._authorize, methods=["GET", "POST"])
        app.add_url_rule("/token", view_func=self._token, methods=["POST"])
        app.add_url_rule("/contexts/<context_id>/memberships", view_func=self._memberships)
        app.add_url_rule("/contexts/<context_id>/lineitems", view_func=self._line_items, methods=["GET", "POST"])
        app.add_url_rule("/contexts/<context_id>/lineitems/<int:number>", view_func=self._line_item,
                         methods=["GET", "PUT", "DELETE"])
        app.add_url_rule("/contexts/<context_id>/lineitems/<int:number>/scores", view_func=self._score,
                         methods=["POST"])
        app.add_url_rule("/contexts/<context_id>/lineitems/<int:number>/results", view_func=self._results)
        app.add_url_rule("/deep-link-return", view_func=self._deep_link_return, methods=["POST"])
        return app

    def _configuration(self):
        return {"issuer": self.issuer, "authorization_endpoint": self.auth_url, "token_endpoint": self.token_url,
                "jwks_uri": self.jwks_url, "token_endpoint_auth_methods_supported": ["private_key_jwt"],
                "token_endpoint_auth_signing_alg_values_supported": ["RS256"],
                "id_token_signing_alg_values_supported": ["RS256"], "scopes_supported": ["openid", *SCOPES],
                "response_types_supported": ["id_token"], "subject_types_supported": ["public"]}

    def _course_home(self, context_id):
        """Where a launch's return_url leads: the course's activities, each launched as `user`."""
        context = self.contexts.get(context_id)
        if not context:
            return _page("No such course", '<p class="error">No such course.</p>', 404)
        user = request.args.get("user", "")
        items = "".join(
            f'<li><a href="{html.escape(self.launch_page_url(context_id, user, link_id))}">'
            f'{html.escape(link["title"])}</a></li>' for link_id, link in context["links"].items())
        return _page(context["title"], f'<h1>{html.escape(context["title"])}</h1><ul id="activities">{items}</ul>')

    def _course_page(self, context_id):
        user = request.args.get("user", "")
        link_id = request.args.get("link")
        deep = request.args.get("deep") == "1"
        context = self.contexts.get(context_id)
        if not context or user not in context["members"] or context["members"][user]["status"] != "Active":
            return _page("Not in this course", '<p class="error">You are not in this course.</p>', 403)
        if not deep and link_id not in context["links"]:
            return _page(context["title"], '<p class="error">No such activity in this course.</p>', 404)
        url = self.login_initiation(user, context_id, link_id, deep)
        title = "Add an activity" if deep else context["links"][link_id]["title"]
        if request.args.get("top") == "1":
            login, _, query = url.partition("?")
            return Response(_auto_post(login, dict(urllib.parse.parse_qsl(query)), title), mimetype="text/html")
        frame = (f'<iframe id="tool-frame" title="{html.escape(title)}" src="{html.escape(url)}" '
                 'allow="publickey-credentials-get *; geolocation *"></iframe>')
        return _page(f"{context['title']} · {title}", frame)

    def _authorize(self):
        """The OIDC authorization endpoint (Security Framework 5.1.1.2-3): the tool's authentication request after
        a third-party initiated login, answered with the id_token by form_post."""
        params = request.values.to_dict()
        self.logins.append({**params, "method": request.method})
        client_id, redirect_uri, state = params.get("client_id"), params.get("redirect_uri"), params.get("state")
        tool = self.tool
        # Unknown client or redirect URI: answered here, never sent on to a URI nobody registered.
        if not tool or client_id != self.client_id:
            return self._auth_refused(None, "unauthorized_client", f"unknown client_id {client_id!r}")
        if redirect_uri not in tool["redirect_uris"]:
            return self._auth_refused(None, "invalid_request", f"redirect_uri {redirect_uri!r} is not registered")
        try:
            expected = {"scope": "openid", "response_type": "id_token", "response_mode": "form_post", "prompt": "none"}
            for name, value in expected.items():
                if params.get(name) != value:
                    raise Refused(400, "invalid_request", f"{name} is {params.get(name)!r}, not {value!r}")
            if not params.get("nonce"):
                raise Refused(400, "invalid_request", "no nonce")
            if not state:
                raise Refused(400, "invalid_request", "no state")
            user = params.get("login_hint")
            if user not in self.users:
                raise Refused(400, "login_required", f"login_hint {user!r} is nobody here")
            try:
                hint = jwt.decode(params.get("lti_message_hint", ""), self._hint_secret, algorithms=["HS256"])
            except jwt.PyJWTError as error:
                raise Refused(400, "invalid_request", f"lti_message_hint is not the one sent: {error}") from error
            if hint["user"] != user:
                raise Refused(400, "login_required", "login_hint is not the person the launch was for")
            with self._lock:
                if params["nonce"] in self._used_nonces:
                    raise Refused(400, "invalid_request", "nonce used before")
                self._used_nonces.add(params["nonce"])
            try:
                launch = self._claims_for(user, hint["context"], hint["link"], hint["deep"], params)
            except PreflightRequestValidationException as error:
                raise Refused(400, "invalid_request", "the library refused the request") from error
        except Refused as error:
            return self._auth_refused(redirect_uri, error.error, error.reason, state)
        self.launches.append({"user": user, "context": hint["context"], "link": hint["link"], "deep": hint["deep"],
                              "id_token": launch["id_token"], "state": state, "redirect_uri": redirect_uri})
        return Response(_auto_post(redirect_uri, {"id_token": launch["id_token"], "state": state}, "Launching"),
                        mimetype="text/html")

    def _auth_refused(self, redirect_uri, error, reason, state=None):
        self.refusals.append({"path": "/auth", "status": 400, "error": error, "reason": reason})
        if redirect_uri is None:
            return _page("Launch refused", f'<p class="error" id="lti-error">{html.escape(reason)}</p>', 400)
        fields = {"error": error, "error_description": reason}
        if state:
            fields["state"] = state
        return Response(_auto_post(redirect_uri, fields, "Launch refused"), mimetype="text/html")

    def _token(self):
        """The OAuth 2 token endpoint with the client credentials grant and a JWT client assertion (Security
        Framework 4.1, RFC 7523)."""
        if request.mimetype != "application/x-www-form-urlencoded":
            raise Refused(400, "invalid_request", f"a form is required, not {request.mimetype!r}")
        form = request.form
        for name in ("grant_type", "client_assertion_type", "client_assertion", "scope"):
            if not form.get(name):
                raise Refused(400, "invalid_request", f"no {name}")
        if form["grant_type"] != "client_credentials":
            raise Refused(400, "unsupported_grant_type", f"grant_type {form['grant_type']!r}")
        if form["client_assertion_type"] != ASSERTION_TYPE:
            raise Refused(400, "invalid_request", f"client_assertion_type {form['client_assertion_type']!r}")
        if not self.tool:
            raise Refused(401, "invalid_client", "no tool registered")
        claims = self._tool_claims(form["client_assertion"], self.token_url, self.client_id,
                                   ["iss", "sub", "aud", "exp", "iat", "jti"])
        if claims["sub"] != self.client_id:
            raise Refused(401, "invalid_client", f"sub {claims['sub']!r} is not the client_id")
        with self._lock:
            if claims["jti"] in self._used_jtis:
                raise Refused(401, "invalid_client", f"jti {claims['jti']!r} used before")
            self._used_jtis.add(claims["jti"])
        asked = form["scope"].split(" ")
        granted = [scope for scope in asked if scope in SCOPES]
        if not granted:
            raise Refused(400, "invalid_scope", f"none of {asked} is offered")
        scope = " ".join(granted)
        token = self.registration.platform_encode_and_sign(
            {"sub": self.client_id, "iss": self.issuer, "scopes": scope, "jti": secrets.token_urlsafe(12)},
            expiration=3600)
        self.tokens.append({"asked": asked, "granted": granted, "assertion": claims, "at": time.time()})
        return Response(json.dumps({"access_token": token, "token_type": "Bearer", "expires_in": 3600, "scope": scope}),
                        mimetype="application/json", headers={"Cache-Control": "no-store", "Pragma": "no-cache"})

    def _context(self, context_id):
        context = self.contexts.get(context_id)
        if not context:
            raise Refused(404, "not_found", f"no context {context_id!r}")
        return context

    @staticmethod
    def _accepts(media_type):
        accept = request.headers.get("Accept", "")
        if accept and not any(part.split(";")[0].strip() in (media_type, "*/*", "application/*")
                              for part in accept.split(",")):
            raise Refused(406, "not_acceptable", f"Accept {accept!r} does not take {media_type}")

    @staticmethod
    def _json_body(media_type):
        if request.mimetype != media_type:
            raise Refused(415, "unsupported_media_type", f"Content-Type {request.mimetype!r}, not {media_type}")
        body = request.get_json(force=True, silent=True)
        if not isinstance(body, dict):
            raise Refused(400, "invalid_request", "the body is not a JSON object")
        return body

    @staticmethod
    def _page_of(items, default_limit, most=100):
        """A page of `items` by `limit` (`most` at the most) and `page`, and the URL of the next page for the Link
        header."""
        try:
            limit = int(request.args.get("limit", default_limit))
            page = int(request.args.get("page", 1))
        except ValueError as error:
            raise Refused(400, "invalid_request", "limit and page are whole numbers") from error
        limit = max(1, min(limit, most))
        start = (page - 1) * limit
        chosen = items[start:start + limit]
        following = None
        if start + limit < len(items):
            args = request.args.to_dict()
            args.update({"limit": str(limit), "page": str(page + 1)})
            following = f"{request.base_url}?{urllib.parse.urlencode(args)}"
        return chosen, following

    @staticmethod
    def _answer(body, media_type, status=200, following=None, headers=None):
        headers = dict(headers or {})
        if following:
            headers["Link"] = f'<{following}>; rel="next"'
        return Response(json.dumps(body), status=status, mimetype=media_type, headers=headers)

    def _memberships(self, context_id):
        """NRPS 2.0: the course's members, a page at a time, with the roles and the personal details shared."""
        self._bearer([SCOPE_NRPS])
        self._accepts(MEMBERSHIPS_TYPE)
        context = self._context(context_id)
        with self._lock:
            members = sorted(context["members"].items())
        role = request.args.get("role")
        if role:
            members = [(sub, m) for sub, m in members if any(r == role or r.endswith("#" + role) for r in m["roles"])]
        link_id = request.args.get("rlid")
        if link_id and link_id not in context["links"]:
            raise Refused(400, "invalid_request", f"rlid {link_id!r} is no link of this context")
        chosen, following = self._page_of(members, NRPS_PAGE, NRPS_MOST)
        listed = []
        for sub, member in chosen:
            person = self.users[sub]
            entry = {"status": member["status"], "name": person["name"], "given_name": person["given_name"],
                     "family_name": person["family_name"], "user_id": sub, "roles": member["roles"]}
            if person["email"]:
                entry["email"] = person["email"]
            if person["sourcedid"]:
                entry["lis_person_sourcedid"] = person["sourcedid"]
            listed.append(entry)
        body = {"id": request.url, "context": {"id": context_id, "label": context["label"], "title": context["title"]},
                "members": listed}
        return self._answer(body, MEMBERSHIPS_TYPE, following=following)

    def _line_item_url(self, context_id, number):
        return f"{self.issuer}/contexts/{context_id}/lineitems/{number}"

    def _line_item_view(self, context_id, item):
        view = {"id": self._line_item_url(context_id, item["number"])}
        view.update({k: v for k, v in item.items() if k not in ("number", "results") and v is not None})
        return view

    def _line_item_fields(self, body, context):
        if not _number(body.get("scoreMaximum")) or body["scoreMaximum"] <= 0:
            raise Refused(400, "invalid_request", "scoreMaximum must be a number above 0")
        if not isinstance(body.get("label"), str) or not body["label"].strip():
            raise Refused(400, "invalid_request", "label is required")
        for name in ("resourceId", "tag", "resourceLinkId", "startDateTime", "endDateTime"):
            if name in body and not isinstance(body[name], str):
                raise Refused(400, "invalid_request", f"{name} must be a string")
        for name in ("startDateTime", "endDateTime"):
            if name in body and not iso_time(body[name]):
                raise Refused(400, "invalid_request", f"{name} is no ISO 8601 date-time")
        if body.get("resourceLinkId") and body["resourceLinkId"] not in context["links"]:
            raise Refused(400, "invalid_request", f"resourceLinkId {body['resourceLinkId']!r} is no link here")
        return {name: body.get(name) for name in
                ("scoreMaximum", "label", "resourceId", "tag", "resourceLinkId", "startDateTime", "endDateTime")}

    def _line_items(self, context_id):
        """AGS line items service: the course's columns, filtered, and a new one."""
        context = self._context(context_id)
        if request.method == "POST":
            self._bearer([SCOPE_LINEITEM])
            fields = self._line_item_fields(self._json_body(LINEITEM_TYPE), context)
            item = self._create_line_item(context_id, fields)
            view = self._line_item_view(context_id, item)
            return self._answer(view, LINEITEM_TYPE, 201, headers={"Location": view["id"]})
        self._bearer([SCOPE_LINEITEM, SCOPE_LINEITEM_READONLY])
        self._accepts(LINEITEMS_TYPE)
        with self._lock:
            items = list(context["line_items"].values())
        for name, field in (("resource_link_id", "resourceLinkId"), ("resource_id", "resourceId"), ("tag", "tag")):
            if name in request.args:
                items = [item for item in items if item.get(field) == request.args[name]]
        chosen, following = self._page_of(items, 100)
        return self._answer([self._line_item_view(context_id, item) for item in chosen], LINEITEMS_TYPE,
                            following=following)

    def _create_line_item(self, context_id, fields):
        with self._lock:
            self._line_item_numbers += 1
            item = {"number": self._line_item_numbers, **fields, "results": {}}
            self.contexts[context_id]["line_items"][item["number"]] = item
            if fields.get("resourceLinkId"):
                link = self.contexts[context_id]["links"][fields["resourceLinkId"]]
                link["line_item"] = link["line_item"] or self._line_item_url(context_id, item["number"])
        return item

    def _find_line_item(self, context_id, number):
        item = self._context(context_id)["line_items"].get(number)
        if not item:
            raise Refused(404, "not_found", f"no line item {number} in {context_id}")
        return item

    def _line_item(self, context_id, number):
        context = self._context(context_id)
        item = self._find_line_item(context_id, number)
        if request.method == "GET":
            self._bearer([SCOPE_LINEITEM, SCOPE_LINEITEM_READONLY])
            self._accepts(LINEITEM_TYPE)
            return self._answer(self._line_item_view(context_id, item), LINEITEM_TYPE)
        self._bearer([SCOPE_LINEITEM])
        if request.method == "DELETE":
            with self._lock:
                context["line_items"].pop(number, None)
            return Response(status=204)
        fields = self._line_item_fields(self._json_body(LINEITEM_TYPE), context)
        with self._lock:
            item.update({k: v for k, v in fields.items() if k != "resourceLinkId"})
        return self._answer(self._line_item_view(context_id, item), LINEITEM_TYPE)

    def _score(self, context_id, number):
        """AGS score publish service (AGS 2.0 §3.4): checked field by field, kept only when newer than the last
        score of that person in that column."""
        self._bearer([SCOPE_SCORE])
        context = self._context(context_id)
        item = self._find_line_item(context_id, number)
        score = self._json_body(SCORE_TYPE)
        user = score.get("userId")
        if not isinstance(user, str) or user not in context["members"]:
            raise Refused(400, "invalid_request", f"userId {user!r} is not in {context_id}")
        moment = iso_time(score.get("timestamp"))
        if not moment:
            raise Refused(400, "invalid_request", f"timestamp {score.get('timestamp')!r} is no ISO 8601 date-time")
        if score.get("activityProgress") not in ACTIVITY_PROGRESS:
            raise Refused(400, "invalid_request", f"activityProgress {score.get('activityProgress')!r}")
        if score.get("gradingProgress") not in GRADING_PROGRESS:
            raise Refused(400, "invalid_request", f"gradingProgress {score.get('gradingProgress')!r}")
        if "scoreGiven" in score:
            if not _number(score["scoreGiven"]) or score["scoreGiven"] < 0:
                raise Refused(400, "invalid_request", "scoreGiven must be a number from 0")
            if not _number(score.get("scoreMaximum")) or score["scoreMaximum"] <= 0:
                raise Refused(400, "invalid_request", "scoreGiven needs a scoreMaximum above 0")
        if "comment" in score and not isinstance(score["comment"], str):
            raise Refused(400, "invalid_request", "comment must be a string")
        with self._lock:
            last = item["results"].get(user)
            if last and moment <= last["moment"]:
                raise Refused(400, "invalid_request",
                              f"timestamp {score['timestamp']} is not after {last['score']['timestamp']}, the last one")
            item["results"][user] = {"moment": moment, "score": score}
            self._scores.append({**score, "lineItem": self._line_item_url(context_id, number), "receivedAt": time.time()})
        return self._answer({"resultUrl": f"{self._line_item_url(context_id, number)}/results?user_id={user}"},
                            "application/json")

    def _results(self, context_id, number):
        self._bearer([SCOPE_RESULT_READONLY])
        item = self._find_line_item(context_id, number)
        url = self._line_item_url(context_id, number)
        results = []
        for user, result in sorted(item["results"].items()):
            if request.args.get("user_id") not in (None, user):
                continue
            score = result["score"]
            entry = {"id": f"{url}/results/{user}", "scoreOf": url, "userId": user}
            if "scoreGiven" in score:
                entry["resultScore"] = score["scoreGiven"]
                entry["resultMaximum"] = score["scoreMaximum"]
            if "comment" in score:
                entry["comment"] = score["comment"]
            results.append(entry)
        chosen, following = self._page_of(results, 100)
        return self._answer(chosen, RESULTS_TYPE, following=following)

    def _deep_link_return(self):
        """Deep Linking 2.0's return: the tool's LtiDeepLinkingResponse, verified, becomes a link in the course
        (and its line item, when the content item asks for one)."""
        try:
            placed = self._place(request.form.get("JWT", ""))
        except Refused as error:
            self.refusals.append({"path": request.path, "status": 400, "error": error.error, "reason": error.reason})
            return _page("Not added", f'<p class="error" id="deep-link-error">{html.escape(error.reason)}</p>', 400)
        names = ", ".join(f"“{html.escape(link['title'])}”" for link in placed["links"])
        message = f'<p id="deep-link-placed">Added {names} to {html.escape(placed["context"]["title"])}.</p>'
        if placed["message"]:
            message += f'<p id="deep-link-message">{html.escape(placed["message"])}</p>'
        return _page("Added", message)

    def _place(self, token):
        if not token:
            raise Refused(400, "invalid_request", "no JWT in the form")
        claims = self._tool_claims(token, self.issuer, self.client_id, ["iss", "aud", "exp", "iat", "nonce"])
        if claims.get(LTI + "message_type") != "LtiDeepLinkingResponse":
            raise Refused(400, "invalid_request", f"message_type {claims.get(LTI + 'message_type')!r}")
        if claims.get(LTI + "version") != "1.3.0":
            raise Refused(400, "invalid_request", f"version {claims.get(LTI + 'version')!r}")
        if claims.get(LTI + "deployment_id") != self.deployment_id:
            raise Refused(400, "invalid_request", f"deployment_id {claims.get(LTI + 'deployment_id')!r}")
        data = claims.get(DL + "data")
        with self._lock:
            pending = self._deep_requests.get(data) if isinstance(data, str) else None
            if not pending:
                raise Refused(400, "invalid_request", f"data {data!r} is not that of a deep linking request")
            if not pending["open"]:
                raise Refused(400, "invalid_request", "this deep linking request was answered already")
            if claims["nonce"] in self._used_nonces:
                raise Refused(400, "invalid_request", "nonce used before")
        items = claims.get(DL + "content_items", [])
        if not isinstance(items, list):
            raise Refused(400, "invalid_request", "content_items is not a list")
        if len(items) > 1:
            raise Refused(400, "invalid_request", "more than one content item, and accept_multiple is false")
        for item in items:
            if not isinstance(item, dict) or item.get("type") != "ltiResourceLink":
                raise Refused(400, "invalid_request", f"content item type {item.get('type')!r} was not accepted")
            if "url" in item and not re.match(r"^https?://", str(item["url"])):
                raise Refused(400, "invalid_request", f"url {item['url']!r}")
            line_item = item.get("lineItem")
            if line_item is not None:
                if not isinstance(line_item, dict) or not _number(line_item.get("scoreMaximum")) \
                        or line_item["scoreMaximum"] <= 0:
                    raise Refused(400, "invalid_request", "lineItem needs a scoreMaximum above 0")
        context_id = pending["context"]
        links = []
        with self._lock:
            pending["open"] = False
            self._used_nonces.add(claims["nonce"])
            for item in items:
                self._link_numbers += 1
                link_id = f"{context_id}-placed-{self._link_numbers}"
                title = item.get("title") or "Untitled"
                link = self.add_link(context_id, link_id, title, item.get("url"), item.get("custom"))
                if item.get("lineItem"):
                    spec = item["lineItem"]
                    self._create_line_item(context_id, {
                        "scoreMaximum": spec["scoreMaximum"], "label": spec.get("label") or title,
                        "resourceId": spec.get("resourceId"), "tag": spec.get("tag"), "resourceLinkId": link_id,
                        "startDateTime": None, "endDateTime": None})
                links.append(link)
            record = {"context": self.contexts[context_id], "user": pending["user"], "links": links, "claims": claims,
                      "message": claims.get(DL + "msg") or claims.get(DL + "errormsg")}
            self.placed.append(record)
        return record


# The self-check: a small tool that does what a tool must, against the platform, and what it must not.

class _SelfCheckTool:
    """A tool with its own key and JWKS on loopback, speaking to the platform as Rollcall would."""

    def __init__(self, platform):
        self.platform = platform
        self.key = rsa_private_pem()
        self.kid = Registration.get_jwk(self.key)["kid"]
        app = Flask("self_check_tool")
        app.add_url_rule("/jwks", view_func=lambda: {"keys": [Registration.get_jwk(public_pem(self.key))]})
        self.server = _Loopback(app)
        self.url = f"http://127.0.0.1:{self.server.port}"

    def sign(self, claims, key=None, kid=None):
        return jwt.encode(claims, key or self.key, algorithm="RS256", headers={"kid": kid or self.kid})

    def assertion(self, **changes):
        now = int(time.time())
        claims = {"iss": self.platform.client_id, "sub": self.platform.client_id, "aud": self.platform.token_url,
                  "iat": now, "exp": now + 300, "jti": secrets.token_urlsafe(12)}
        claims.update(changes)
        return claims

    def token(self, scopes, claims=None, key=None):
        return requests.post(self.platform.token_url, data={
            "grant_type": "client_credentials", "client_assertion_type": ASSERTION_TYPE,
            "client_assertion": self.sign(claims or self.assertion(), key), "scope": " ".join(scopes)}, timeout=10)

    def launch(self, page_url, **changes):
        """Follows a course page's frame into the login and authentication request; answers the auto-posted
        fields and the verified id_token (None when refused)."""
        page = requests.get(page_url, timeout=10)
        assert page.status_code == 200, page.text
        src = html.unescape(re.search(r'<iframe[^>]* src="([^"]+)"', page.text).group(1))
        login, _, query = src.partition("?")
        assert login == f"{self.url}/login", src
        initiation = dict(urllib.parse.parse_qsl(query))
        assert set(initiation) == {"iss", "login_hint", "target_link_uri", "lti_message_hint", "client_id",
                                   "lti_deployment_id"}, initiation
        assert initiation["iss"] == self.platform.issuer
        state = secrets.token_urlsafe(12)
        params = {"scope": "openid", "response_type": "id_token", "response_mode": "form_post", "prompt": "none",
                  "client_id": initiation["client_id"], "redirect_uri": f"{self.url}/launch",
                  "login_hint": initiation["login_hint"], "lti_message_hint": initiation["lti_message_hint"],
                  "state": state, "nonce": secrets.token_urlsafe(12)}
        params.update(changes)
        params = {k: v for k, v in params.items() if v is not None}
        answer = requests.post(self.platform.auth_url, data=params, timeout=10)
        fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', answer.text))
        fields = {k: html.unescape(v) for k, v in fields.items()}
        if "id_token" not in fields:
            return answer, fields, None
        assert fields["state"] == state
        keys = requests.get(self.platform.jwks_url, timeout=10).json()["keys"]
        kid = jwt.get_unverified_header(fields["id_token"])["kid"]
        key = jwt.PyJWK(next(k for k in keys if k["kid"] == kid))
        claims = jwt.decode(fields["id_token"], key, algorithms=["RS256"], audience=self.platform.client_id,
                            issuer=self.platform.issuer, options={"require": ["exp", "iat", "sub", "nonce"]})
        assert claims["nonce"] == params["nonce"] and claims["azp"] == self.platform.client_id
        assert claims[LTI + "target_link_uri"] == initiation["target_link_uri"]
        return answer, fields, claims

    def stop(self):
        self.server.stop()


def self_check():
    """Runs the platform against the self-check tool: every step an LTI Advantage tool takes, and refusals of
    what a tool gets wrong. Raises AssertionError at the first surprise; answers a line per part that held."""
    done = []
    platform = Platform(client_id="self-check-tool", deployment_id="self-check-deployment").start()
    tool = _SelfCheckTool(platform)
    try:
        platform.register_tool(f"{tool.url}/login", f"{tool.url}/launch", f"{tool.url}/jwks", f"{tool.url}/deep")
        platform.add_user("teacher-1", "Tess Hill", "tess@hill.test", sourcedid="T-1")
        platform.add_context("phys-101", "Physics 101", "PHYS101")
        platform.enroll("phys-101", "teacher-1", INSTRUCTOR)
        for number in range(40):
            platform.add_user(f"student-{number}", f"Student {number:02d}", f"s{number}@hill.test",
                              sourcedid=f"S-{number}")
            platform.enroll("phys-101", f"student-{number}", LEARNER)
        platform.add_user("outsider", "Otto Outside", "otto@hill.test")
        platform.add_link("phys-101", "home", "Attendance")

        _, fields, claims = tool.launch(platform.launch_page_url("phys-101", "teacher-1", "home"))
        assert claims, fields
        assert claims[LTI + "message_type"] == "LtiResourceLinkRequest" and claims[LTI + "version"] == "1.3.0"
        assert claims[LTI + "deployment_id"] == "self-check-deployment"
        assert INSTRUCTOR in claims[LTI + "roles"] and claims[LTI + "resource_link"]["id"] == "home"
        assert claims[LTI + "context"] == {"id": "phys-101", "type": [COURSE_OFFERING], "title": "Physics 101",
                                           "label": "PHYS101"}
        assert claims["given_name"] == "Tess" and claims["family_name"] == "Hill"
        assert claims[LTI + "lis"] == {"person_sourcedid": "T-1"}
        assert claims[NRPS_CLAIM]["service_versions"] == ["2.0"]
        assert "lineitem" not in claims[AGS_CLAIM] and claims[AGS_CLAIM]["lineitems"].endswith("/lineitems")
        done.append("login, authentication and a verified id_token")

        for changes, where in (({"redirect_uri": "http://127.0.0.1:9/elsewhere"}, "page"),
                               ({"client_id": "someone-else"}, "page"), ({"nonce": None}, "form"),
                               ({"prompt": "login"}, "form"), ({"response_mode": "query"}, "form"),
                               ({"login_hint": "outsider"}, "form"), ({"lti_message_hint": "forged"}, "form")):
            answer, fields, claims = tool.launch(platform.launch_page_url("phys-101", "teacher-1", "home"), **changes)
            assert claims is None, changes
            assert (answer.status_code == 400) if where == "page" else fields.get("error"), (changes, answer.text)
        reused = secrets.token_urlsafe(8)
        assert tool.launch(platform.launch_page_url("phys-101", "student-1", "home"), nonce=reused)[2]
        assert tool.launch(platform.launch_page_url("phys-101", "student-1", "home"), nonce=reused)[2] is None
        forged = platform.id_token("student-2", "phys-101", "home", key=rsa_private_pem())
        public = jwt.PyJWK(platform.jwks()["keys"][0])
        try:
            jwt.decode(forged, public, algorithms=["RS256"], audience=platform.client_id)
            raise AssertionError("a token signed with another key verified")
        except jwt.InvalidSignatureError:
            pass
        assert "kid" not in jwt.get_unverified_header(platform.id_token("student-2", "phys-101", "home", kid=None))
        changed = jwt.decode(platform.id_token("student-2", "phys-101", "home", version="1.2.0", drop=["roles"]),
                             public, algorithms=["RS256"], audience=platform.client_id)
        assert changed[LTI + "version"] == "1.2.0" and LTI + "roles" not in changed
        done.append("refused authentication requests (redirect_uri, client_id, nonce, prompt, response_mode, "
                    "login_hint, message hint, reused nonce) and changed id_tokens for refusal tests")

        answer = tool.token([SCOPE_NRPS, SCOPE_LINEITEM, SCOPE_SCORE])
        assert answer.status_code == 200, answer.text
        granted = answer.json()
        assert granted["token_type"] == "Bearer" and granted["expires_in"] == 3600
        assert set(granted["scope"].split()) == {SCOPE_NRPS, SCOPE_LINEITEM, SCOPE_SCORE}
        bearer = {"Authorization": f"Bearer {granted['access_token']}"}
        repeated = tool.assertion(jti="once-only")
        assert tool.token([SCOPE_NRPS], repeated).status_code == 200
        for claims, key in ((repeated, None), (tool.assertion(aud=platform.issuer), None),
                            (tool.assertion(iss="intruder", sub="intruder"), None),
                            (tool.assertion(exp=int(time.time()) - 120), None),
                            (tool.assertion(), rsa_private_pem())):
            answer = tool.token([SCOPE_NRPS], claims, key)
            assert answer.status_code == 401 and answer.json()["error"] == "invalid_client", answer.text
        assert tool.token(["https://example.test/scope/everything"]).status_code == 400
        done.append("service tokens from a client assertion; refused: reused jti, wrong aud, wrong iss, expired, "
                    "unknown key, unknown scope")

        memberships = f"{platform.issuer}/contexts/phys-101/memberships"
        accept = {"Accept": MEMBERSHIPS_TYPE}
        assert requests.get(memberships, headers=accept, timeout=10).status_code == 401
        score_only = {"Authorization": f"Bearer {tool.token([SCOPE_SCORE]).json()['access_token']}"}
        assert requests.get(memberships, headers={**accept, **score_only}, timeout=10).status_code == 403
        members, pages, url = [], 0, memberships
        while url:
            answer = requests.get(url, headers={**accept, **bearer}, timeout=10)
            assert answer.status_code == 200 and answer.headers["Content-Type"].startswith(MEMBERSHIPS_TYPE)
            page = answer.json()
            assert len(page["members"]) <= NRPS_PAGE and page["context"]["title"] == "Physics 101"
            members += page["members"]
            pages += 1
            url = answer.links.get("next", {}).get("url")
        assert pages == 3 and len(members) == 41 and len({m["user_id"] for m in members}) == 41
        assert sum(LEARNER in m["roles"] for m in members) == 40
        done.append(f"NRPS: 41 members over {pages} pages by Link rel=next; 401 without a token, 403 without the scope")

        lineitems = f"{platform.issuer}/contexts/phys-101/lineitems"
        created = requests.post(lineitems, headers={**bearer, "Content-Type": LINEITEM_TYPE}, timeout=10, data=json.dumps(
            {"scoreMaximum": 100, "label": "Attendance", "resourceId": "rollcall-attendance", "tag": "attendance",
             "resourceLinkId": "home"}))
        assert created.status_code == 201, created.text
        item = created.json()["id"]
        listed = requests.get(lineitems, params={"resource_id": "rollcall-attendance"},
                              headers={**bearer, "Accept": LINEITEMS_TYPE}, timeout=10).json()
        assert [line["id"] for line in listed] == [item]

        def score(user, given, moment, **changes):
            body = {"userId": user, "scoreGiven": given, "scoreMaximum": 100, "activityProgress": "Completed",
                    "gradingProgress": "FullyGraded", "timestamp": moment, **changes}
            return requests.post(f"{item}/scores", headers={**bearer, "Content-Type": SCORE_TYPE},
                                 data=json.dumps(body), timeout=10).status_code

        assert score("student-0", 100, "2030-01-01T10:00:00Z") == 200
        assert score("student-0", 0, "2030-01-01T09:00:00Z") == 400
        assert score("student-0", 0, "2030-01-01T10:00:00+00:00") == 400
        assert score("student-0", 50, "2030-01-01T10:00:01.5+00:00") == 200
        assert score("outsider", 100, "2030-01-01T10:00:00Z") == 400
        assert score("student-1", 100, "2030-01-01T10:00:00Z", activityProgress="Done") == 400
        assert score("student-1", 100, "2030-01-01T10:00:00Z", gradingProgress="Graded") == 400
        assert score("student-1", 100, "yesterday") == 400
        assert score("student-1", 100, "2030-01-01T10:00:00") == 400
        assert requests.post(f"{item}/scores", headers={**score_only, "Content-Type": "application/json"}, timeout=10,
                             data="{}").status_code == 415
        assert [(s["userId"], s["scoreGiven"]) for s in platform.scores(item)] == [("student-0", 100), ("student-0", 50)]
        assert tool.launch(platform.launch_page_url("phys-101", "student-3", "home"))[2][AGS_CLAIM]["lineitem"] == item
        done.append("AGS: a line item made and found; scores kept in order, refused when not newer, not a member, "
                    "with unknown progress values or timestamps without an offset")

        _, fields, claims = tool.launch(platform.launch_page_url("phys-101", "teacher-1", deep=True))
        settings = claims[DL_SETTINGS]
        assert claims[LTI + "message_type"] == "LtiDeepLinkingRequest" and LTI + "resource_link" not in claims
        assert settings["accept_types"] == ["ltiResourceLink"] and settings["accept_multiple"] is False
        now = int(time.time())
        response = {"iss": platform.client_id, "aud": platform.issuer, "iat": now, "exp": now + 300,
                    "nonce": secrets.token_urlsafe(8), LTI + "message_type": "LtiDeepLinkingResponse",
                    LTI + "version": "1.3.0", LTI + "deployment_id": claims[LTI + "deployment_id"],
                    DL + "data": settings["data"],
                    DL + "content_items": [{"type": "ltiResourceLink", "title": "Rollcall attendance",
                                            "url": f"{tool.url}/launch",
                                            "lineItem": {"scoreMaximum": 100, "label": "Attendance",
                                                         "resourceId": "rollcall", "tag": "attendance"}}]}

        def returned(token):
            return requests.post(settings["deep_link_return_url"], data={"JWT": token}, timeout=10)

        assert returned(tool.sign(dict(response, aud="https://elsewhere.test"))).status_code == 400
        assert returned(tool.sign(response, rsa_private_pem())).status_code == 400
        placed = returned(tool.sign(response))
        assert placed.status_code == 200 and "Rollcall attendance" in placed.text, placed.text
        assert returned(tool.sign(dict(response, nonce=secrets.token_urlsafe(8)))).status_code == 400
        link = platform.placed[-1]["links"][0]
        launched = tool.launch(platform.launch_page_url("phys-101", "student-4", link["id"]))[2]
        assert launched[LTI + "resource_link"]["title"] == "Rollcall attendance"
        assert launched[AGS_CLAIM]["lineitem"] == link["line_item"]
        [column] = [i for i in platform.line_items("phys-101") if i["id"] == link["line_item"]]
        assert column["resourceLinkId"] == link["id"]
        done.append("deep linking: a verified response placed a link with its line item, whose launches carry it; "
                    "refused: wrong aud, unknown key, a second answer to one request")

        platform.down = True
        assert tool.token([SCOPE_SCORE]).status_code == 503
        assert requests.get(memberships, headers={**accept, **bearer}, timeout=10).status_code == 503
        platform.down = False
        assert tool.token([SCOPE_SCORE]).status_code == 200
        done.append("down: token and services answer 503, and come back")
    finally:
        tool.stop()
        platform.stop()
    return done


if __name__ == "__main__":
    import sys

    if sys.argv[1:] != ["--self-check"]:
        sys.exit("usage: lti_platform.py --self-check")
    started = time.time()
    for line in self_check():
        print(f"ok  {line}")
    print(f"self-check passed in {time.time() - started:.1f} s")
