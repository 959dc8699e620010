"""An Iceberg REST catalog whose every operation is pyiceberg's SqlCatalog (sqlite).

Tests start it on 127.0.0.1 with port 0 and read the chosen port from its first line of output
(`listening on http://127.0.0.1:PORT`). Nothing here implements Iceberg: requests are parsed by
pyiceberg's own request models, tables are loaded and committed by `SqlCatalog` (requirement
validation, metadata updates and the optimistic swap of the metadata pointer are pyiceberg's), and
responses are pyiceberg's response models serialised as pyiceberg serialises them.

Auth: a static bearer token (`--token`), and OAuth2 client credentials at `POST /v1/oauth/tokens`
(`--client-id`/`--client-secret`), issuing tokens that expire after `--token-ttl` seconds. Any
other request without a valid token gets 401 in the REST error model. With `--sigv4 ACCESS_KEY
SECRET_KEY REGION SERVICE` (and `--sigv4-session-token`), every request must instead be signed
with AWS SigV4 for those credentials: each is checked by `sigv4_verifier.py` running on botocore
in the Python `--sigv4-python` names, and one that fails gets 403 in the REST error model.

Faults for tests, armed with `POST /test/faults` and a JSON body `{"operation": [fault, ...]}`,
each fault used once, in order: `"load"` or `"commit"` or `"config"` with `"503"`, `"429"`,
`"500"`, `"malformed"`, `"hang"`, or, for commits only, `"500-after-commit"` (commits, then says
500), `"drop-after-commit"` (commits, then closes the connection without answering) and
`"concurrent"` (another writer adds a column through pyiceberg just before the commit).
`GET /test/requests` lists the requests seen (method, path, whether it carried a token).

ListNamespaces (by `parent`) and ListTables answer with SqlCatalog's own listing; with
`--page-size N` a client that sends `pageToken` gets pages of N and a `next-page-token`, as the
spec's pagination runs.
"""

import argparse
import base64
import json
import subprocess
import sys
import threading
import time
import urllib.parse
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from pyiceberg.catalog.rest import TableResponse
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.exceptions import (
    CommitFailedException,
    NoSuchNamespaceError,
    NoSuchTableError,
)
from pyiceberg.table import CommitTableRequest, CommitTableResponse
from pyiceberg.types import StringType

SEPARATOR = "\x1f"


