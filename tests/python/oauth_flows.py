#!/usr/bin/env python3
"""Drives ACS's OAuth 2 endpoints under /api/o/ as a third-party client would, with
requests-oauthlib (run by tests/tests/oauth_clients.rs).

Reads one JSON document from stdin:

    {
      "base": "http://127.0.0.1:<port>",
      "username": "...", "password": "...",           # a normal user
      "password_app": {"client_id": "...", "client_secret": "..."},
      "code_app": {"client_id": "...", "client_secret": "...", "redirect_uri": "..."},
      "public_app": {"client_id": "...", "redirect_uri": "..."}
    }

runs every flow, and prints one JSON summary line on success. Any failed check raises (an
AssertionError with a message saying what was expected), so the exit status is non-zero.
Token values and client secrets are never printed.
"""

import html.parser
import json
import os
import secrets
import sys
import urllib.parse

# The test server speaks plain http on 127.0.0.1; oauthlib refuses that unless told.
os.environ["OAUTHLIB_INSECURE_TRANSPORT"] = "1"
# Variables that would change oauthlib's checks or route loopback requests through a proxy.
os.environ.pop("OAUTHLIB_RELAX_TOKEN_SCOPE", None)
os.environ.pop("OAUTHLIB_STRICT_TOKEN_TYPE", None)
os.environ["NO_PROXY"] = os.environ["no_proxy"] = "127.0.0.1,localhost"

import requests  # noqa: E402
from oauthlib.oauth2 import (  # noqa: E402
    InvalidClientError,
    LegacyApplicationClient,
)
from requests.auth import HTTPBasicAuth  # noqa: E402
from requests_oauthlib import OAuth2Session  # noqa: E402

TIMEOUT = 60
SECRET_KEYS = {"access_token", "refresh_token", "token", "client_secret", "code", "password"}


# --- reporting without leaking secrets ------------------------------------------------------


