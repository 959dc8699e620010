"""Checks AWS SigV4 signatures with botocore's own signer, for rest_server.py's `--sigv4`.

Runs in the venv that has botocore (moto's, tests/interop/moto-requirements.txt), apart from the
catalog server's pyiceberg venv. It reads one JSON request a line on standard input
(`{"method", "path", "headers": [[name, value], ...], "body": base64}`) and answers one JSON line
`{"ok": true}` or `{"ok": false, "why": ...}`. The canonical request, the string to sign and the
signature are botocore's `SigV4Auth`, computed for the headers the request says it signed at the
time it says it was signed; this file only checks that the request signs what it must (host, the
date, the body's SHA-256, the session token) for the credentials, region and service it was
started with, and that its time is within AWS's 15 minutes.
"""

import argparse
import base64
import datetime
import hashlib
import hmac
import json
import sys
import urllib.parse

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

PREFIX = "AWS4-HMAC-SHA256 "


def verify(request, args):
    headers = {}
    for name, value in request["headers"]:
        headers.setdefault(name.lower(), []).append(value)
    if any(len(values) > 1 for values in headers.values()):
        return "a header is sent twice"
    headers = {name: values[0] for name, values in headers.items()}
    authorization = headers.get("authorization", "")
    if not authorization.startswith(PREFIX):
        return "no AWS4-HMAC-SHA256 Authorization header"
    try:
        fields = dict(part.strip().split("=", 1) for part in authorization[len(PREFIX) :].split(","))
        credential, signed, signature = fields["Credential"], fields["SignedHeaders"], fields["Signature"]
        stamp = headers["x-amz-date"]
        when = datetime.datetime.strptime(stamp, "%Y%m%dT%H%M%SZ").replace(tzinfo=datetime.timezone.utc)
    except (KeyError, ValueError):
        return "the Authorization header or x-amz-date is malformed"
    scope = f"{args.access_key}/{stamp[:8]}/{args.region}/{args.service}/aws4_request"
    if credential != scope:
        return f"the credential scope is {credential}, expected {scope}"
    now = datetime.datetime.now(datetime.timezone.utc)
    if abs((now - when).total_seconds()) > 15 * 60:
        return "the request time is more than 15 minutes away"
    names = signed.split(";")
    required = ["host", "x-amz-date", "x-amz-content-sha256"]
    if args.session_token is not None:
        required.append("x-amz-security-token")
        if headers.get("x-amz-security-token") != args.session_token:
            return "the session token is missing or wrong"
    missing = [name for name in required if name not in names]
    if missing:
        return f"not signed: {', '.join(missing)}"
    if any(name not in headers for name in names):
        return "a signed header is not in the request"
    body = base64.b64decode(request["body"])
    if headers["x-amz-content-sha256"] != hashlib.sha256(body).hexdigest():
        return "x-amz-content-sha256 is not the body's SHA-256"

    split = urllib.parse.urlsplit("http://" + headers["host"] + request["path"])
    params = urllib.parse.parse_qsl(split.query, keep_blank_values=True)
    aws = AWSRequest(
        method=request["method"],
        url=urllib.parse.urlunsplit(split._replace(query="")),
        params=params,
        data=body,
        headers={name: headers[name] for name in names},
    )
    aws.context["timestamp"] = stamp
    credentials = Credentials(args.access_key, args.secret_key, args.session_token)
    signer = SigV4Auth(credentials, args.service, args.region)
    if signer.signed_headers(signer.headers_to_sign(aws)) != signed:
        return "SignedHeaders is not the sorted list of the headers signed"
    canonical = signer.canonical_request(aws)
    expected = signer.signature(signer.string_to_sign(aws, canonical), aws)
    if not hmac.compare_digest(expected, signature):
        return "the signature does not match"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--access-key", required=True)
    parser.add_argument("--secret-key", required=True)
    parser.add_argument("--session-token")
    parser.add_argument("--region", required=True)
    parser.add_argument("--service", required=True)
    args = parser.parse_args()
    for line in sys.stdin:
        why = verify(json.loads(line), args)
        print(json.dumps({"ok": why is None, "why": why}), flush=True)


if __name__ == "__main__":
    sys.exit(main())
