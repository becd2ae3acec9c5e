"""Which strategy summaries are hidden for holding a web or wallet address (C-10, W-REC-3)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tradeleague.formats.weights import holds_address, summary_shown

HIDDEN = [
    # web addresses: any scheme, www., host.tld with a path, a bare host on a listed TLD
    "Follow signals at evil.ai today.",
    "Join t.me/x for alpha.",
    "Details: bit.ly/x",
    "See www.example.co.uk for more.",
    "Read https://docs.example.museum/guide first.",
    "Read http://198.51.100.7/p first.",
    "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi holds it",
    "ftp://files.example/a.csv",
    "Check example.museum/path for the list.",
    "Whitepaper at docs.example.org.",
    "example.co.uk is the source",
    "Buy on pump.fun/coin now",
    "Tips: discord.gg/abc",
    "mail me at ops@evil.ru",
    "Obfuscated: evil[.]ai",
    "Full width: \uff45\uff56\uff49\uff4c\uff0e\uff41\uff49",  # evil.ai in full-width letters
    "Shouting: VISIT EVIL.AI",
    "Hidden dot: evil\u200b.ai",
    "Node at 203.0.113.9:8545",
    "Site: trade.finance",
    # wallet addresses: EVM, Bitcoin bech32 and base58, Solana, Tron
    "Send to 0x" + "ab" * 20,
    "Tip 0xde0B295669a9FD93d5F28D9Ec85E40f4cb697BAe please",
    "BTC: bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
    "BTC: 1BoatSLRHtKNngkdXEeobR76b53LETtpyT",
    "BTC: 3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy",
    "SOL: 7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV",
    "SOL: So11111111111111111111111111111111111111112",
    "TRX: TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE",
]

SHOWN = [
    "Buys U.S. large caps, e.g. AAPL and MSFT, on 3.5% dips.",
    "Holds cash, i.e. waits, when volatility is high.",
    "Trims any position above 40% to 35%.",
    "Prefers BRK.B-like value names; avoids meme stocks.",
    "Rotates between tech/energy 50/50 each week.",
    "Uses 1.5x the usual weight in SPY vs. QQQ.",
    "Follows the U.K. and U.S./EU rate cycle.",
    "Trades at 3 p.m. only; no trades before 10 a.m.",
    "No.1 rule: never hold more than 20 names.",
    "Keeps SGOV as a cash proxy (approx. 4.5% yield).",
    "Buys the S&P 500 when it is down 2.0% on the day.",
    "Sells Q3 losers, etc., and buys winners.",
    "A Ph.D. style mean-reversion model on 20-day returns.",
    "Equal weight across 10 symbols; rebalances at 0.5% drift.",
    "Shifts to USO when oil rises above $80.00/bbl.",
    "Never risks more than $1.2bn worth of imagination.",
    "Momentum: 1, 5 and 20 day returns, v2.0 of the prompt.",
    "Dr. Smith's rule: sell in May.",
    "Holds QQQ; hedges with SGOV. Simple.",
    "Buys dips...then waits.",
    "Ratio 3:1 stocks to funds, 40,000 iterations of thought.",
    "Mid-cap tech; hold QQQ.",
]


@pytest.mark.parametrize("text", HIDDEN)
def test_addresses_hide_the_summary(text: str) -> None:
    """C-10, W-REC-3: a summary holding a web address (any scheme, www., a host with a path,
    a bare host on a listed TLD, obfuscated dots) or a wallet address (EVM, Bitcoin, Solana,
    Tron) is not shown."""
    assert holds_address(text)
    assert summary_shown(text) is None


@pytest.mark.parametrize("text", SHOWN)
def test_ordinary_sentences_are_shown(text: str) -> None:
    """C-10, W-REC-3: abbreviations, decimals, percentages and tickers are not addresses; the
    summary is shown HTML-escaped."""
    assert not holds_address(text)
    assert summary_shown(text) == text.replace("&", "&amp;").replace("'", "&#x27;")


def test_both_tables_are_large_enough() -> None:
    """C-10: at least 20 cases each way."""
    assert len(HIDDEN) >= 20
    assert len(SHOWN) >= 20


@given(
    st.sampled_from(SHOWN),
    st.sampled_from(HIDDEN),
    st.sampled_from([" ", "\n", " ... ", "; "]),
)
def test_an_address_anywhere_hides_the_summary(shown: str, hidden: str, glue: str) -> None:
    """C-10, W-REC-3: an address hides the summary wherever it stands among ordinary text."""
    assert summary_shown(shown + " " + hidden + glue + shown) is None
    assert summary_shown(shown + glue + " " + shown) is not None
