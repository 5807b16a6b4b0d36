"""An LTI 1.3 platform for the server's tests: OpenLearning's `lti1p3platform` (the platform
side: the OIDC login, the signed launch, the access token, line items, scores, memberships)
behind a small HTTP front on a loopback port. It prints its address on its first line, then
serves until stdin closes (the test ends it by its pid otherwise).

The test drives it through /control/...:
  POST /control/tool      {"url": TOOL}                 the tool's address (login, launch, jwks)
  POST /control/launch    {"user", "roles", ...}         a launch to begin: its login URL
                          ("forge": key, audience, issuer, expired, deployment,
                          message_type or version: a launch forged so)
  POST /control/members   [{"user_id", "roles", ...}]    the context's members
  POST /control/down      {"down": true|false}           the services answer 503 while down
  POST /control/rotate    {}                             a new platform key (and kid)
  GET  /control/scores                                  the scores the platform took
  GET  /control/lineitems                               the line items it holds
  GET  /control/auth                                    the last authorization request
"""

import json
import sys
import threading
import time
import html
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlparse, parse_qsl, urlencode

from jwcrypto.jwk import JWK

from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.registration import Registration
from lti1p3platform.oidc_login import OIDCLoginAbstract
from lti1p3platform.message_launch import LTIAdvantageMessageLaunchAbstract
from lti1p3platform.request import Request
from lti1p3platform.service_connector import (
    AssignmentsGradesService,
    NamesRoleProvisioningService,
)
from lti1p3platform.membership import Context
from lti1p3platform.score import UpdateScoreStatus
from lti1p3platform.exceptions import LtiException, LtiServiceException

CLIENT_ID = "gridjudge-tool"
DEPLOYMENT = "deployment-1"

LOCK = threading.Lock()
STATE = {
    "tool": None,
    "launches": {},
    "members": [],
    "down": False,
    "scores": [],
    "lineitems": {},
    "auth": None,
}


def pem_pair():
    key = JWK.generate(kty="RSA", size=2048)
    return (
        key.export_to_pem(private_key=True, password=None).decode(),
        key.export_to_pem().decode(),
    )


KEYS = {"platform": pem_pair(), "rogue": pem_pair()}


class Platform(LTI1P3PlatformConfAbstract):
    def init_platform_config(self, **kwargs):
        self.base = kwargs["base"]

    def get_registration_by_params(self, **kwargs):
        tool = STATE["tool"]
        return (
            Registration()
            .set_iss(self.base)
            .set_client_id(CLIENT_ID)
            .set_deployment_id(DEPLOYMENT)
            .set_oidc_login_url(f"{tool}/lti/login")
            .set_launch_url(f"{tool}/lti/launch")
            .set_tool_key_set_url(f"{tool}/lti/jwks")
            .set_platform_public_key(KEYS["platform"][1])
            .set_platform_private_key(KEYS["platform"][0])
        )


def platform(base):
    conf = Platform(base=base)
    conf.get_registration()
    return conf


class Req(Request):
    def build_metadata(self, request):
        return request


class Login(OIDCLoginAbstract):
    def set_lti_message_hint(self, **kwargs):
        self._lti_message_hint = kwargs["hint"]

    def get_redirect(self, url):
        return url


class Launch(LTIAdvantageMessageLaunchAbstract):
    def render_launch_form(self, launch_data, **kwargs):
        return launch_data


class Grades(AssignmentsGradesService):
    def find_lineitems(self, page=1, limit=None, line_item_id=None,
                       resource_link_id=None, resource_id=None, tag=None):
        items = [i for i in STATE["lineitems"].values()
                 if resource_id is None or i.get("resourceId") == resource_id]
        return {"content": items, "has_next": False, "next": None}

    def find_lineitem(self, line_item_id):
        return STATE["lineitems"][line_item_id]

    def create_lineitem(self, creation_data):
        number = str(len(STATE["lineitems"]) + 1)
        item = dict(creation_data)
        item["id"] = f"{self.ags.lineitems_url}/{number}"
        STATE["lineitems"][number] = item
        return item

    def update_lineitem(self, update_data):
        return update_data

    def delete_lineitem(self, line_item_id):
        STATE["lineitems"].pop(line_item_id, None)

    def update_score(self, line_item_id, score):
        if line_item_id not in STATE["lineitems"]:
            from lti1p3platform.exceptions import LineItemNotFoundException
            raise LineItemNotFoundException()
        record = dict(score)
        record["lineitem"] = line_item_id
        STATE["scores"].append(record)
        return UpdateScoreStatus.SUCCESS

    def get_results(self, line_item_id, page=1, limit=None, user_id=None):
        return {"content": [], "has_next": False, "next": None}


