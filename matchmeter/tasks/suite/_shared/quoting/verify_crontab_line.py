"""crontab-line verifier: the installed crontab keeps every old line and holds the payload line once, byte-exact."""

from quoting import payload as seeded_payload
from verifylib import HERE, grade, pristine, read, seed

line = seeded_payload(HERE / "payload.txt", seed()).decode()
original = (pristine() / "spool" / "crontab").read_text().splitlines()


def lines():
    return read("spool/crontab").split("\n")


def job_exact():
    return lines().count(line) == 1


def old_kept():  # counted only once the job is right: keeping the table is no work
    got = lines()
    if not job_exact():
        return False
    return got != original + [""] and got[: len(original)] == original


def nothing_else():
    return job_exact() and lines() == original + [line, ""]


grade({"job_exact": 0.6, "old_jobs_kept": 0.3, "nothing_else_added": 0.1},
      {"job_exact": job_exact, "old_jobs_kept": old_kept, "nothing_else_added": nothing_else})
