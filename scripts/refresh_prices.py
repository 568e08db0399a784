#!/usr/bin/env python3
"""Writes assets/prices.toml from LiteLLM's price list, the maintained public
list ccusage prices sessions with.

The list ships inside the `litellm` package on PyPI
(`litellm/model_prices_and_context_window_backup.json`); this script downloads
the pinned wheel (no other network), keeps the chat models of Anthropic,
OpenAI and Google, and writes their prices in US dollars per million tokens,
with the context window LiteLLM lists (`max_input_tokens`).

    scripts/refresh_prices.py                 # the pinned version
    scripts/refresh_prices.py --version 1.2.3 # others, oldest first (then pin them here)

A test (`store::ops::pricing`) checks that the table parses and prices the
models agents record today.
"""
import argparse
import datetime
import json
import pathlib
import subprocess
import sys
import tempfile
import zipfile

# The current list, and an older one for the models it no longer lists
# (sessions of 2025 still name claude-sonnet-4-20250514): the newer wins.
PINNED = ["1.80.0", "1.110.2"]
LIST = "litellm/model_prices_and_context_window_backup.json"
# LiteLLM's providers whose names are the ones the agents record.
PROVIDERS = {"anthropic", "openai", "gemini", "vertex_ai-language-models"}
MODES = {"chat", "responses"}
# LiteLLM field -> ours; per token there, per million here.
FIELDS = [
    ("input_cost_per_token", "input"),
    ("output_cost_per_token", "output"),
    ("cache_read_input_token_cost", "cache_read"),
    ("cache_creation_input_token_cost", "cache_write"),
    ("input_cost_per_token_above_200k_tokens", "input_above_200k"),
    ("output_cost_per_token_above_200k_tokens", "output_above_200k"),
    ("cache_read_input_token_cost_above_200k_tokens", "cache_read_above_200k"),
    ("cache_creation_input_token_cost_above_200k_tokens", "cache_write_above_200k"),
]


def fetch(version: str, into: pathlib.Path) -> dict:
    subprocess.run(
        [sys.executable, "-m", "pip", "download", f"litellm=={version}", "--no-deps",
         "--only-binary", ":all:", "-d", str(into), "-q"],
        check=True,
    )
    wheel = next(into.glob("litellm-*.whl"))
    with zipfile.ZipFile(wheel) as z:
        return json.loads(z.read(LIST))


def wanted(name: str, entry: dict) -> bool:
    return (
        isinstance(entry, dict)
        and entry.get("litellm_provider") in PROVIDERS
        and entry.get("mode") in MODES
        and entry.get("input_cost_per_token") is not None
        and entry.get("output_cost_per_token") is not None
    )


def per_million(x: float) -> float:
    return round(x * 1_000_000, 6)


def table(listed: dict) -> dict:
    out = {}
    for key, entry in sorted(listed.items()):
        if not wanted(key, entry):
            continue
        # Google AI Studio's names carry a `gemini/` prefix the agents omit.
        name = key.split("/", 1)[1] if key.startswith("gemini/") else key
        if "/" in name or name in out:
            continue
        prices = {ours: per_million(entry[theirs]) for theirs, ours in FIELDS
                  if isinstance(entry.get(theirs), (int, float))}
        window = entry.get("max_input_tokens")
        if isinstance(window, int) and window > 0:
            prices["window"] = window
        out[name.lower()] = prices
    return out


def toml(versions: list, models: dict) -> str:
    lines = [
        "# What each model costs, in US dollars per million tokens, and the context",
        "# window it takes (tokens), from LiteLLM's price list (the list ccusage uses),",
        f"# litellm {' and '.join(versions)} on PyPI. Written by scripts/refresh_prices.py: run it",
        "# again to refresh,",
        "# do not edit by hand. A model is found by its exact name, or by",
        "# its name without a date suffix (claude-sonnet-4-5-20250929 is",
        "# claude-sonnet-4-5); never by another model's prefix, so a model not listed",
        "# is unpriced, not priced as another generation. cache_write is a 5-minute",
        "# prompt-cache write (a one-hour one costs twice the input price, Anthropic's",
        "# rule); *_above_200k apply to the tokens of a request past its first 200k of",
        "# each kind. Override or add a model in the config file:",
        "#",
        '#   [prices."claude-sonnet-4-5"]',
        "#   input = 3.0",
        "#   output = 15.0",
        "#   cache_read = 0.3",
        "#   cache_write = 3.75",
        "",
        f'date = "{datetime.date.today().isoformat()}"',
        f'source = "litellm {" + ".join(versions)}"',
        "",
    ]
    for name, prices in models.items():
        lines.append(f'[models."{name}"]')
        for field, value in prices.items():
            lines.append(f"{field} = {value!r}")
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="append", help="litellm versions, oldest first")
    args = parser.parse_args()
    versions = args.version or PINNED
    models = {}
    for version in versions:
        with tempfile.TemporaryDirectory() as tmp:
            models.update(table(fetch(version, pathlib.Path(tmp))))
    models = dict(sorted(models.items()))
    out = pathlib.Path(__file__).resolve().parent.parent / "assets" / "prices.toml"
    out.write_text(toml(versions, models))
    print(f"{out}: {len(models)} models from litellm {', '.join(versions)}")


if __name__ == "__main__":
    main()