class Members(NamesRoleProvisioningService):
    def get_member_data_page(self, page=1, limit=None, role=None, since=None):
        members = STATE["members"]
        page, limit = int(page), int(limit or len(members) or 1)
        start = (page - 1) * limit
        return {"content": members[start:start + limit],
                "has_next": start + limit < len(members)}

    def get_context_by_id(self):
        return Context(id="course-1", label="CS1", title="Test course")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    @property
    def base(self):
        return self.server.base

    def answer(self, code, body, kind="application/json", headers=()):
        data = body if isinstance(body, bytes) else body.encode()
        self.send_response(code)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def json(self, code, value, kind="application/json", headers=()):
        self.answer(code, json.dumps(value), kind, headers)

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length).decode() if length else ""

    def request_of(self, path, query, form=None, body=None):
        return Req({
            "method": self.command,
            "form_data": form or {},
            "get_data": query,
            # Case-insensitive, as HTTP header names are.
            "headers": self.headers,
            "content_type": self.headers.get("Content-Type"),
            "path": path,
            "json": body,
        })

    def do_GET(self):
        self.route()

    def do_POST(self):
        self.route()

    def route(self):
        url = urlparse(self.path)
        query = dict(parse_qsl(url.query))
        path = url.path
        raw = self.body() if self.command == "POST" else ""
        try:
            with LOCK:
                self.dispatch(path, query, raw)
        except LtiServiceException as err:
            self.json(err.status_code, {"error": err.message})
        except LtiException as err:
            self.json(400, {"error": str(err)})

    def dispatch(self, path, query, raw):
        conf = platform(self.base)
        if path == "/control/tool":
            STATE["tool"] = json.loads(raw)["url"]
            return self.json(200, {})
        if path == "/control/launch":
            return self.control_launch(conf, json.loads(raw))
        if path == "/control/members":
            STATE["members"] = json.loads(raw)
            return self.json(200, {})
        if path == "/control/down":
            STATE["down"] = json.loads(raw)["down"]
            return self.json(200, {})
        if path == "/control/rotate":
            # A new key pair under a new kid: the old one is gone from the key set.
            KEYS["platform"] = pem_pair()
            return self.json(200, {})
        if path == "/control/scores":
            return self.json(200, STATE["scores"])
        if path == "/control/lineitems":
            return self.json(200, STATE["lineitems"])
        if path == "/control/auth":
            return self.json(200, STATE["auth"])
        if path == "/jwks":
            return self.json(200, conf.get_jwks())
        if path == "/auth":
            return self.authorize(conf, query)
        if STATE["down"]:
            return self.json(503, {"error": "the platform is down"})
        if path == "/token":
            form = dict(parse_qsl(raw))
            return self.json(200, conf.get_access_token(form))
        if path.startswith("/lineitems"):
            return self.grades(conf, path, query, raw)
        if path == "/memberships":
            return self.members(conf, query)
        self.json(404, {"error": "no such address"})

    def control_launch(self, conf, spec):
        hint = f"launch-{len(STATE['launches']) + 1}"
        STATE["launches"][hint] = spec
        login = Login(None, conf)
        login.set_lti_message_hint(hint=hint)
        self.json(200, {"login_url": login.initiate_login(spec["user"])})

    def authorize(self, conf, query):
        STATE["auth"] = query
        spec = STATE["launches"].get(query.get("lti_message_hint"))
        if spec is None:
            return self.answer(400, "unknown lti_message_hint", "text/plain")
        if query.get("login_hint") != spec["user"]:
            return self.answer(400, "login_hint is not the launch's user", "text/plain")
        expected = {"scope": "openid", "response_type": "id_token",
                    "response_mode": "form_post", "prompt": "none",
                    "redirect_uri": f"{STATE['tool']}/lti/launch"}
        for name, value in expected.items():
            if query.get(name) != value:
                return self.answer(400, f"{name} is not {value}", "text/plain")
        launch = Launch(self.request_of("/auth", query), conf)
        launch.set_user_data(spec["user"], spec["roles"], spec.get("name"), spec.get("email"))
        launch.set_resource_link_claim(spec.get("resource_link", "link-1"))
        launch.set_launch_context_claim("course-1", context_title="Test course")
        if spec.get("assignment"):
            launch.set_custom_parameters_claim({"assignment": spec["assignment"]})
        lineitems = f"{self.base}/lineitems"
        lineitem = spec.get("lineitem")
        if lineitem and lineitem not in STATE["lineitems"]:
            STATE["lineitems"][lineitem] = {
                "id": f"{lineitems}/{lineitem}", "label": "Set by the LMS",
                "scoreMaximum": 100, "resourceLinkId": spec.get("resource_link", "link-1")}
        launch.set_ags(lineitems, f"{lineitems}/{lineitem}" if lineitem else None)
        # Two members a page: the tool must follow the pages.
        launch.set_nrps(f"{self.base}/memberships?limit=2")
        forge = spec.get("forge")
        if forge == "audience":
            launch.set_extra_claims({"aud": "another-tool", "azp": "another-tool"})
        if forge == "deployment":
            launch.set_extra_claims({
                "https://purl.imsglobal.org/spec/lti/claim/deployment_id": "unknown"})
        if forge == "issuer":
            launch.set_extra_claims({"iss": "https://another-lms.example"})
        if forge == "message_type":
            launch.set_extra_claims({
                "https://purl.imsglobal.org/spec/lti/claim/message_type": "LtiDeepLinkingRequest"})
        if forge == "version":
            launch.set_extra_claims({"https://purl.imsglobal.org/spec/lti/claim/version": "1.1"})
        if forge == "expired":
            launch.set_id_token_expiration(-600)
        data = launch.lti_launch()
        if forge == "key":
            # Signed by a key the platform's set does not hold, under the platform's kid.
            message, state = launch.get_launch_data()
            data["id_token"] = Registration.encode_and_sign(
                message, KEYS["rogue"][0], {"kid": conf._registration.get_kid()}, 300)
        fields = "".join(
            f'<input type="hidden" name="{name}" value="{html.escape(data[name])}" />'
            for name in ("id_token", "state"))
        page = (
            "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>LMS</title></head>"
            f"<body><form method=\"POST\" action=\"{html.escape(data['launch_url'])}\" id=\"launch\">"
            f"{fields}</form><script>document.getElementById('launch').submit();</script>"
            "</body></html>")
        self.answer(200, page, "text/html; charset=utf-8")

    def grades(self, conf, path, query, raw):
        lineitems = f"{self.base}/lineitems"
        parts = path.strip("/").split("/")
        body = json.loads(raw) if raw else None
        request = self.request_of(path, query, body=body)
        service = Grades(request, conf, lineitems)
        if len(parts) == 1 and self.command == "GET":
            resp = service.handle_get_lineitems()
            if resp.code == 200:
                return self.json(200, resp.result["content"], resp.media_type)
            return self.json(resp.code, {"error": resp.message})
        if len(parts) == 1:
            resp = service.handle_create_lineitem()
        elif len(parts) == 3 and parts[2] == "scores":
            resp = service.handle_update_score(parts[1])
        elif len(parts) == 2:
            resp = service.handle_get_lineitem(parts[1])
        else:
            return self.json(404, {"error": "no such address"})
        self.json(resp.code, resp.result if resp.result is not None else {"status": resp.message},
                  resp.media_type)

    def members(self, conf, query):
        query = {k: int(v) if k in ("page", "limit") else v for k, v in query.items()}
        service = Members(self.request_of("/memberships", query), conf,
                          f"{self.base}/memberships")
        resp = service.handle_get_members()
        if resp.code != 200:
            return self.json(resp.code, {"error": resp.message})
        result = resp.result
        headers = []
        if result.get("next"):
            headers.append(("Link", f'<{result.pop("next")}>; rel="next"'))
        self.json(200, result, resp.media_type, headers)


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # A client that closed its connection (a pooled one, at the test's end) is no error.
        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            return
        super().handle_error(request, client_address)


def main():
    server = Server(("127.0.0.1", 0), Handler)
    server.base = f"http://127.0.0.1:{server.server_address[1]}"
    print(server.base, flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    # Ends when the test closes our stdin (or ends us by pid).
    sys.stdin.read()
    server.shutdown()


if __name__ == "__main__":
    main()
