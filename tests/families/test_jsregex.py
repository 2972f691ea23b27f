"""search.jsregex: the patterns V8 refuses, in V8's words (Node 20's ``new RegExp(pattern)``, no flags)."""

from __future__ import annotations

import json
import random
import shutil
import subprocess

import pytest

from agenttools.search.jsregex import v8_syntax_error

# Each message below is what Node 20 (V8 11.3) printed for the pattern, after "Invalid regular expression: /p/: ".
PINNED = [
    ("(?i)x", "Invalid group"), ("(?>a)", "Invalid group"), ("(?P<n>a)", "Invalid group"), ("(?#c)", "Invalid group"),
    ("(?i:x)", "Invalid group"), ("a++", "Nothing to repeat"), ("a*+", "Nothing to repeat"),
    ("a**", "Nothing to repeat"), ("^*", "Nothing to repeat"), ("\\b+", "Nothing to repeat"),
    ("a|*", "Nothing to repeat"), ("(*)", "Nothing to repeat"), ("a{1}{2}", "Nothing to repeat"),
    ("{2,1}", "Nothing to repeat"), ("a{2,1}", "numbers out of order in {} quantifier"),
    ("a{3,2}?", "numbers out of order in {} quantifier"), ("(?<=a)*", "Invalid quantifier"),
    ("\\", "\\ at end of pattern"), ("[b-a]", "Range out of order in character class"),
    ("[\\x41-\\x40]", "Range out of order in character class"), ("[b-\\c]", "Range out of order in character class"), ("[\\]", "Unterminated character class"),
    ("[", "Unterminated character class"), ("a)", "Unmatched ')'"), ("((a)", "Unterminated group"),
    ("(?:", "Unterminated group"), ("(?<n", "Invalid capture group name"), ("(?<1a>x)", "Invalid capture group name"),
    ("(?<a-b>x)", "Invalid capture group name"), ("(?<>x)", "Invalid capture group name"),
    ("(?<n>a)(?<n>b)", "Duplicate capture group name"), ("(?<a>x)\\k<b>", "Invalid named capture referenced"),
    ("(?<a>x)\\k", "Invalid named reference"), ("(?<a>x)[\\k]", "Invalid escape"),
    # V8 registers a name when its group closes, and checks references once the whole pattern is read.
    ("(?<m>(?<m>", "Unterminated group"), ("(?<n>a)(?<n>b)a**", "Duplicate capture group name"),
    ("(?<n>(?<n>))a)", "Duplicate capture group name"), ("(?<n>a)\\k<x>a**", "Nothing to repeat"),
]
ACCEPTED = ["(?<=a+)b", "a{,3}", "\\p{L}", "(?=a)*", "a??", "[\\d-a]", "[a-]", "{", "a{", "a{1,", "}", "]",
            "(?<$a>x)", "(?<é>x)", "\\k<a>(?<a>x)", "\\c", "\\x", "\\u{1}", "\\1(a)", "[[:alpha:]]", "\\k",
            "\\(?<m>|\\k", "x{99999999999}", "[\\1-*]", ""]


@pytest.mark.parametrize(("pattern", "message"), PINNED)
def test_v8_refuses_these_in_its_own_words(pattern, message):
    assert v8_syntax_error(pattern) == message


@pytest.mark.parametrize("pattern", ACCEPTED)
def test_v8_compiles_these(pattern):
    assert v8_syntax_error(pattern) is None


_ALPHABET = ["(?!", "{2}", "{3,2}", "{0,}", "\\c", "\\x", "é", "\\k<m>", "[^", "\\-", "\\1", "\\0", "\\n", "(?<1>",
             "(?<n", "{99}", "??", "*?", ")*", "a", "b", "(", ")", "(?:", "(?=", "(?<=", "(?<n>", "(?<m>", "\\k<n>",
             "\\k", "[", "]", "^", "-", "z", "{", "}", "{2,1}", "{1}", "{1,}", ",", "*", "+", "?", "|", "\\", "\\b",
             "\\d", "$", "(?i)", "(?", "<", ">", "=", "!", "\\]"]


def test_the_same_verdicts_as_v8_itself_on_random_patterns():
    """5,000 random patterns from the tricky pieces above, judged by Node's own V8 and by us: the same answer."""
    if shutil.which("node") is None:
        pytest.skip("node is needed to ask V8 itself")
    rng = random.Random(20261125)  # noqa: S311 - test data, fixed seed
    patterns = ["".join(rng.choice(_ALPHABET) for _ in range(rng.randint(1, 10))) for _ in range(5000)]
    script = ("const lines=require('fs').readFileSync(0,'utf8').split('\\n').filter(Boolean).map(JSON.parse);"
              "console.log(JSON.stringify(lines.map(p=>{try{new RegExp(p);return null}"
              "catch(e){return e.message.slice(e.message.indexOf('/: ')+3)}})))")
    done = subprocess.run(["node", "-e", script], input="\n".join(json.dumps(p) for p in patterns),
                          capture_output=True, text=True, timeout=120, check=True)
    theirs = json.loads(done.stdout)
    differences = [(p, t, v8_syntax_error(p)) for p, t in zip(patterns, theirs, strict=True)
                   if v8_syntax_error(p) != t]
    assert not differences, differences[:10]
