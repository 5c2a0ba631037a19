#!/usr/bin/env bash
# Builds repo calc/ (pricing.py, test_pricing.py, check.sh) with 25-40 commits. One commit at a seeded
# position, with an innocent message, breaks one pricing function so check.sh fails from then on;
# earlier, a stretch of commits around the middle of the history has a syntax error in pricing.py,
# fixed a few commits later (they fail check.sh for an unrelated reason). Later commits add functions
# and tests and never touch the broken function, so the bad commit reverts cleanly; the commit right
# after the bad one always adds a function. Identity and
# dates are fixed.
set -euo pipefail
PYTHONPATH="$(dirname "$0")" python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
from seedgit import start

rng, repo = start("calc", month="2024-02", per_day=8, first_hour=8)
git = repo.git


funcs = {
    "subtotal": ("def subtotal(items):\n    return sum(qty * price for qty, price in items)\n",
                 "self.assertAlmostEqual(subtotal([(2, 1.5), (1, 4.25)]), 7.25)"),
    "discount": ("def discount(total, percent):\n    return total * (100 - percent) / 100\n",
                 "self.assertAlmostEqual(discount(99.99, 10), 89.991)"),
    "tax": ("def tax(amount, rate):\n    return amount * rate\n",
            "self.assertAlmostEqual(tax(80, 0.2), 16.0)"),
    "round_money": ("def round_money(value):\n    return round(value + 1e-9, 2)\n",
                    "self.assertEqual(round_money(2.675), 2.68)"),
}
bad_versions = {
    "subtotal": "def subtotal(items):\n    return sum(qty * price for qty, price in items[1:])\n",
    "discount": "def discount(total, percent):\n    return total * (100 - percent) // 100\n",
    "tax": "def tax(amount, rate):\n    return amount * (1 + rate)\n",
    "round_money": "def round_money(value):\n    return round(value, 1)\n",
}
extras = [
    ("bulk_price", "def bulk_price(unit, qty):\n    return unit * qty * (0.9 if qty >= 10 else 1)\n",
     "self.assertAlmostEqual(bulk_price(2.0, 10), 18.0)"),
    ("shipping", "def shipping(weight_kg):\n    return 4.99 if weight_kg <= 2 else 4.99 + (weight_kg - 2) * 1.5\n",
     "self.assertAlmostEqual(shipping(4), 7.99)"),
    ("loyalty_points", "def loyalty_points(total):\n    return int(total // 10)\n",
     "self.assertEqual(loyalty_points(57.5), 5)"),
    ("convert", "def convert(amount, rate):\n    return amount * rate\n",
     "self.assertAlmostEqual(convert(10, 1.1), 11.0)"),
    ("installments", "def installments(total, n):\n    return [total / n] * n\n",
     "self.assertEqual(len(installments(90, 3)), 3)"),
    ("margin", "def margin(price, cost):\n    return (price - cost) / price\n",
     "self.assertAlmostEqual(margin(50, 40), 0.2)"),
    ("gift_wrap", "def gift_wrap(items):\n    return 2.5 * len(items)\n",
     "self.assertEqual(gift_wrap([1, 2]), 5.0)"),
    ("clamp_price", "def clamp_price(value, low, high):\n    return max(low, min(high, value))\n",
     "self.assertEqual(clamp_price(5, 1, 3), 3)"),
]
rng.shuffle(extras)
late = extras.pop()  # added right after the bad commit on every seed: "keep every other change" always matters
order = list(funcs)
state = {name: src for name, (src, _) in funcs.items()}
tests = {name: t for name, (_, t) in funcs.items()}
victim = rng.choice(order[:3])  # never the last base function: appends after it would touch its lines


def write_all(broken_syntax=None):
    body = '"""Pricing helpers used by the shop backend."""\n'
    for name in order:
        src = state[name]
        if name == broken_syntax:
            src = src.replace("):\n", ")\n", 1)
        body += "\n\n" + src
    (repo / "pricing.py").write_text(body)
    tbody = "import unittest\n\nfrom pricing import *  # noqa: F403\n\n\nclass PricingTest(unittest.TestCase):\n"
    for name in order:
        tbody += f"    def test_{name}(self):\n        {tests[name]}\n\n"
    tbody += "\nif __name__ == \"__main__\":\n    unittest.main()\n"
    (repo / "test_pricing.py").write_text(tbody)
    git("add", "-A")


repo.init("Pat Pricing", "pat@example.com")
(repo / "check.sh").write_text("#!/bin/sh\n# Runs the pricing test suite; exit status 0 means the build is good.\n"
                               "cd \"$(dirname \"$0\")\" && exec python3 -m unittest -q test_pricing\n")
(repo / "check.sh").chmod(0o755)
(repo / ".gitignore").write_text("__pycache__/\n*.pyc\n")
(repo / "README.md").write_text("# pricing\n\nRun `./check.sh` before pushing.\n")
write_all()
git("commit", "-q", "-m", "Initial pricing module")
total = rng.randint(25, 40)
# The syntax-error stretch covers the middle of the history, where a bisection starts probing.
bad_at = rng.randint(int(total * 0.7), int(total * 0.85))
broken_at = rng.randint(int(total * 0.3), int(total * 0.42))
fixed_at = rng.randint(int(total * 0.55), int(total * 0.62))
broken = None
notes = ["Tidy README", "Document rounding rules", "Explain tax rates", "Add usage example", "Note on currencies"]
readme_messages = iter(rng.sample(notes * 8, 40))
for i in range(1, total):
    if i == bad_at:
        state[victim] = bad_versions[victim]
        write_all()
        git("commit", "-q", "-m", rng.choice(["Simplify arithmetic", "Minor cleanup", "Refactor pricing helpers"]))
    elif i == bad_at + 1:
        name, src, test = late
        order.append(name)
        state[name], tests[name] = src, test
        write_all(broken_syntax=broken)
        git("commit", "-q", "-m", f"Add {name}")
    elif i == broken_at:
        name, src, test = extras.pop()
        order.append(name)
        state[name], tests[name] = src, test
        broken = name
        write_all(broken_syntax=broken)
        git("commit", "-q", "-m", f"Add {name}")
    elif i == fixed_at:
        broken = None
        write_all()
        git("commit", "-q", "-m", "Fix typo")
    elif len(extras) > (i < broken_at) and rng.random() < 0.4:  # one kept for the syntax-error commit
        name, src, test = extras.pop()
        order.append(name)
        state[name], tests[name] = src, test
        write_all(broken_syntax=broken)
        git("commit", "-q", "-m", f"Add {name}")
    else:
        with open(repo / "README.md", "a") as fh:
            fh.write(f"\n- note {i}: {rng.choice(['prices are in EUR', 'round at the end', 'taxes are rates, not percents', 'see CHANGELOG'])}\n")
        git("add", "README.md")
        git("commit", "-q", "-m", next(readme_messages))
PY
