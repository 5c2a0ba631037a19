"""The dated price table: exact costs, provider prefixes, unknown models, sources on every entry."""

from __future__ import annotations

from matchmeter.llm.pricing import PriceTable
from matchmeter.schema import TokenUsage


def test_cost_is_token_classes_times_prices_exactly():
    table = PriceTable.load()
    tokens = TokenUsage(input=1000, cached_input=200, output=300, reasoning=50)
    # gpt-4o-mini: 0.15 / 0.075 / 0.60 / 0.60 USD per 1M → 150 + 15 + 180 + 30 = 375 µUSD
    assert table.cost("gpt-4o-mini", tokens).usd == 0.000375
    assert table.cost("openai/gpt-4o-mini", tokens).usd == 0.000375
    # sim/*: 1.00 / 0.10 / 4.00 / 4.00 → 1000 + 20 + 1200 + 200 = 2420 µUSD
    assert table.cost("sim/expert", tokens).usd == 0.00242


def test_more_specific_entry_wins_over_a_wider_pattern():
    table = PriceTable.load()
    assert table.lookup("gpt-4o-mini-2024-07-18").input == 0.15
    assert table.lookup("gpt-4o-2024-08-06").input == 2.50


def test_unknown_model_cost_is_null_with_reason_never_zero():
    table = PriceTable.load()
    cost = table.cost("openai/no-such-model", TokenUsage(input=10))
    assert cost.usd is None
    assert cost.null_reason == f"no price for model openai/no-such-model in price table {table.table_id}"


def test_every_entry_is_dated_and_sourced_and_sim_prices_are_marked():
    table = PriceTable.load()
    assert table.table_id == "2026-11-01"
    for entry in table.price:
        assert entry.date
        assert entry.source
        if entry.simulated:
            assert entry.source.startswith("SIMULATED")
        else:
            assert entry.source.startswith(("https://", "litellm "))
    assert table.lookup("sim/sloppy").simulated
    assert sum(not e.simulated for e in table.price) >= 5
