"""A driver for hvac (the secrets service's Python client, as Debian ships it: python3-hvac 0.11.2), used
unchanged: one call a line on stdin as JSON ({"call": "secrets.aws.configure_lease", "kwargs": {...}}),
made through hvac's public API on a client built with the address and token given in the environment
(HVAC_URL, HVAC_TOKEN); one line of JSON out: {"result": ...} with what hvac returned (a dict, or the
status of a requests.Response), or {"error": {"type": <hvac exception class>, "errors": [...], "text": ...}}.
test/secrets/hvac.client.test.ts drives it, through a proxy that renames the token header.
"""
import json
import os
import sys

import hvac
import hvac.exceptions


def main():
    client = hvac.Client(url=os.environ["HVAC_URL"], token=os.environ.get("HVAC_TOKEN") or None)
    for line in sys.stdin:
        request = json.loads(line)
        target = client
        try:
            for part in request["call"].split("."):
                target = getattr(target, part)
            value = target(*request.get("args", []), **request.get("kwargs", {}))
            if hasattr(value, "status_code"):
                body = value.text
                value = {"status": value.status_code, "body": json.loads(body) if body else None}
            reply = {"result": value}
        except hvac.exceptions.VaultError as error:
            reply = {"error": {"type": type(error).__name__, "errors": error.errors, "text": str(error)}}
        except Exception as error:  # a client-side refusal (a ParamValidationError, a TypeError...)
            reply = {"error": {"type": type(error).__name__, "errors": None, "text": str(error)}}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


main()
