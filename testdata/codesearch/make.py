#!/usr/bin/env python3
"""Writes a code-search check in LoCoMo's schema, for `loci eval locomo --data`.

Each function of a Go package whose doc comment opens with its name becomes
a turn (the function's code, without its comment), and a question asks for
it in the words of that comment's first sentence, without the name:
"// ReadRequest reads and parses an incoming request from b." asks "Which
function reads and parses an incoming request from b?". Functions whose
first sentence holds their own name again, or has fewer than four words
after it, are left out. Turns alternate between a user and an assistant, 20
to a session, in the order of the package's files (so a session holds
functions of one file or two, as a project chat holds related code), or
shuffled with --shuffle.

    python3 testdata/codesearch/make.py "$(go env GOROOT)/src/net/http" http.json
    loci eval locomo --data http.json --method keyword --k 10

This is the CodeSearchNet way of asking for code in natural language
(Husain et al. 2019), made from sources every Go installation has.
"""
import argparse
import glob
import json
import os
import random
import re

FUNC = re.compile(r'^func (\([^)]*\) )?([A-Za-z_][A-Za-z0-9_]*)[\[(]')


def functions(path):
    """Yields (name, first sentence after the name, code) of a file's documented functions."""
    lines = open(path, encoding='utf-8').read().split('\n')
    i = 0
    while i < len(lines):
        m = FUNC.match(lines[i])
        if not m:
            i += 1
            continue
        name = m.group(2)
        doc, j = [], i - 1
        while j >= 0 and lines[j].startswith('//'):
            doc.insert(0, lines[j][2:].strip())
            j -= 1
        end = i
        while end < len(lines) and lines[end] != '}':
            end += 1
        code = '\n'.join(lines[i:end + 1])
        i = end + 1
        text = ' '.join(doc)
        if not text.startswith(name + ' ') or not 5 <= len(code.split()) <= 400:
            continue
        sentence = re.split(r'(?<=\.)\s', text)[0]
        rest = sentence[len(name) + 1:].rstrip('.')
        if len(rest.split()) >= 4 and name.lower() not in rest.lower():
            yield name, rest, code


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('package', help='directory of a Go package')
    ap.add_argument('out', help='file to write')
    ap.add_argument('--n', type=int, default=300, help='at most this many functions')
    ap.add_argument('--shuffle', action='store_true', help='shuffle the functions (seed 7)')
    a = ap.parse_args()
    items = []
    for f in sorted(glob.glob(os.path.join(a.package, '*.go'))):
        if not f.endswith('_test.go'):
            items.extend(functions(f))
    if a.shuffle:
        random.Random(7).shuffle(items)
    items = items[:a.n]
    conv = {'speaker_a': 'user', 'speaker_b': 'assistant'}
    qa = []
    for s in range(0, len(items), 20):
        n = s // 20 + 1
        conv['session_%d_date_time' % n] = '10:00 am on %d May, 2024' % n
        turns = []
        for t, (name, rest, code) in enumerate(items[s:s + 20]):
            dia = 'D%d:%d' % (n, t + 1)
            turns.append({'speaker': 'assistant' if t % 2 else 'user', 'dia_id': dia, 'text': code})
            qa.append({'question': 'Which function %s?' % rest, 'answer': name, 'evidence': [dia], 'category': 4})
        conv['session_%d' % n] = turns
    with open(a.out, 'w', encoding='utf-8') as w:
        json.dump([{'sample_id': 'codesearch-' + os.path.basename(a.package.rstrip('/')), 'conversation': conv, 'qa': qa}], w, indent=1)
    print('%d functions' % len(items))


if __name__ == '__main__':
    main()