def redacted(value):
    """`value` with every secret-looking field replaced."""
    if isinstance(value, dict):
        return {
            key: ("<redacted>" if key in SECRET_KEYS else redacted(item))
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [redacted(item) for item in value]
    return value


def describe(response):
    """Method, URL, status and body of `response`, fit for an assertion message."""
    request = response.request
    url = urllib.parse.urlsplit(request.url)
    text = response.text
    try:
        body = json.dumps(redacted(json.loads(text)))
    except ValueError:
        body = text[:400] + ("…" if len(text) > 400 else "")
    return f"{request.method} {url.path} -> {response.status_code}: {body}"


def json_body(response):
    try:
        return response.json()
    except ValueError:
        raise AssertionError(f"expected a JSON body: {describe(response)}") from None


# --- checks ---------------------------------------------------------------------------------


def assert_status(response, status, what):
    assert response.status_code == status, f"{what}: expected {status}, got {describe(response)}"


def assert_no_store(response, what):
    cache_control = response.headers.get("Cache-Control", "")
    directives = {part.strip().lower() for part in cache_control.split(",")}
    assert "no-store" in directives, (
        f"{what}: expected Cache-Control: no-store, got {cache_control!r} ({describe(response)})"
    )
    pragma = response.headers.get("Pragma")
    assert pragma == "no-cache", f"{what}: expected Pragma: no-cache, got {pragma!r}"


def assert_oauth_error(response, status, error, what):
    """`response` is a protocol error `error` with HTTP status `status`."""
    assert_status(response, status, what)
    body = json_body(response)
    assert body.get("error") == error, f"{what}: expected error {error!r}, got {describe(response)}"
    assert isinstance(body.get("error_description"), str), (
        f"{what}: expected an error_description string, got {describe(response)}"
    )
    return body


def assert_token_response(response, what, scope=None):
    """A token-endpoint success; returns the parsed body."""
    assert_status(response, 200, what)
    body = json_body(response)
    for key in ("access_token", "refresh_token", "scope"):
        assert isinstance(body.get(key), str) and body[key], (
            f"{what}: expected a non-empty {key} string, got {describe(response)}"
        )
    assert body.get("token_type") == "Bearer", (
        f"{what}: expected token_type Bearer, got {describe(response)}"
    )
    expires_in = body.get("expires_in")
    assert isinstance(expires_in, int) and expires_in > 0, (
        f"{what}: expected a positive integer expires_in, got {describe(response)}"
    )
    if scope is not None:
        assert body["scope"] == scope, f"{what}: expected scope {scope!r}, got {describe(response)}"
    return body


class Recorder:
    """A requests-oauthlib compliance hook that keeps the last token-endpoint response."""

    def __init__(self):
        self.response = None

    def __call__(self, response):
        self.response = response
        return response

    def last(self, what):
        assert self.response is not None, f"{what}: no token-endpoint response was recorded"
        return self.response


def recorded(session):
    """Registers a [`Recorder`] for the token and refresh responses of `session`."""
    recorder = Recorder()
    session.register_compliance_hook("access_token_response", recorder)
    session.register_compliance_hook("refresh_token_response", recorder)
    return recorder


# --- the client -----------------------------------------------------------------------------


class Flows:
    def __init__(self, config):
        self.base = config["base"].rstrip("/")
        self.username = config["username"]
        self.password = config["password"]
        self.password_app = config["password_app"]
        self.code_app = config["code_app"]
        self.public_app = config["public_app"]
        self.token_url = self.url("/api/o/token/")
        self.authorize_url = self.url("/api/o/authorize/")
        self.http = requests.Session()
        self.logged_in = None
        # The tokens of flow c, which flow f tries to revoke as another client.
        self.code_tokens = None
        self.done = []

    def url(self, path):
        return self.base + path

    def basic(self, app):
        return HTTPBasicAuth(app["client_id"], app["client_secret"])

    # plain requests, as a resource server or a hand-written client would send them

    def me(self, access_token):
        return self.http.get(
            self.url("/api/v2/me/"),
            headers={"Authorization": f"Bearer {access_token}"},
            timeout=TIMEOUT,
        )

    def assert_me_works(self, access_token, what):
        response = self.me(access_token)
        assert_status(response, 200, f"{what}: GET /api/v2/me/ with the access token")
        self.assert_is_user(response, what)

    def assert_is_user(self, response, what):
        results = json_body(response).get("results") or [{}]
        assert results[0].get("username") == self.username, (
            f"{what}: expected /api/v2/me/ to be {self.username!r}, got {describe(response)}"
        )

    def token_request(self, form, auth=None):
        return self.http.post(self.token_url, data=form, auth=auth, timeout=TIMEOUT)

    def refresh_request(self, app, refresh_token):
        return self.token_request(
            {"grant_type": "refresh_token", "refresh_token": refresh_token},
            auth=self.basic(app),
        )

    def revoke(self, app, token):
        return self.http.post(
            self.url("/api/o/revoke_token/"),
            data={"token": token},
            auth=self.basic(app),
            timeout=TIMEOUT,
        )

    def introspect(self, app, token):
        return self.http.post(
            self.url("/api/o/introspect/"),
            data={"token": token},
            auth=self.basic(app),
            timeout=TIMEOUT,
        )

    # requests-oauthlib sessions

    def password_session(self, scope=None):
        client = LegacyApplicationClient(client_id=self.password_app["client_id"], scope=scope)
        return OAuth2Session(client=client)

    def password_grant(self, scope=None):
        """A password grant with Basic client authentication; returns (session, token)."""
        oauth = self.password_session(scope)
        recorder = recorded(oauth)
        token = oauth.fetch_token(
            self.token_url,
            username=self.username,
            password=self.password,
            client_id=self.password_app["client_id"],
            client_secret=self.password_app["client_secret"],
            timeout=TIMEOUT,
        )
        response = recorder.last("password grant")
        assert_token_response(response, "password grant (Basic)")
        sent = response.request
        assert sent.headers.get("Authorization", "").startswith("Basic "), (
            "password grant: requests-oauthlib was expected to authenticate the client with Basic"
        )
        return oauth, token, response

    # a. password grant, scopes, refresh rotation ------------------------------------------

    def flow_password_grant_and_refresh(self):
        oauth, token, response = self.password_grant()
        assert_no_store(response, "password grant success")
        # The session itself sends the bearer token.
        me = oauth.get(self.url("/api/v2/me/"), timeout=TIMEOUT)
        assert_status(me, 200, "password grant: GET /api/v2/me/ through the OAuth2Session")
        self.assert_is_user(me, "password grant")

        # A read-scoped token reads but cannot write.
        oauth, token, response = self.password_grant(scope=["read"])
        assert_token_response(response, "password grant, scope read", scope="read")
        assert token["scope"] == ["read"], f"scope read: oauthlib parsed {token['scope']!r}"
        self.assert_me_works(token["access_token"], "read token")
        denied = self.http.post(
            self.url("/api/v2/tokens/"),
            json={"description": "written with a read token", "scope": "read"},
            headers={"Authorization": f"Bearer {token['access_token']}"},
            timeout=TIMEOUT,
        )
        assert_status(denied, 403, "POST /api/v2/tokens/ with a read-scoped token")

        # Refresh rotates both values.
        old_access, old_refresh = token["access_token"], token["refresh_token"]
        recorder = recorded(oauth)
        new = oauth.refresh_token(
            self.token_url,
            auth=self.basic(self.password_app),
            timeout=TIMEOUT,
        )
        refreshed = recorder.last("refresh")
        assert_token_response(refreshed, "refresh_token grant", scope="read")
        assert_no_store(refreshed, "refresh success")
        assert new["access_token"] != old_access, "refresh: the access token did not change"
        assert new["refresh_token"] != old_refresh, "refresh: the refresh token did not change"
        old = self.me(old_access)
        assert_status(old, 401, "the access token replaced by a refresh")
        self.assert_me_works(new["access_token"], "refreshed access token")
        reused = self.refresh_request(self.password_app, old_refresh)
        assert_oauth_error(reused, 400, "invalid_grant", "reusing a rotated refresh token")
        assert_no_store(reused, "refresh error")

    # b. client credentials in the form body ----------------------------------------------

    def flow_client_credentials_in_body(self):
        app = self.password_app
        oauth = self.password_session()
        recorder = recorded(oauth)
        token = oauth.fetch_token(
            self.token_url,
            username=self.username,
            password=self.password,
            client_id=app["client_id"],
            client_secret=app["client_secret"],
            include_client_id=True,
            timeout=TIMEOUT,
        )
        response = recorder.last("password grant, client in body")
        assert_token_response(response, "password grant, client credentials in the body")
        sent = response.request
        assert "Authorization" not in sent.headers, "client in body: an Authorization header was sent"
        sent_form = urllib.parse.parse_qs(sent.body)
        assert sent_form.get("client_id") == [app["client_id"]], (
            "client in body: requests-oauthlib did not put client_id in the body"
        )
        assert "client_secret" in sent_form, "client in body: no client_secret in the body"
        self.assert_me_works(token["access_token"], "client in body")

        # A wrong secret: oauthlib raises invalid_client, the server answered 401.
        oauth = self.password_session()
        recorder = recorded(oauth)
        try:
            oauth.fetch_token(
                self.token_url,
                username=self.username,
                password=self.password,
                client_id=app["client_id"],
                client_secret="wrong-" + secrets.token_urlsafe(16),
                include_client_id=True,
                timeout=TIMEOUT,
            )
        except InvalidClientError:
            pass
        else:
            raise AssertionError("a wrong client secret was accepted by the token endpoint")
        response = recorder.last("wrong client secret")
        assert_oauth_error(response, 401, "invalid_client", "wrong client secret")
        challenge = response.headers.get("WWW-Authenticate")
        assert challenge, f"wrong client secret: no WWW-Authenticate header ({describe(response)})"
        assert challenge.startswith("Bearer") and 'error="invalid_client"' in challenge, (
            f'wrong client secret: expected WWW-Authenticate: Bearer error="invalid_client", '
            f"got {challenge!r}"
        )
        assert_no_store(response, "invalid_client error")

    # the browser side of the authorization-code flow --------------------------------------

    def browser(self):
        """A requests.Session logged in the way a browser logs in to /api/login/ (once, then
        reused)."""
        if self.logged_in is not None:
            return self.logged_in
        browser = requests.Session()
        page = browser.get(self.url("/api/login/"), timeout=TIMEOUT)
        assert_status(page, 200, "GET /api/login/")
        csrf = browser.cookies.get("csrftoken")
        assert csrf, "GET /api/login/ set no csrftoken cookie"
        login = browser.post(
            self.url("/api/login/"),
            data={
                "username": self.username,
                "password": self.password,
                "csrfmiddlewaretoken": csrf,
                "next": "",
            },
            headers={"Referer": self.url("/api/login/")},
            allow_redirects=False,
            timeout=TIMEOUT,
        )
        assert_status(login, 302, "POST /api/login/")
        self.logged_in = browser
        return browser

    def start_authorization(self, app, scope, pkce=None):
        """An OAuth2Session for `app` and the authorization URL it builds."""
        state = secrets.token_urlsafe(16)
        oauth = OAuth2Session(
            app["client_id"],
            redirect_uri=app["redirect_uri"],
            scope=scope,
            state=state,
            pkce=pkce,
        )
        url, returned_state = oauth.authorization_url(self.authorize_url)
        assert returned_state == state, "authorization_url changed the state"
        return oauth, url, state

    def consent(self, browser, url, what):
        """GETs the consent page of `url`; returns the parsed form."""
        page = browser.get(url, allow_redirects=False, timeout=TIMEOUT)
        assert_status(page, 200, f"{what}: GET /api/o/authorize/ (consent page)")
        content_type = page.headers.get("Content-Type", "")
        assert content_type.startswith("text/html"), (
            f"{what}: the consent page is {content_type!r}, not HTML"
        )
        form = ConsentForm.parse(page.text, what)
        # Every authorization parameter comes back as a hidden input, unchanged.
        sent = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)
        for name, values in sent.items():
            assert form.hidden.get(name) == values[0], (
                f"{what}: the consent form's hidden {name!r} is {form.hidden.get(name)!r}, "
                f"expected {values[0]!r}"
            )
        assert form.hidden.get("csrfmiddlewaretoken"), (
            f"{what}: the consent form has no csrfmiddlewaretoken"
        )
        return page.url, form

    def submit_consent(self, browser, page_url, form, button, what):
        """Posts the consent form with `button`; returns the redirect's query parameters
        and the Location."""
        assert button in form.buttons, f"{what}: the consent form has no {button!r} button"
        data = dict(form.hidden)
        data[button] = form.buttons[button]
        response = browser.post(
            urllib.parse.urljoin(page_url, form.action),
            data=data,
            headers={"Referer": page_url},
            allow_redirects=False,
            timeout=TIMEOUT,
        )
        assert_status(response, 302, f"{what}: POST /api/o/authorize/ ({button})")
        location = response.headers.get("Location", "")
        return location, urllib.parse.parse_qs(urllib.parse.urlsplit(location).query)

    def approve(self, browser, app, scope, pkce=None, what="authorization"):
        """Runs the authorization request through the consent page and approves it; returns
        (session, redirect location, query parameters)."""
        oauth, url, state = self.start_authorization(app, scope, pkce)
        page_url, form = self.consent(browser, url, what)
        if pkce:
            assert form.hidden.get("code_challenge_method") == "S256", (
                f"{what}: the consent form lost code_challenge_method"
            )
        location, params = self.submit_consent(browser, page_url, form, "allow", what)
        assert location.startswith(app["redirect_uri"]), (
            f"{what}: approval redirected to {urllib.parse.urlsplit(location).path!r}, "
            f"not the redirect URI {app['redirect_uri']!r}"
        )
        assert params.get("state") == [state], f"{what}: the redirect did not carry the state"
        assert len(params.get("code", [])) == 1 and params["code"][0], (
            f"{what}: the redirect carries no code (parameters {sorted(params)})"
        )
        assert "error" not in params, f"{what}: the redirect carries error {params['error']}"
        return oauth, location, params

    # c. authorization code, confidential client, no PKCE ----------------------------------

    def flow_authorization_code(self):
        app = self.code_app
        # Without a browser session the authorization endpoint sends the user to log in.
        _, url, _ = self.start_authorization(app, ["write"])
        anonymous = self.http.get(url, allow_redirects=False, timeout=TIMEOUT)
        assert_status(anonymous, 302, "GET /api/o/authorize/ without a session")
        login = urllib.parse.urlsplit(anonymous.headers.get("Location", ""))
        assert login.path == "/api/login/" and "next" in urllib.parse.parse_qs(login.query), (
            f"GET /api/o/authorize/ without a session redirected to {login.path!r}, "
            "expected /api/login/?next=…"
        )

        browser = self.browser()
        what = "authorization code"
        oauth, location, params = self.approve(browser, app, ["write"], what=what)
        recorder = recorded(oauth)
        token = oauth.fetch_token(
            self.token_url,
            authorization_response=location,
            client_secret=app["client_secret"],
            timeout=TIMEOUT,
        )
        response = recorder.last(what)
        assert_token_response(response, f"{what}: exchange", scope="write")
        assert response.request.headers.get("Authorization", "").startswith("Basic "), (
            f"{what}: requests-oauthlib was expected to authenticate the client with Basic"
        )
        assert token["scope"] == ["write"], f"{what}: oauthlib parsed scope {token['scope']!r}"
        me = oauth.get(self.url("/api/v2/me/"), timeout=TIMEOUT)
        assert_status(me, 200, f"{what}: GET /api/v2/me/ through the OAuth2Session")
        self.assert_is_user(me, what)

        again = self.token_request(
            {
                "grant_type": "authorization_code",
                "code": params["code"][0],
                "redirect_uri": app["redirect_uri"],
            },
            auth=self.basic(app),
        )
        assert_oauth_error(again, 400, "invalid_grant", f"{what}: exchanging the code twice")
        self.code_tokens = token

    # d. authorization code with PKCE, public client ---------------------------------------

    def flow_authorization_code_pkce(self):
        app = self.public_app
        browser = self.browser()
        what = "authorization code with PKCE"
        oauth, location, _ = self.approve(browser, app, ["read"], pkce="S256", what=what)
        recorder = recorded(oauth)
        token = oauth.fetch_token(
            self.token_url,
            authorization_response=location,
            include_client_id=True,
            timeout=TIMEOUT,
        )
        response = recorder.last(what)
        assert_token_response(response, f"{what}: exchange", scope="read")
        sent = response.request
        assert "Authorization" not in sent.headers, f"{what}: an Authorization header was sent"
        sent_form = urllib.parse.parse_qs(sent.body)
        assert sent_form.get("client_id") == [app["client_id"]], f"{what}: no client_id sent"
        assert "code_verifier" in sent_form, f"{what}: requests-oauthlib sent no code_verifier"
        assert "client_secret" not in sent_form, f"{what}: a client_secret was sent"
        me = oauth.get(self.url("/api/v2/me/"), timeout=TIMEOUT)
        assert_status(me, 200, f"{what}: GET /api/v2/me/ through the OAuth2Session")
        self.assert_is_user(me, what)

        # A code exchanged with another verifier than the one of its challenge.
        what = "PKCE with a wrong code_verifier"
        oauth, location, params = self.approve(browser, app, ["read"], pkce="S256", what=what)
        wrong = self.token_request(
            {
                "grant_type": "authorization_code",
                "code": params["code"][0],
                "redirect_uri": app["redirect_uri"],
                "client_id": app["client_id"],
                # Well-formed (43 to 128 unreserved characters), just not the right one.
                "code_verifier": secrets.token_urlsafe(48),
            }
        )
        assert_oauth_error(wrong, 400, "invalid_grant", what)

    # e. the user denies --------------------------------------------------------------------

    def flow_denial(self):
        app = self.code_app
        what = "denied authorization"
        browser = self.browser()
        _, url, state = self.start_authorization(app, ["write"])
        page_url, form = self.consent(browser, url, what)
        location, params = self.submit_consent(browser, page_url, form, "deny", what)
        assert location.startswith(app["redirect_uri"]), (
            f"{what}: redirected to {urllib.parse.urlsplit(location).path!r}, "
            f"not the redirect URI {app['redirect_uri']!r}"
        )
        assert params.get("error") == ["access_denied"], (
            f"{what}: expected error=access_denied, got {params.get('error')!r}"
        )
        assert params.get("state") == [state], f"{what}: the redirect did not carry the state"
        assert "code" not in params, f"{what}: the redirect carries a code"

    # f. and g. revocation and introspection ------------------------------------------------

    def flow_revocation_and_introspection(self):
        app = self.password_app
        _, token, _ = self.password_grant(scope=["write"])
        access, refresh = token["access_token"], token["refresh_token"]

        # g. an active token, introspected by its own client.
        response = self.introspect(app, access)
        assert_status(response, 200, "introspecting an active token")
        body = json_body(response)
        expected = {
            "active": True,
            "client_id": app["client_id"],
            "username": self.username,
            "token_type": "Bearer",
        }
        for key, value in expected.items():
            assert body.get(key) == value, (
                f"introspection: expected {key}={value!r}, got {describe(response)}"
            )
        scope = body.get("scope")
        assert isinstance(scope, str) and "write" in scope.split(), (
            f"introspection: expected a scope with write, got {describe(response)}"
        )
        for key in ("exp", "iat"):
            assert isinstance(body.get(key), int) and not isinstance(body.get(key), bool), (
                f"introspection: expected an integer {key}, got {describe(response)}"
            )
        assert body["exp"] > body["iat"], f"introspection: exp <= iat in {describe(response)}"

        # f. revoking a token of another client, or an unknown one, changes nothing.
        other = self.code_tokens
        assert other is not None, "revocation: the authorization-code flow left no tokens"
        ignored = self.revoke(app, other["refresh_token"])
        assert_status(ignored, 200, "revoking another client's token")
        self.assert_me_works(other["access_token"], "a token another client tried to revoke")
        unknown = self.revoke(app, secrets.token_urlsafe(32))
        assert_status(unknown, 200, "revoking an unknown token")

        # f. revoking the refresh token ends the pair.
        revoked = self.revoke(app, refresh)
        assert_status(revoked, 200, "POST /api/o/revoke_token/")
        assert revoked.content == b"", f"revocation: expected an empty body, got {describe(revoked)}"
        again = self.refresh_request(app, refresh)
        assert_oauth_error(again, 400, "invalid_grant", "refreshing with a revoked refresh token")
        gone = self.me(access)
        assert_status(gone, 401, "the access token of a revoked refresh token")

        # g. a revoked token is inactive, and nothing more is said about it.
        response = self.introspect(app, access)
        assert_status(response, 200, "introspecting a revoked token")
        body = json_body(response)
        assert body == {"active": False}, (
            f"introspecting a revoked token: expected exactly {{'active': false}}, "
            f"got {describe(response)}"
        )

    def run(self):
        for flow in (
            self.flow_password_grant_and_refresh,
            self.flow_client_credentials_in_body,
            self.flow_authorization_code,
            self.flow_authorization_code_pkce,
            self.flow_denial,
            self.flow_revocation_and_introspection,
        ):
            flow()
            self.done.append(flow.__name__.removeprefix("flow_"))
        return self.done