class State:
    def __init__(self, args):
        self.catalog = SqlCatalog(
            args.name, uri=f"sqlite:///{args.db}", warehouse=args.warehouse_uri, **dict(args.prop)
        )
        self.prefix = args.prefix
        self.static_token = args.token
        self.client = (args.client_id, args.client_secret)
        self.token_ttl = args.token_ttl
        self.issued = {}
        self.vended = dict(args.vend)
        self.page_size = args.page_size
        self.faults = {}
        self.requests = []
        self.lock = threading.Lock()
        self.verifier = None
        if args.sigv4:
            key, secret, region, service = args.sigv4
            command = [args.sigv4_python, __file__.replace("rest_server.py", "sigv4_verifier.py")]
            command += ["--access-key", key, "--secret-key", secret, "--region", region, "--service", service]
            if args.sigv4_session_token:
                command += ["--session-token", args.sigv4_session_token]
            self.verifier = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def signature_problem(self, handler, body):
        """Why the request's SigV4 signature fails botocore's check, or None when it passes."""
        request = {
            "method": handler.command,
            "path": handler.path,
            "headers": [[name, value] for name, value in handler.headers.items()],
            "body": base64.b64encode(body).decode(),
        }
        with self.lock:
            self.verifier.stdin.write(json.dumps(request) + "\n")
            self.verifier.stdin.flush()
            answer = json.loads(self.verifier.stdout.readline())
        return answer["why"]

    def next_fault(self, operation):
        with self.lock:
            queue = self.faults.get(operation) or []
            return queue.pop(0) if queue else None

    def token_valid(self, token):
        if token is None:
            return False
        if self.static_token is not None and token == self.static_token:
            return True
        expiry = self.issued.get(token)
        return expiry is not None and time.time() < expiry


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    state: State

    def log_message(self, format, *args):
        pass

    # -- plumbing

    def send_json(self, status, body):
        data = body if isinstance(body, (bytes, str)) else json.dumps(body)
        data = data.encode() if isinstance(data, str) else data
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def send_error_model(self, status, kind, message):
        self.send_json(status, {"error": {"message": message, "type": kind, "code": status}})

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def bearer(self):
        header = self.headers.get("Authorization") or ""
        return header[len("Bearer ") :] if header.startswith("Bearer ") else None

    def record(self):
        with self.state.lock:
            self.state.requests.append(
                {
                    "method": self.command,
                    "path": self.path,
                    "authorized": self.state.token_valid(self.bearer()),
                    "delegation": self.headers.get("X-Iceberg-Access-Delegation"),
                    "signed": self.headers.get("Authorization", "").startswith("AWS4-HMAC-SHA256 "),
                }
            )

    def refused(self, body):
        """Answers 401 (no valid token) or 403 (a SigV4 signature botocore does not accept) and
        returns True, or returns False for a request that may proceed."""
        if self.state.verifier is not None:
            why = self.state.signature_problem(self, body)
            if why is None:
                return False
            self.send_error_model(403, "ForbiddenException", f"SigV4 check failed: {why}")
            return True
        if self.state.token_valid(self.bearer()):
            return False
        self.send_error_model(401, "NotAuthorizedException", "Not authorized: bad token")
        return True

    def fault(self, operation):
        """Applies an armed fault that fails before the operation; returns whether it answered."""
        fault = self.state.next_fault(operation)
        if fault in ("503", "429", "500"):
            self.send_error_model(int(fault), "ServiceUnavailableException", f"injected {fault}")
            return None, True
        if fault == "hang":
            time.sleep(30)
            return None, True
        return fault, False

    # -- routes

    def do_GET(self):
        self.record()
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/test/requests":
            return self.send_json(200, self.state.requests)
        if self.refused(b""):
            return
        if url.path == "/v1/config":
            fault, answered = self.fault("config")
            if answered:
                return
            if fault == "malformed":
                return self.send_json(200, b"{\"defaults\": ")
            return self.send_json(
                200, {"defaults": {}, "overrides": {"prefix": self.state.prefix}, "endpoints": None}
            )
        parts = self.route(url.path)
        if parts is None:
            return self.send_error_model(404, "NoSuchResourceException", f"no route {url.path}")
        query = dict(urllib.parse.parse_qsl(url.query, keep_blank_values=True))
        if parts[0] == "namespaces" and len(parts) == 1:
            return self.list_namespaces(query)
        if len(parts) == 3 and parts[2] == "tables":
            return self.list_tables(parts[1], query)
        if len(parts) == 4 and parts[2] == "tables":
            return self.load_table(parts[1], parts[3])
        return self.send_error_model(404, "NoSuchResourceException", f"no route {url.path}")

    def do_POST(self):
        self.record()
        url = urllib.parse.urlsplit(self.path)
        body = self.body()
        if url.path == "/test/faults":
            with self.state.lock:
                for operation, faults in json.loads(body).items():
                    self.state.faults.setdefault(operation, []).extend(faults)
            return self.send_json(200, {})
        if url.path == "/v1/oauth/tokens":
            return self.issue_token(body)
        if self.refused(body):
            return
        parts = self.route(url.path)
        if parts is not None and len(parts) == 4 and parts[2] == "tables":
            return self.commit(parts[1], parts[3], body)
        return self.send_error_model(404, "NoSuchResourceException", f"no route {url.path}")

    def route(self, path):
        """The path's segments after `/v1/{prefix}/`, decoded, or None."""
        start = f"/v1/{self.state.prefix}/"
        if not path.startswith(start):
            return None
        return [urllib.parse.unquote(p) for p in path[len(start) :].split("/")]

    def issue_token(self, body):
        form = dict(urllib.parse.parse_qsl(body.decode()))
        if form.get("grant_type") != "client_credentials":
            return self.send_json(400, {"error": "unsupported_grant_type"})
        if (form.get("client_id"), form.get("client_secret")) != self.state.client:
            # The OAuth2 error form, echoing what was sent, as some servers do: the client must
            # not print it back unredacted.
            return self.send_json(
                401,
                {
                    "error": "invalid_client",
                    "error_description": f"unknown client {form.get('client_id')}:{form.get('client_secret')}",
                },
            )
        token = uuid.uuid4().hex
        self.state.issued[token] = time.time() + self.state.token_ttl
        return self.send_json(
            200,
            {
                "access_token": token,
                "token_type": "bearer",
                "expires_in": self.state.token_ttl,
                "issued_token_type": "urn:ietf:params:oauth:token-type:access_token",
            },
        )

    def identifier(self, namespace, name):
        return tuple(namespace.split(SEPARATOR)) + (name,)

    def page(self, key, items, query):
        """`items` under `key`, a page of them when the client sent `pageToken` and the server
        was started with `--page-size`, as the spec's pagination runs (the token is an offset)."""
        items = sorted(items, key=json.dumps)
        size = self.state.page_size
        if "pageToken" not in query or not size:
            return self.send_json(200, {key: items})
        start = int(query["pageToken"] or 0)
        end = start + size
        following = str(end) if end < len(items) else None
        return self.send_json(200, {key: items[start:end], "next-page-token": following})

    def list_namespaces(self, query):
        parent = query.get("parent")
        try:
            found = self.state.catalog.list_namespaces(tuple(parent.split(SEPARATOR)) if parent else ())
        except NoSuchNamespaceError as e:
            return self.send_error_model(404, "NoSuchNamespaceException", str(e))
        return self.page("namespaces", [list(ns) for ns in found], query)

    def list_tables(self, namespace, query):
        try:
            tables = self.state.catalog.list_tables(tuple(namespace.split(SEPARATOR)))
        except NoSuchNamespaceError as e:
            return self.send_error_model(404, "NoSuchNamespaceException", str(e))
        identifiers = [{"namespace": list(t[:-1]), "name": t[-1]} for t in tables]
        return self.page("identifiers", identifiers, query)

    def table_config(self):
        if self.headers.get("X-Iceberg-Access-Delegation") and self.state.vended:
            return dict(self.state.vended)
        return {}

    def load_table(self, namespace, name):
        fault, answered = self.fault("load")
        if answered:
            return
        if fault == "malformed":
            return self.send_json(200, {"metadata-location": "s3://x", "metadata": {"format-version": 2}})
        try:
            table = self.state.catalog.load_table(self.identifier(namespace, name))
        except NoSuchTableError as e:
            return self.send_error_model(404, "NoSuchTableException", str(e))
        response = TableResponse(
            **{"metadata-location": table.metadata_location},
            metadata=table.metadata,
            config=self.table_config(),
        )
        return self.send_json(200, response.model_dump_json(by_alias=True, exclude_none=True))

    def commit(self, namespace, name, body):
        fault, answered = self.fault("commit")
        if answered:
            return
        raw = json.loads(body)
        namespace_parts = namespace.split(SEPARATOR)
        raw.setdefault("identifier", {"namespace": namespace_parts, "name": name})
        try:
            request = CommitTableRequest.model_validate(raw)
        except Exception as e:  # pyiceberg's models refuse what the spec does not allow
            return self.send_error_model(400, "BadRequestException", f"invalid commit: {e}")
        try:
            table = self.state.catalog.load_table(self.identifier(namespace, name))
            if fault == "concurrent":
                # Another writer's schema change lands first, through pyiceberg.
                with table.update_schema() as update:
                    update.add_column("concurrent_change", StringType())
                table = self.state.catalog.load_table(self.identifier(namespace, name))
            response = self.state.catalog.commit_table(table, request.requirements, request.updates)
        except NoSuchTableError as e:
            return self.send_error_model(404, "NoSuchTableException", str(e))
        except CommitFailedException as e:
            return self.send_error_model(409, "CommitFailedException", str(e))
        except Exception as e:
            return self.send_error_model(400, "BadRequestException", f"{type(e).__name__}: {e}")
        if fault == "500-after-commit":
            return self.send_error_model(500, "InternalServerError", "injected 500 after commit")
        if fault == "drop-after-commit":
            self.close_connection = True
            self.connection.shutdown(2)
            return
        reply = CommitTableResponse(
            **{"metadata-location": response.metadata_location}, metadata=response.metadata
        )
        return self.send_json(200, reply.model_dump_json(by_alias=True, exclude_none=True))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True, help="the SqlCatalog's sqlite file")
    parser.add_argument("--warehouse-uri", required=True, help="where new tables' files go")
    parser.add_argument("--name", default="default", help="the SqlCatalog's catalog name")
    parser.add_argument("--prefix", default="main", help="the prefix GET /v1/config hands out")
    parser.add_argument("--token", help="a static bearer token the server accepts")
    parser.add_argument("--client-id", default="fieldgate")
    parser.add_argument("--client-secret", default="s3cr3t-client")
    parser.add_argument("--token-ttl", type=int, default=3600)
    parser.add_argument("--prop", nargs=2, action="append", default=[], help="a SqlCatalog property")
    parser.add_argument("--vend", nargs=2, action="append", default=[], help="a vended table config property")
    parser.add_argument("--page-size", type=int, default=0, help="list in pages this long when the client paginates")
    parser.add_argument("--sigv4", nargs=4, metavar=("ACCESS_KEY", "SECRET_KEY", "REGION", "SERVICE"),
                        help="require AWS SigV4 for these credentials instead of a token")
    parser.add_argument("--sigv4-session-token", help="the session token a SigV4 request must carry")
    parser.add_argument("--sigv4-python", help="a Python with botocore, to run sigv4_verifier.py")
    args = parser.parse_args()
    Handler.state = State(args)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
