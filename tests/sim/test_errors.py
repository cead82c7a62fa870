"""Errors about a setting (sim.errors): one line naming each setting in its reader's words."""
import pytest

from sim.errors import SettingError, flag_name, python_name, setting


def test_a_setting_is_named_in_each_front_end_s_words():
    e = SettingError("{max_rolls} must be 1..10000; add {force=True} to write over {out}")
    assert isinstance(e, ValueError)
    assert str(e) == "max_rolls must be 1..10000; add force=True to write over out"
    assert e.words(flag_name) == "--max-rolls must be 1..10000; add --force to write over --out"
    assert e.words(python_name) == str(e) and e.text.startswith("{max_rolls}")


def test_only_setting_tokens_are_rendered():
    """Braces that hold no setting's name (a dict, a placeholder with capitals) stay as written."""
    e = SettingError("body {\"game\": ID} and {Seat} and {2}")
    assert e.words(flag_name) == str(e) == "body {\"game\": ID} and {Seat} and {2}"


@pytest.mark.parametrize("name, token", [("max-rolls", "{max_rolls}"), ("max_rolls", "{max_rolls}"),
                                         ("games", "{games}"), ("first game", "first game"), ("Seed", "Seed")])
def test_the_token_of_a_setting(name, token):
    assert setting(name) == token
    if token.startswith("{"):
        assert SettingError(token).words(flag_name) == "--" + name.replace("_", "-")