class ConsentForm(html.parser.HTMLParser):
    """The `<form method="post" action="/api/o/authorize/">` of a consent page: its hidden
    inputs and its named submit buttons (attribute values come back unescaped)."""

    ACTION = "/api/o/authorize/"

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.forms = 0
        self.inside = False
        self.action = None
        self.hidden = {}
        self.buttons = {}

    @classmethod
    def parse(cls, text, what):
        form = cls()
        form.feed(text)
        form.close()
        assert form.forms == 1, (
            f"{what}: expected one <form method=post action={cls.ACTION}> on the consent page, "
            f"found {form.forms}"
        )
        return form

    def handle_starttag(self, tag, attrs):
        attributes = {name: (value if value is not None else "") for name, value in attrs}
        if tag == "form":
            method = attributes.get("method", "get").lower()
            self.inside = method == "post" and attributes.get("action") == self.ACTION
            if self.inside:
                self.forms += 1
                self.action = attributes["action"]
            return
        if not self.inside or "name" not in attributes:
            return
        kind = attributes.get("type", "").lower()
        if tag == "input" and kind == "hidden":
            self.hidden[attributes["name"]] = attributes.get("value", "")
        elif (tag == "button" and kind in ("", "submit")) or (tag == "input" and kind == "submit"):
            self.buttons[attributes["name"]] = attributes.get("value", "")

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag):
        if tag == "form":
            self.inside = False


def main():
    config = json.load(sys.stdin)
    flows = Flows(config).run()
    print(json.dumps({"ok": True, "flows": flows}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
