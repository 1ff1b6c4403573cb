"""Blocking functions as a Firebase developer writes them, served by functions-framework
(functions_server.py). `before_created` and `before_signed_in` use the Python Firebase Functions SDK
(`identity_fn`), unchanged from what a team deploys to Identity Platform. The SDK (0.6.0) has no
decorators for the send events (the Node SDK's `beforeEmailSent` / `beforeSmsSent`), so
`before_sms` and `before_email` read the event token as the Node SDK does: the JWT's claims, then an
answer of `{}`, `{"recaptchaActionOverride": "BLOCK"}` or an HTTP error. Every event is appended to
`BLOCKING_EVENTS_FILE` (one JSON object a line) for the tests to read."""

import json
import os
import time

import functions_framework
import jwt
from firebase_functions import https_fn, identity_fn


def remember(event_type: str, details: dict) -> None:
    with open(os.environ["BLOCKING_EVENTS_FILE"], "a", encoding="utf-8") as events:
        events.write(json.dumps({"event": event_type, **details}, default=str) + "\n")


def user_details(event: identity_fn.AuthBlockingEvent) -> dict:
    user = event.data
    factors = user.multi_factor.enrolled_factors if user.multi_factor else []
    return {"uid": user.uid, "email": user.email, "tenant_id": user.tenant_id, "email_verified": user.email_verified,
            "custom_claims": user.custom_claims, "factors": [factor.factor_id for factor in factors],
            "providers": [info.provider_id for info in user.provider_data], "ip_address": event.ip_address,
            "user_agent": event.user_agent, "locale": event.locale, "event_id": event.event_id,
            "is_new_user": event.additional_user_info.is_new_user, "sign_in_method": event.additional_user_info.provider_id}


@identity_fn.before_user_created()
def before_created(event: identity_fn.AuthBlockingEvent) -> identity_fn.BeforeCreateResponse | None:
    remember("beforeCreate", user_details(event))
    email = event.data.email or ""
    if email.endswith("@blocked.example"):
        raise https_fn.HttpsError(code=https_fn.FunctionsErrorCode.PERMISSION_DENIED,
                                  message="Sign-ups from blocked.example are closed")
    if email.startswith("staff-"):
        return identity_fn.BeforeCreateResponse(display_name="Staff member", custom_claims={"role": "staff"})
    if email.startswith("hang-"):
        time.sleep(6)
    return None


@identity_fn.before_user_signed_in()
def before_signed_in(event: identity_fn.AuthBlockingEvent) -> identity_fn.BeforeSignInResponse | None:
    remember("beforeSignIn", user_details(event))
    email = event.data.email or ""
    if email.startswith("slow-"):
        time.sleep(9)
    if email.startswith("crash-"):
        raise RuntimeError("a bug in the function")
    if email.startswith("off-"):
        return identity_fn.BeforeSignInResponse(disabled=True)
    factors = event.data.multi_factor.enrolled_factors if event.data.multi_factor else []
    return identity_fn.BeforeSignInResponse(
        session_claims={"second_factors": [factor.factor_id for factor in factors], "signed_in_from": event.ip_address})


@identity_fn.before_user_created()
def refuse_every_sign_up(event: identity_fn.AuthBlockingEvent) -> identity_fn.BeforeCreateResponse | None:
    """A tenant's own function: this tenant takes no new users."""
    remember("beforeCreate:tenant", user_details(event))
    raise https_fn.HttpsError(code=https_fn.FunctionsErrorCode.FAILED_PRECONDITION, message="This tenant is invite-only")


def send_event(request) -> dict:
    return jwt.decode(request.get_json()["data"]["jwt"], options={"verify_signature": False})


@functions_framework.http
def before_sms(request):
    event = send_event(request)
    remember("beforeSendSms", {key: event.get(key) for key in ("phone_number", "sms_type", "sub", "tenant_id", "event_type")})
    if event["phone_number"].startswith("+1555"):
        return {"error": {"status": "PERMISSION_DENIED", "message": "No SMS to +1555 numbers"}}, 403
    # The operator's own routing (this server's extension): UK numbers go by the `eu` provider.
    if event["phone_number"].startswith("+44"):
        return {"smsRoute": "eu"}
    if event["phone_number"].startswith("+33"):
        return {"smsRoute": "mars"}
    return {}


@functions_framework.http
def before_email(request):
    event = send_event(request)
    remember("beforeSendEmail", {key: event.get(key) for key in ("email", "email_type", "event_type")})
    if event["email"].endswith("@quiet.example"):
        return {"recaptchaActionOverride": "BLOCK"}
    return {}
