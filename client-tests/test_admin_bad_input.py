"""Admin account endpoints against limits and hostile input: the contract's 4xx envelope, never a 5xx."""

import pytest
import requests

from mfa_helpers import ADMIN, error

ADMIN_BASE = "/identitytoolkit.googleapis.com/v1/projects/demo-project/accounts"


@pytest.mark.parametrize("force", [True, False])
def test_too_many_ids_in_a_batch_delete_is_a_clear_error(stack, force):
    answer = requests.post(stack.gateway + ADMIN_BASE + ":batchDelete",
                           json={"localIds": [f"id-{n}" for n in range(1001)], "force": force}, headers=ADMIN, timeout=30)
    assert answer.status_code == 400, answer.text
    assert error(answer) == "LOCAL_ID_LIST_EXCEEDS_LIMIT"


def test_hostile_ids_are_deleted_as_unknown_ids(stack):
    for uid in ["x" * 5000, "'; DROP TABLE accounts; --", "😀"]:
        answer = requests.post(stack.gateway + ADMIN_BASE + ":delete", json={"localId": uid}, headers=ADMIN, timeout=30)
        assert answer.status_code == 400 and error(answer) == "USER_NOT_FOUND", answer.text
    # No stored value can hold U+0000 (PostgreSQL's text cannot): refused as a payload error.
    for body in [{"localId": "\u0000nul"}, {"localIds": ["ok", "a\u0000"], "force": True}]:
        operation = ":delete" if "localId" in body else ":batchDelete"
        answer = requests.post(stack.gateway + ADMIN_BASE + operation, json=body, headers=ADMIN, timeout=30)
        assert answer.status_code == 400 and answer.json()["error"]["status"] == "INVALID_ARGUMENT", answer.text
        assert "U+0000" in error(answer)
    batch = requests.post(stack.gateway + ADMIN_BASE + ":batchDelete",
                          json={"localIds": ["x" * 5000, "'--", "😀"], "force": True}, headers=ADMIN, timeout=30)
    assert batch.status_code == 200 and batch.json() == {}, batch.text


def test_a_page_token_with_a_nul_character_is_a_payload_error(stack):
    answer = requests.get(stack.gateway + ADMIN_BASE + ":batchGet?nextPageToken=a%00b&maxResults=2", headers=ADMIN, timeout=30)
    assert answer.status_code == 400 and answer.json()["error"]["status"] == "INVALID_ARGUMENT", answer.text
    assert "nextPageToken" in error(answer)
