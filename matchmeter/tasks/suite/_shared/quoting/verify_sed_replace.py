"""sed-replace verifier: {{FOOTER}} in templates/page.html replaced by the payload, byte for byte, nothing else changed."""

from quoting import payload as seeded_payload
from verifylib import HERE, grade, pristine, read, seed

payload = seeded_payload(HERE / "payload.txt", seed()).decode()
original = (pristine() / "templates" / "page.html").read_text()
before, after = original.split("{{FOOTER}}")


def page():
    return read("templates/page.html")


def exact():
    return page() == before + payload + after


def surroundings():
    text = page()
    return text != original and text.startswith(before) and text.endswith(after)


def placeholder_gone():
    return surroundings() and "{{FOOTER}}" not in page()


def rest_unchanged():  # counted only once the footer is right: an untouched page keeps everything
    return exact() and surroundings()


grade({"footer_exact": 0.6, "rest_unchanged": 0.3, "placeholder_gone": 0.1},
      {"footer_exact": exact, "rest_unchanged": rest_unchanged, "placeholder_gone": placeholder_gone})
