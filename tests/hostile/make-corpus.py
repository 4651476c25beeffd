#!/usr/bin/env python3
# tests/hostile/make-corpus.py: writes the hostile-input corpus
# (tests/hostile/{intent,manifest,kubeconfig}/) and its table
# tests/hostile/EXPECT from the cases below. The files are checked in; run
# this only to change the corpus (then review `git diff` and run
# tests/hostile.sh). Deterministic: the same files on every run.
#
# EXPECT has one line per check, tab-separated:
#
#   CASE  COMMAND  EXIT  REGEX
#
# CASE is a path under tests/hostile/; in COMMAND and REGEX '@' stands for
# tests/hostile/CASE. COMMAND is the gpuform command line (split at
# spaces), or `render-quoted`: render @ must succeed and REGEX is then a
# literal value that must appear in the YAML only inside quotes. REGEX is
# an extended regular expression one line of stderr must match. Big inputs
# (100 MB scalars, files over 16 MiB, huge tokens) are made by
# tests/hostile.sh at run time, not here.
import os
import random
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BASE = open(os.path.join(ROOT, 'specs/ml-prod.yaml'), 'rb').read()
MIN = open(os.path.join(ROOT, 'specs/minimal.yaml'), 'rb').read()
UNREACH = 'tests/hostile/kubeconfig/000-unreachable.yaml'

files = {}   # relpath -> bytes
expect = []  # (case, command, exit, regex)


def sub(base, old, new, count=1):
    if isinstance(old, str):
        old = old.encode()
    if isinstance(new, str):
        new = new.encode()
    assert old in base, old
    return base.replace(old, new, count)


def line_of(data, needle):
    if isinstance(needle, str):
        needle = needle.encode()
    i = data.index(needle)
    return data[:i].count(b'\n') + 1


def intent(name, data, regex, code=3):
    """an intent file: validate and render must both fail the same way
    (code 0: it is accepted, and regex '-' means stderr must be empty)"""
    rel = 'intent/%s.yaml' % name
    assert rel not in files, rel
    data = data if isinstance(data, bytes) else data.encode()
    files[rel] = data
    for r in regex if isinstance(regex, list) else [regex]:
        if isinstance(r, tuple):  # ('at', needle, col, msg)
            r = '^@:%d:%d: error: %s' % (line_of(data, r[1]), r[2], r[3])
        expect.append((rel, 'validate @', code, r))


def accepted(name, data, value):
    rel = 'intent/%s.yaml' % name
    files[rel] = data if isinstance(data, bytes) else data.encode()
    expect.append((rel, 'render-quoted', 0, value))


def at(line, col, msg):
    if isinstance(line, (str, bytes)):
        return ('at', line, col, msg)
    return '^@:%d:%d: error: %s' % (line, col, msg)


def anywhere(msg):
    return '^@(:[0-9]+:[0-9]+)?: error: %s' % msg


# ---- truncated files -----------------------------------------------------
# ml-prod.yaml cut at byte offsets: every prefix is an error with a position
# (a missing field, an unclosed quote, a half key), never a crash
for off in (1, 9, 20, 80, 112, 130, 145, 170, 205, 230, 262, 300, 340, 372,
            420, 455, 500, 540, 580, 615, 650, 700, 745, 800, 830, 880):
    intent('trunc-%03d' % off, BASE[:off], '^@:[0-9]+:[0-9]+: error: ')
intent('trunc-mid-dquote', BASE[:BASE.index(b'"0 2') + 4],
       at('schedule', 19, 'found unexpected end of stream \\(while scanning a quoted scalar\\)'))
intent('trunc-mid-flow', b'apiVersion: gpuform.io/v1alpha1\nkind: ClusterIntent\n'
       b'metadata: {name: [a, b, {c: ',
       '^@:[0-9]+:[0-9]+: error: .*(not closed|did not find|end of stream)')
intent('trunc-after-key', BASE[:BASE.index(b'nodeRole') + 8],
       '^@:[0-9]+:[0-9]+: error: ')
intent('trunc-mid-utf8', sub(BASE, 'name: ml-prod', 'name: ml-pr\xc3'.encode('latin-1'))[:BASE.index(b'name: ml-prod') + 12],
       '^@:[0-9]+:[0-9]+: error: .*(UTF-8|utf-8)')

# ---- binary files ---------------------------------------------------------
rnd = random.Random(7)
for i, n in enumerate((16, 64, 256, 1024, 4096, 9000)):
    data = bytes(rnd.randrange(256) for _ in range(n))
    intent('binary-random-%d' % n, data, '^@:[0-9]+:[0-9]+: error: ')
intent('binary-elf', b'\x7fELF\x02\x01\x01\x00' + bytes(range(256)) * 4,
       at(1, 1, 'control characters are not allowed.*byte 0x7f'))
intent('binary-gzip', b'\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03' + bytes(rnd.randrange(256) for _ in range(300)),
       at(1, 1, 'control characters are not allowed.*byte 0x1f'))
intent('binary-png', b'\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR' + bytes(200),
       at(1, 1, 'invalid leading UTF-8 octet.*byte 0x89'))
intent('binary-all-nul', bytes(512), at(1, 1, 'control characters are not allowed.*byte 0x00'))
intent('binary-all-ff', b'\xff' * 512, at(1, 1, 'invalid leading UTF-8 octet'))
intent('binary-nul-mid', sub(BASE, 'gang: 16', 'gang: 1\x006'),
       at('gang: 1', 14, 'control characters are not allowed.*byte 0x00'))
intent('binary-nul-at-end', BASE + b'\x00', '^@:40:1: error: control characters are not allowed')
intent('binary-nul-in-comment', sub(BASE, '# A training', '# A tr\x00aining'),
       at(1, 7, 'control characters are not allowed'))
intent('binary-bell-in-value', sub(BASE, 'gpu: h100', 'gpu: h1\x0700'),
       at('gpu: h1', 14, 'control characters are not allowed.*byte 0x07'))
intent('binary-esc-in-key', sub(BASE, 'gang: 16', 'g\x1b[2Jang: 16'),
       at('g\x1b', 8, 'control characters are not allowed.*byte 0x1b'))
intent('binary-del-char', sub(BASE, 'gang: 16', 'gang: 1\x7f6'),
       at('gang: 1\x7f', 14, 'control characters are not allowed.*byte 0x7f'))

# ---- invalid UTF-8, UTF-16/32, BOMs ---------------------------------------
bad_utf8 = {
    'overlong-slash': b'\xc0\xaf', 'overlong-nul': b'\xc0\x80',
    'lone-continuation': b'\x80', 'surrogate-high': b'\xed\xa0\x80',
    'surrogate-low': b'\xed\xbf\xbf', 'five-byte': b'\xf8\x88\x80\x80\x80',
    'beyond-10ffff': b'\xf4\x90\x80\x80', 'truncated-2': b'\xc3',
    'truncated-3': b'\xe2\x82', 'truncated-4': b'\xf0\x9f\x98',
    'fe': b'\xfe', 'overlong-3': b'\xe0\x80\xaf',
}
for k, v in bad_utf8.items():
    intent('utf8-%s-in-value' % k, sub(BASE, 'name: ml-prod', b'name: ml-p' + v + b'rod'),
           '^@:6:(9|1[0-9]): error: .*(UTF-8|octet|code point|sequence)')
intent('utf8-bad-in-key', sub(BASE, 'gang: 16', b'g\xc3(ang: 16'),
       at('g\xc3('.encode('latin-1'), 9, 'invalid trailing UTF-8 octet \\(byte 0x28\\)'))
intent('utf8-bad-in-comment', sub(BASE, '# A training', b'# A tr\xffaining'),
       '^@:1:[0-9]+: error: .*(UTF-8|octet)')
intent('utf8-bad-at-eof', BASE + b'\xe2', '^@:[0-9]+:[0-9]+: error: .*(UTF-8|octet|incomplete)')
intent('utf8-noncharacter-fffe', sub(BASE, 'name: ml-prod', 'name: ml-\ufffeprod'),
       '^@:6:[0-9]+: error: ')
intent('utf8-bom-twice', b'\xef\xbb\xbf\xef\xbb\xbf' + BASE, '-', code=0)
intent('utf8-bom-mid-file', sub(BASE, 'spec:', '\ufeffspec:'), '^@:[0-9]+:[0-9]+: error: ')
# UTF-16 and UTF-32 are YAML encodings libyaml reads; an otherwise valid
# intent in them is read (same result as UTF-8), an invalid one reports
# positions in characters
intent('utf16le-bom-invalid', '\ufeff' .encode('utf-16-le') + sub(BASE, 'gang: 16', 'gang: -3').decode().encode('utf-16-le'),
       at(27, 13, "'gang' is -3; it must be from 1 to 10000"))
intent('utf16be-bom-invalid', '\ufeff'.encode('utf-16-be') + sub(BASE, 'gang: 16', 'gang: -3').decode().encode('utf-16-be'),
       at(27, 13, "'gang' is -3; it must be from 1 to 10000"))
intent('utf16le-lone-surrogate', '\ufeff'.encode('utf-16-le') + b'a\x00:\x00 \x00\x00\xd8b\x00\n\x00',
       '^@:[0-9]+:[0-9]+: error: .*(surrogate|UTF-16)')
intent('utf16-odd-length', '\ufeff'.encode('utf-16-le') + b'a\x00:\x00 \x00b',
       '^@:[0-9]+:[0-9]+: error: .*(incomplete|UTF-16)')
intent('utf32le-bom', b'\xff\xfe\x00\x00' + 'a: 1\n'.encode('utf-32-le')[4:] if False else b'\xff\xfe\x00\x00a\x00\x00\x00',
       '^@:[0-9]+:[0-9]+: error: ')
intent('utf16le-no-bom', 'apiVersion: x\n'.encode('utf-16-le'),
       '^@:[0-9]+:[0-9]+: error: ')

# ---- deep nesting ---------------------------------------------------------
hdr = b'apiVersion: gpuform.io/v1alpha1\nkind: ClusterIntent\nmetadata: {name: x}\nspec:\n  nodeRole: '
intent('nest-flow-seq-129', hdr + b'[' * 129 + b']' * 129 + b'\n',
       '^@:5:[0-9]+: error: nesting deeper than 128 levels')
intent('nest-flow-seq-20k', hdr + b'[' * 20000 + b'\n',
       '^@:5:[0-9]+: error: nesting deeper than 128 levels')
intent('nest-flow-map-200', hdr + b'{a: ' * 200 + b'1' + b'}' * 200 + b'\n',
       '^@:5:[0-9]+: error: nesting deeper than 128 levels')
intent('nest-flow-mixed-300', hdr + b'[{a: ' * 150 + b'1' + b'}]' * 150 + b'\n',
       '^@:5:[0-9]+: error: nesting deeper than 128 levels')
intent('nest-flow-unclosed-50', hdr + b'[' * 50 + b'\n',
       '^@:[0-9]+:[0-9]+: error: .*(not closed|did not find|end of stream)')
blk = b''.join(b' ' * (2 * i) + b'k%d:\n' % i for i in range(200)) + b' ' * 400 + b'v: 1\n'
intent('nest-block-map-200', b'apiVersion: gpuform.io/v1alpha1\nkind: ClusterIntent\n' + blk,
       '^@:[0-9]+:[0-9]+: error: nesting deeper than 128 levels')
intent('nest-block-seq-160', b'spec:\n  workloads:\n    ' + b'- ' * 160 + b'x\n',
       '^@:[0-9]+:[0-9]+: error: nesting deeper than 128 levels')
intent('nest-exactly-128', hdr + b'[' * 126 + b']' * 126 + b'\n',
       at(5, 13, "'nodeRole' must be a string, not a list"))
intent('nest-in-workload', sub(BASE, 'gang: 16', 'gang: ' + '[' * 130 + ']' * 130),
       at('gang: [', 137, 'nesting deeper than 128 levels'))

# ---- aliases: billion laughs and friends ------------------------------------
lol = [b'a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]']
for i in range(1, 10):
    lol.append(b'a%d: &a%d [' % (i, i) + b', '.join([b'*a%d' % (i - 1)] * 10) + b']')
intent('alias-billion-laughs', b'\n'.join(lol) + b'\n', "^@:[0-9]+:[0-9]+: error: alias '\\*a[0-9]' expands past the limit of 500000 nodes")
intent('alias-billion-laughs-in-spec', sub(BASE, 'spec:\n', b'x: &x [' + b','.join([b'a'] * 1000) + b']\nspec:\n  l: [' + b','.join([b'*x'] * 600) + b']\n'),
       "^@:[0-9]+:[0-9]+: error: alias '\\*x' expands past the limit of 500000 nodes")
maps = [b'm0: &m0 {a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7, h: 8}']
for i in range(1, 8):
    maps.append(b'm%d: &m%d {' % (i, i) + b', '.join(b'k%d: *m%d' % (j, i - 1) for j in range(9)) + b'}')
intent('alias-map-laughs', b'\n'.join(maps) + b'\n', "^@:[0-9]+:[0-9]+: error: alias '\\*m[0-9]' expands past the limit")
intent('alias-unknown', sub(BASE, 'gang: 16', 'gang: *nowhere'), at('gang: *', 13, "unknown alias '\\*nowhere'"))
intent('alias-self', b'a: &a [*a]\n', "^@:1:[0-9]+: error: unknown alias '\\*a'")
intent('alias-as-key', sub(BASE, 'gang: 16', 'gang: &k gang\n      *k : 16'), '^@:[0-9]+:[0-9]+: error: ')
intent('alias-anchor-redefined', sub(BASE, 'gang: 16', 'gang: &a 16\n      maxGpus2: &a 8'), '^@:[0-9]+:[0-9]+: error: ')
intent('alias-merge-key', sub(BASE, '    - name: chat-serving', '    - <<: {gpu: l4}\n      name: chat-serving'),
       "^@:[0-9]+:[0-9]+: error: .*'<<'")
intent('alias-long-name', sub(BASE, 'gang: 16', 'gang: *' + 'x' * 5000), at('gang: *', 13, "unknown alias '\\*x{80}'$"))
intent('alias-wide-fanout', b'a: &a [' + b','.join([b'x'] * 100) + b']\nb: [' + b','.join([b'*a'] * 6000) + b']\n',
       "^@:2:[0-9]+: error: alias '\\*a' expands past the limit of 500000 nodes")

# ---- duplicate keys ---------------------------------------------------------
intent('dup-top-apiVersion', b'apiVersion: gpuform.io/v1alpha1\n' + BASE, "^@:[0-9]+:1: error: duplicate key 'apiVersion' \\(first at line 1\\)")
intent('dup-spec', BASE + b'spec: {}\n', "^@:40:1: error: duplicate key 'spec' \\(first at line 7\\)")
intent('dup-in-workload', sub(BASE, 'gang: 16', 'gang: 16\n      gang: 2'), "^@:28:7: error: duplicate key 'gang' \\(first at line 27\\)")
intent('dup-quoted-vs-plain', sub(BASE, 'gang: 16', 'gang: 16\n      "gang": 2'), "^@:28:7: error: duplicate key 'gang'")
intent('dup-single-quoted', sub(BASE, 'gang: 16', "gang: 16\n      'gang': 2"), "^@:28:7: error: duplicate key 'gang'")
intent('dup-escaped-key', sub(BASE, 'gang: 16', 'gang: 16\n      "g\\x61ng": 2'), "^@:28:7: error: duplicate key 'gang'")
intent('dup-flow-map', sub(BASE, 'maxGpus: 32', 'maxGpus: 32\n      x: {a: 1, a: 2}'), "^@:[0-9]+:[0-9]+: error: duplicate key 'a'")
intent('dup-metadata-name', sub(BASE, '  name: ml-prod', '  name: ml-prod\n  name: other'), "^@:7:3: error: duplicate key 'name' \\(first at line 6\\)")
intent('dup-many', BASE + b''.join(b'spec: %d\n' % i for i in range(300)), "^@:[0-9]+:1: error: duplicate key 'spec'")
intent('dup-null-keys', b'~: 1\nnull: 2\n', "^@:[0-9]+:[0-9]+: error: ")
intent('dup-empty-keys', b'"": 1\n\'\': 2\n', "^@:2:1: error: duplicate key ''")

# ---- tabs -------------------------------------------------------------------
intent('tab-indent-spec', sub(BASE, '  nodeRole', '\tnodeRole'), '^@:8:1: error: found character that cannot start any token')
intent('tab-indent-workload', sub(BASE, '      gang: 16', '\t\tgang: 16'), '^@:27:1: error: found a tab character that violates indentation')
intent('tab-mixed-indent', sub(BASE, '      gang: 16', '    \t  gang: 16'), '^@:27:5: error: found a tab character that violates indentation')
intent('tab-in-plain-value', sub(BASE, 'gpu: h100', 'gpu: h1\t00'), "^@:25:12: error: unknown GPU class 'h1\\\\t00'")
intent('tab-before-colon', sub(BASE, 'gang: 16', 'gang\t: 16'), '-', code=0)
intent('tab-only-lines', b'\t\n\t\t\n', '^@:[0-9]+:[0-9]+: error: ')

# ---- YAML tags --------------------------------------------------------------
for tag, line, col in (('!!binary', 28, 13), ('!!python/object:os.system', 28, 13),
                       ('!custom', 28, 13), ('!<tag:example.com:x>', 28, 13),
                       ('!!timestamp', 28, 13), ('!!set', 28, 13), ('!!omap', 28, 13)):
    intent('tag-%s' % tag.strip('!<>').replace('/', '-').replace(':', '-').replace('.', '-'),
           sub(BASE, 'gang: 16', 'gang: %s 16' % tag), at(line - 1, col, "unsupported YAML tag"))
intent('tag-str-on-int', sub(BASE, 'gang: 16', 'gang: !!str 16'), at(27, 13, "'gang' must be a whole number, not a string"))
intent('tag-int-on-string', sub(BASE, 'gpu: h100', 'gpu: !!int 100'), at(25, 12, "'gpu' must be a string, not an integer"))
intent('tag-int-on-garbage', sub(BASE, 'gang: 16', 'gang: !!int sixteen'), at(27, 13, "'gang' must be a whole number, not a string"))
intent('tag-bool-on-garbage', sub(BASE, 'efa: true', 'efa: !!bool maybe'), at(29, 12, "'efa' must be true or false, not a string"))
intent('tag-float-on-int', sub(BASE, 'gang: 16', 'gang: !!float 16'), at(27, 13, "'gang' must be a whole number, not a decimal number"))
intent('tag-null-on-required', sub(BASE, 'nodeRole: KarpenterNodeRole-ml-prod', 'nodeRole: !!null x'), '-', code=0)
intent('tag-map-on-scalar', sub(BASE, 'gang: 16', 'gang: !!map 16'), at(27, 13, "'gang' must be a whole number, not a string"))
intent('tag-directive', b'%TAG !e! tag:example.com,2000:\n---\n' + sub(BASE, 'gang: 16', 'gang: !e!x 16'), at(29, 13, "unsupported YAML tag 'tag:example.com,2000:x'"))
intent('tag-yaml-directive-1-3', b'%YAML 1.3\n---\n' + BASE, '^@:[0-9]+:[0-9]+: error: .*(version|YAML)')
intent('tag-on-key', sub(BASE, 'gang: 16', '!!str gang: 16'), '-', code=0)
intent('tag-on-document', b'--- !ClusterIntent\n' + BASE, at(1, 5, 'unsupported YAML tag'))

# ---- numbers where ints (or strings) are expected -----------------------------
for name, val, rx in (
        ('huge-int', '9223372036854775808', "'maxGpus' must be a decimal whole number from 1 to 100000"),
        ('huge-neg-int', '-9223372036854775809', "'maxGpus' must be a decimal whole number from 1 to 100000"),
        ('2pow53-plus1', '9007199254740993', "'maxGpus' is 9007199254740993; it must be from 1 to 100000"),
        ('1e309', '1e309', "'maxGpus' must be a whole number, not a decimal number"),
        ('neg-1e309', '-1e309', "'maxGpus' must be a whole number, not a decimal number"),
        ('dot-inf', '.inf', "'maxGpus' must be a whole number, not a decimal number"),
        ('neg-inf', '-.inf', "'maxGpus' must be a whole number, not a decimal number"),
        ('nan', '.nan', "'maxGpus' must be a whole number, not a decimal number"),
        ('float', '12.5', "'maxGpus' must be a whole number, not a decimal number"),
        ('float-integral', '12.0', "'maxGpus' must be a whole number, not a decimal number"),
        ('exp', '1e3', "'maxGpus' must be a whole number, not a decimal number"),
        ('hex', '0x80', "'maxGpus' must be a decimal whole number from 1 to 100000"),
        ('octal', '0o200', "'maxGpus' must be a decimal whole number from 1 to 100000"),
        ('underscore', '1_28', "'maxGpus' must be a decimal whole number from 1 to 100000"),
        ('negative', '-8', "'maxGpus' is -8; it must be from 1 to 100000"),
        ('negative-zero', '-0', "'maxGpus' is 0; it must be from 1 to 100000"),
        ('zero', '0', "'maxGpus' is 0; it must be from 1 to 100000"),
        ('plus-sign', '+128', None),
        ('leading-zero', '0128', None),
        ('string-number', '"128"', "'maxGpus' must be a whole number, not a string"),
        ('int-max', '2147483647', "'maxGpus' is 2147483647; it must be from 1 to 100000"),
        ('int-max-plus1', '2147483648', "'maxGpus' is 2147483648; it must be from 1 to 100000"),
        ('uint64-max', '18446744073709551615', "'maxGpus' must be a decimal whole number from 1 to 100000"),
        ('long-digits', '1' * 5000, "'maxGpus' must be a decimal whole number from 1 to 100000"),
        ('bool', 'true', "'maxGpus' must be a whole number, not a boolean"),
        ('null', '~', 'NULL'),
        ('list', '[128]', "'maxGpus' must be a whole number, not a list"),
        ('map', '{n: 128}', "'maxGpus' must be a whole number, not a mapping"),
        ):
    data = sub(BASE, 'maxGpus: 128', 'maxGpus: ' + val)
    if rx is None:
        intent('num-maxGpus-%s' % name, data, '-', code=0)
    elif rx == 'NULL':
        intent('num-maxGpus-%s' % name, data, at(23, 7, "workload is missing required key 'maxGpus'"))
    else:
        intent('num-maxGpus-%s' % name, data, at(31, 16, rx))
for field, old, val in (('gpusPerPod', 'gpusPerPod: 8', '-1'), ('gpusPerPod', 'gpusPerPod: 8', '1.5'),
                        ('gpusPerPod', 'gpusPerPod: 8', '4294967304'), ('gang', 'gang: 16', '-16'),
                        ('gang', 'gang: 16', '2.5'), ('gang', 'gang: 16', '99999999999')):
    intent('num-%s-%s' % (field, val.replace('.', '_').replace('-', 'neg')), sub(BASE, old, old.split(':')[0] + ': ' + val),
           '^@:[0-9]+:[0-9]+: error: .*%s' % field)
intent('num-size-negative', sub(BASE, 'size: 200Gi', 'size: -200Gi'), at(13, 11, '.*size'))
intent('num-size-huge', sub(BASE, 'size: 200Gi', 'size: 99999999999999999999Gi'), at(13, 11, '.*size'))
intent('num-size-float', sub(BASE, 'size: 200Gi', 'size: 1.5e300Gi'), at(13, 11, '.*size'))
intent('num-duration-huge', sub(BASE, 'duration: 4h', 'duration: 99999999999999999999h'), at(21, 15, 'maintenance window: duration must look like 4h, 30m or 1h30m'))
intent('num-duration-negative', sub(BASE, 'duration: 4h', 'duration: -4h'), at(21, 15, 'maintenance window: duration must look like 4h, 30m or 1h30m'))

# ---- names that are not DNS-safe ----------------------------------------------
for name, val in (('upper', 'ML-Prod'), ('underscore', 'ml_prod'), ('dot', 'ml.prod'),
                  ('leading-dash', '-mlprod'), ('trailing-dash', 'mlprod-'),
                  ('64-chars', 'a' * 64), ('4k-chars', 'a' * 4096), ('space', '"ml prod"'),
                  ('empty', '""'), ('slash', 'ml/prod'), ('dotdot', '".."'),
                  ('unicode', 'ml-pr\u043ed'), ('fullwidth', '\uff4d\uff4c'),
                  ('zero-width', 'ml\u200bprod'), ('rtl-override', 'ml\u202eprod'),
                  ('emoji', 'ml-\U0001f680'), ('percent', 'ml%2fprod')):
    intent('name-cluster-%s' % name, sub(BASE, 'name: ml-prod', 'name: ' + val), at(6, 9, "cluster name .* is not a valid DNS label"))
for name, val in (('upper', 'Research'), ('underscore', 're_search'), ('dot', 're.search'),
                  ('64-chars', 'r' * 64), ('slash', 'a/b'), ('dotdot', '".."'),
                  ('unicode', 'r\u0435search'), ('colon', '"a:b"')):
    intent('name-namespace-%s' % name, sub(BASE, 'namespace: research', 'namespace: ' + val), at(32, 18, ".*namespace"))
for name, val in (('upper', 'LLM'), ('underscore', 'llm_pretrain'), ('slash', 'llm/pretrain'),
                  ('dotdot', '"../../etc"'), ('long', 'w' * 300), ('unicode', 'llm-\u00e9')):
    intent('name-workload-%s' % name, sub(BASE, 'name: llm-pretrain', 'name: ' + val), at(23, 13, ".*workload"))

# ---- strings that try to inject YAML, shell or terminal escapes -------------------
# rejected ones: the message quotes them with control characters escaped
inj = (
    ('shell-subst', '"$(touch pwned)"'),
    ('shell-backtick', '"`touch pwned`"'),
    ('shell-semicolon', '"x; touch /tmp/gpuform-hostile-pwned"'),
    ('shell-quote', '"\\"; touch pwned; echo \\""'),
    ('shell-rm', '"$(rm -rf /)"'),
    ('shell-pipe', '"a | sh"'),
    ('shell-redirect', '"a > pwned"'),
    ('yaml-newline-key', '"ml\\nkind: Secret"'),
    ('yaml-doc-separator', '"ml\\n---\\nkind: Secret"'),
    ('yaml-flow', '"{kind: Secret}"'),
    ('yaml-comment', '"ml #x"'),
    ('yaml-anchor', '"&a ml"'),
    ('crlf', '"ml\\r\\nX-Injected: 1"'),
    ('nul-escape', '"ml\\0prod"'),
    ('ansi-clear', '"\\e[2J\\e[Hml"'),
    ('ansi-color', '"\\e[31mml\\e[0m"'),
    ('c1-csi', '"ml\\x9b31m"'),
    ('backspace', '"mlxx\\b\\b"'),
    ('fake-diagnostic', '"x\\ntests/hostile/ok.yaml:1:1: error: fake"'),
)
for name, val in inj:
    rx = "cluster name .* is not a valid DNS label"
    if name == 'nul-escape':
        rx = "'metadata.name' contains a NUL character"
    intent('inject-name-%s' % name, sub(BASE, 'name: ml-prod', 'name: ' + val), at(6, 9, rx))
for name, val in inj[:9]:
    intent('inject-nodeRole-%s' % name, sub(BASE, 'nodeRole: KarpenterNodeRole-ml-prod', 'nodeRole: ' + val), at(8, 13, '.*(nodeRole|role)'))
intent('inject-newline-key-block', sub(BASE, 'gang: 16', 'gang: 16\n      ? "a\\nkind: Secret"\n      : x'),
       "^@:28:9: error: unknown key 'a\\\\nkind: Secret' in a workload")
intent('inject-key-with-colon', sub(BASE, 'gang: 16', 'gang: 16\n      "kind: Secret": x'), "^@:28:7: error: unknown key 'kind: Secret' in a workload")
intent('inject-schedule-shell', sub(BASE, '"0 2 * * sat"', '"0 2 * * sat; touch pwned"'), at(20, 15, 'maintenance window: schedule must have five cron fields'))
intent('inject-snapshot-newline', sub(BASE, 'snapshotID: snap-0123456789abcdef0', 'snapshotID: "snap-0123456789abcdef0\\nkind: Secret"'), at(12, 17, "'snap-0123456789abcdef0\\\\nkind: Secret' is not an EBS snapshot id"))
intent('inject-sg-shell', sub(BASE, 'efaSecurityGroup: sg-0123456789abcdef0', 'efaSecurityGroup: "sg-0123$(id)"'), at(16, 23, '.*'))
intent('inject-ami-shell', sub(BASE, 'ami: bottlerocket@v1.38.0', 'ami: "bottlerocket@v1.38.0; touch pwned"'), at(9, 8, '.*'))
# accepted ones: they end up in the output, quoted
for name, val, lit in (('colon-space', '"a: b"', 'a: b'), ('dash-space', '"- z"', '- z'),
                       ('at-sign', "'@attack'", '@attack'), ('doc-start', '"--- "', '--- '),
                       ('null-word', '"null"', 'null'), ('true-word', '"true"', 'true'),
                       ('number', '"8"', '8'), ('colon-chain', '"a: b: c"', 'a: b: c'),
                       ('dash-dash', '"-- x"', '-- x'), ('equals-plus', '"= +x"', '= +x')):
    accepted('accept-discovery-%s' % name, sub(BASE, 'discovery: ml-prod', 'discovery: ' + val), 'karpenter.sh/discovery=' + lit)

# ---- reservation terms (workloads[].capacity) with hostile values ------------
def cap(term, extra=''):
    return sub(BASE, 'maxGpus: 32', 'maxGpus: 32\n      capacity:\n        reservations:\n          - ' + term + extra)
intent('cap-id-shell', cap('id: "cr-0123456789abcdef0$(id)"'), at(41, 17, "'cr-0123456789abcdef0\\$\\(id\\)' is not a capacity reservation id"))
intent('cap-id-newline-key', cap('id: "cr-0\\nkind: Secret"'), at(41, 17, "'cr-0\\\\nkind: Secret' is not a capacity reservation id"))
intent('cap-id-nul', cap('id: "cr-0\\0"'), at(41, 17, "'id' contains a NUL character"))
intent('cap-tag-key-newline', cap('tags: {"a\\nkind: Secret": x}'), at(41, 20, "tag key 'a\\\\nkind: Secret' is not an AWS tag key"))
intent('cap-tag-value-ansi', cap('tags: {team: "\\e[31mml"}'), at(41, 20, "tag 'team' has value '\\\\x1b\\[31mml'"))
intent('cap-owner-shell', cap('tags: {team: ml}\n            ownerID: "$(id)"'), at(42, 22, "'\\$\\(id\\)' is not an AWS account id"))
intent('cap-terms-31', sub(BASE, 'maxGpus: 32', 'maxGpus: 32\n      capacity:\n        reservations:' + ''.join('\n          - id: cr-%017x' % i for i in range(31))), at(41, 11, "31 reservation terms: an EC2NodeClass takes at most 30"))
intent('cap-tags-21', cap('tags: {' + ', '.join('k%d: v' % i for i in range(21)) + '}'), at(41, 19, "21 tags in one term: Karpenter takes at most 20"))
intent('cap-terms-10000', sub(BASE, 'maxGpus: 32', 'maxGpus: 32\n      capacity:\n        reservations:' + ''.join('\n          - id: cr-%017x' % i for i in range(10000))), at(41, 11, "10000 reservation terms"))
intent('cap-reservations-map', sub(BASE, 'maxGpus: 32', 'maxGpus: 32\n      capacity:\n        reservations: {id: cr-0123456789abcdef0}'), at(40, 23, "'reservations' must be a list, not a mapping"))
intent('cap-term-scalar', cap('cr-0123456789abcdef0'), at(41, 13, "a reservation term must be a mapping"))
intent('cap-capacity-seq', sub(BASE, 'maxGpus: 32', 'maxGpus: 32\n      capacity: [cr-0123456789abcdef0]'), at(39, 17, "'capacity' must be a mapping"))

# ---- wrong types at every level ------------------------------------------------
intent('type-root-seq', b'- apiVersion: gpuform.io/v1alpha1\n- kind: ClusterIntent\n', at(1, 1, '.*mapping'))
intent('type-root-scalar', b'ClusterIntent\n', at(1, 1, '.*mapping'))
intent('type-root-int', b'42\n', at(1, 1, '.*mapping'))
intent('type-root-null', b'~\n', '^@:1:1: error: ')
intent('type-apiVersion-map', sub(BASE, 'apiVersion: gpuform.io/v1alpha1', 'apiVersion: {v: 1}'), at(3, 13, '.*apiVersion'))
intent('type-kind-seq', sub(BASE, 'kind: ClusterIntent', 'kind: [ClusterIntent]'), at(4, 7, '.*kind'))
intent('type-metadata-seq', sub(BASE, 'metadata:\n  name: ml-prod', 'metadata: [ml-prod]'), at(5, 11, '.*metadata'))
intent('type-metadata-scalar', sub(BASE, 'metadata:\n  name: ml-prod', 'metadata: ml-prod'), at(5, 11, '.*metadata'))
intent('type-name-int', sub(BASE, 'name: ml-prod', 'name: 42'), at(6, 9, '.*'))
intent('type-name-map', sub(BASE, 'name: ml-prod', 'name: {a: b}'), at(6, 9, '.*name'))
intent('type-spec-seq', sub(MIN, 'spec:', 'spec: []\nx:'), '^@:[0-9]+:[0-9]+: error: .*spec')
intent('type-spec-scalar', MIN[:MIN.index(b'spec:')] + b'spec: gpu\n', at(8, 7, '.*spec'))
intent('type-nodeRole-seq', sub(BASE, 'nodeRole: KarpenterNodeRole-ml-prod', 'nodeRole: [a]'), at(8, 13, "'nodeRole' must be a string, not a list"))
intent('type-ami-map', sub(BASE, 'ami: bottlerocket@v1.38.0', 'ami: {family: bottlerocket}'), at(9, 8, '.*ami'))
intent('type-imageCache-seq', sub(BASE, 'imageCache:\n    snapshotID: snap-0123456789abcdef0\n    size: 200Gi', 'imageCache: [snap]'), at(11, 15, '.*imageCache'))
intent('type-network-scalar', sub(BASE, 'network:\n    prefixDelegation: true\n    efaSecurityGroup: sg-0123456789abcdef0', 'network: on'), '^@:[0-9]+:[0-9]+: error: .*network')
intent('type-prefixDelegation-string', sub(BASE, 'prefixDelegation: true', 'prefixDelegation: "true"'), at(15, 23, '.*prefixDelegation'))
intent('type-prefixDelegation-yes', sub(BASE, 'prefixDelegation: true', 'prefixDelegation: yes'), '-', code=0)
intent('type-generalPurpose-bool', sub(BASE, 'generalPurpose:\n    enabled: true', 'generalPurpose: true'), at(17, 19, '.*generalPurpose'))
intent('type-enabled-int', sub(BASE, 'enabled: true', 'enabled: 1'), at(18, 14, '.*enabled'))
intent('type-window-seq', sub(BASE, 'maintenanceWindow:\n    schedule: "0 2 * * sat"\n    duration: 4h', 'maintenanceWindow: ["0 2 * * sat", 4h]'), at(19, 22, '.*maintenanceWindow'))
intent('type-schedule-int', sub(BASE, 'schedule: "0 2 * * sat"', 'schedule: 2'), at(20, 15, '.*schedule'))
intent('type-workloads-scalar', BASE[:BASE.index(b'  workloads:')] + b'  workloads: many\n', at(22, 14, '.*workloads'))
intent('type-workloads-nested-seq', sub(BASE, '    - name: chat-serving', '    - [name, chat-serving]\n    - name: chat-serving'), at(33, 7, r'a workload must be a mapping \(key: value\), not a list'))
intent('type-workload-null', sub(BASE, '    - name: chat-serving', '    -\n    - name: chat-serving'), at(33, 6, r'a workload must be a mapping \(key: value\), not nothing \(null\)'))
intent('type-gpu-map', sub(BASE, 'gpu: h100', 'gpu: {class: h100}'), at(25, 12, "'gpu' must be a string, not a mapping"))
intent('type-gpu-int', sub(BASE, 'gpu: h100', 'gpu: 100'), at(25, 12, "'gpu' must be a string, not an integer"))
intent('type-efa-string', sub(BASE, 'efa: true', 'efa: "yes"'), at(29, 12, "'efa' must be true or false, not a string"))
intent('type-efa-seq', sub(BASE, 'efa: true', 'efa: [true]'), at(29, 12, "'efa' must be true or false, not a list"))
intent('type-type-seq', sub(BASE, 'type: training', 'type: [training]'), at(24, 13, '.*type'))
intent('type-sharing-map', sub(BASE, 'placement: {zone: us-east-1a}', 'sharing: {mode: none}'), at(30, 17, "unknown key 'mode' in 'sharing'"))
intent('type-interruption-bool', sub(BASE, 'interruption: none', 'interruption: no'), at(28, 21, "'interruption' must be a string, not a boolean"))
intent('type-namespace-seq', sub(BASE, 'namespace: research', 'namespace: [research]'), at(32, 18, '.*namespace'))

# ---- unknown keys at depths invalid/ does not cover ------------------------------------
intent('unknown-key-imageCache', sub(BASE, 'size: 200Gi', 'size: 200Gi\n    encrypted: true'), "^@:14:5: error: unknown key 'encrypted'")
intent('unknown-key-window', sub(BASE, 'duration: 4h', 'duration: 4h\n    timezone: UTC'), "^@:22:5: error: unknown key 'timezone' in 'maintenanceWindow'")
intent('unknown-key-generalPurpose', sub(BASE, 'enabled: true', 'enabled: true\n    size: large'), "^@:19:5: error: unknown key 'size'")
intent('unknown-key-huge', sub(BASE, 'gang: 16', 'gang: 16\n      ' + 'k' * 3000 + ': 1'), "^@:28:3007: error: could not find expected ':'")
intent('unknown-keys-500', sub(BASE, 'gang: 16', 'gang: 16' + ''.join('\n      u%d: 1' % i for i in range(500))), "^@:[0-9]+:7: error: unknown key 'u[0-9]+'")
intent('unknown-key-status', BASE + b'status: {ready: true}\n', "^@:40:1: error: unknown key 'status' in the intent")

# ---- empty files, only comments, document markers, streams ------------------------
for name, data in (('empty', b''), ('newline', b'\n'), ('spaces', b'   \n  \n'),
                   ('only-comment', b'# nothing here\n'), ('only-comments-many', b'#\n' * 1000),
                   ('only-doc-start', b'---\n'), ('only-doc-end', b'...\n'),
                   ('doc-start-end', b'---\n...\n'), ('doc-null', b'--- ~\n'), ('doc-empty-map', b'{}\n'),
                   ('doc-empty-seq', b'[]\n'), ('bom-only', b'\xef\xbb\xbf'), ('crlf-only', b'\r\n\r\n')):
    intent('empty-%s' % name, data, '^@(:[0-9]+:[0-9]+)?: error: ')
intent('multidoc-two-intents', BASE + b'---\n' + MIN, '^@:[0-9]+:[0-9]+: error: .*(one|document)')
intent('multidoc-intent-then-garbage', BASE + b'---\n: : :\n', '^@:[0-9]+:[0-9]+: error: ')
intent('multidoc-garbage-after-end', BASE + b'...\n\x01\x02', '^@:[0-9]+:[0-9]+: error: ')
intent('multidoc-1000-empty', b'---\n' * 1000, '^@(:[0-9]+:[0-9]+)?: error: ')
intent('multidoc-20-intents', (BASE + b'---\n') * 20, '^@:[0-9]+:[0-9]+: error: .*(one|document)')
intent('crlf-line-endings-invalid', sub(BASE, 'gang: 16', 'gang: -1').replace(b'\n', b'\r\n'), at(27, 13, "'gang' is -1; it must be from 1 to 10000"))
intent('cr-only-line-endings-invalid', sub(BASE, 'gang: 16', 'gang: -1').replace(b'\n', b'\r'), at(27, 13, "'gang' is -1; it must be from 1 to 10000"))
intent('long-key-16k', sub(BASE, 'gang: 16', 'gang: 16\n      ' + 'k' * (1 << 14) + ': 1'), "^@:28:%d: error: could not find expected ':'" % (7 + (1 << 14)))

# ---- rendered directories (reconcile DIR, diff --live DIR read them) --------------------
# each is a directory as `render -o` writes it, made hostile; they fail
# before any connection (the kubeconfig's server is an unreachable port)
GOOD_NS = (b'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: serving\n'
           b'  labels:\n    gpuform.io/cluster: ml-prod\n')
KUST = b'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n'


def rendered(name, tree, regex, code=3, cmd=None):
    rel = 'manifest/%s' % name
    for p, data in tree.items():
        files['%s/%s' % (rel, p)] = data
    for r in regex if isinstance(regex, list) else [regex]:
        expect.append((rel, cmd or 'reconcile --dry-run --timeout 5s --kubeconfig %s @' % UNREACH, code, r))


def with_obj(data):
    return {'kustomization.yaml': KUST + b'- obj.yaml\n', 'obj.yaml': data}


K = '@/kustomization.yaml'
O = '@/obj.yaml'
rendered('no-kustomization', {'obj.yaml': GOOD_NS}, r'^gpuform: error: @: no kustomization.yaml \(is it a directory written by gpuform render --output-dir or commit\?\)')
rendered('kust-binary', {'kustomization.yaml': b'\x00\x01\x02'}, '%s:1:1: .*control characters' % K)
rendered('kust-no-resources', {'kustomization.yaml': b'apiVersion: v1\n'}, "no 'resources' list")
rendered('kust-resources-map', {'kustomization.yaml': b'resources: {a: b}\n'}, "no 'resources' list")
rendered('kust-parent-path', {'kustomization.yaml': KUST + b'- ../../../../etc/passwd\n'}, '^%s:4:3: error: resources must be files inside the directory' % K)
rendered('kust-absolute-path', {'kustomization.yaml': KUST + b'- /etc/passwd\n'}, '^%s:4:3: error: resources must be files inside the directory' % K)
rendered('kust-missing-file', {'kustomization.yaml': KUST + b'- nope.yaml\n'}, '%s.*(nope.yaml|No such file)' % '@')
rendered('kust-dir-as-resource', {'kustomization.yaml': KUST + b'- sub\n', 'sub/x.yaml': GOOD_NS}, '@/sub')
rendered('kust-resource-seq', {'kustomization.yaml': KUST + b'- [a, b]\n'}, '^%s:4:3: error: resources must be files' % K)
rendered('kust-alias-bomb', {'kustomization.yaml': b'\n'.join(lol) + b'\nresources: []\n'}, 'expands past the limit')
rendered('kust-deep', {'kustomization.yaml': b'resources: ' + b'[' * 200 + b'\n'}, 'nesting deeper than 128 levels')
rendered('obj-binary', with_obj(bytes(range(256))), '^%s:1:1: error: .*control characters' % O)
rendered('obj-not-a-map', with_obj(b'- a\n- b\n'), '^%s:1:1: error: a Kubernetes object must be a mapping' % O)
rendered('obj-scalar', with_obj(b'hello\n'), '^%s:1:1: error: a Kubernetes object must be a mapping' % O)
rendered('obj-no-kind', with_obj(b'apiVersion: v1\nmetadata: {name: x}\n'), '^%s:1:1: error: object has no apiVersion and kind' % O)
rendered('obj-kind-int', with_obj(b'apiVersion: v1\nkind: 7\nmetadata: {name: x}\n'), '^%s:1:1: error: object has no apiVersion and kind' % O)
rendered('obj-second-doc-bad', with_obj(GOOD_NS + b'---\n- x\n'), '^%s:7:1: error: a Kubernetes object must be a mapping' % O)
rendered('obj-dup-key', with_obj(GOOD_NS + b'kind: Secret\n'), "^%s:7:1: error: duplicate key 'kind'" % O)
rendered('obj-tag', with_obj(sub(GOOD_NS, 'name: serving', 'name: !!binary c2VydmluZw==')), '%s:4:9: .*unsupported YAML tag' % O)
rendered('obj-huge-int', with_obj(GOOD_NS + b'spec: {replicas: 99999999999999999999}\n'), '%s:7:18: .*out of range' % O)
rendered('obj-inf', with_obj(GOOD_NS + b'spec: {x: .inf}\n'), '%s:7:11: .*no JSON equivalent' % O)
rendered('obj-nul-escape', with_obj(sub(GOOD_NS, 'name: serving', 'name: "serv\\0ing"')), '%s:4:9: .*NUL' % O)
rendered('obj-alias-bomb', with_obj(b'\n'.join(lol) + b'\n'), 'expands past the limit')
rendered('obj-deep', with_obj(GOOD_NS + b'spec: ' + b'{a: ' * 300 + b'1' + b'}' * 300 + b'\n'), 'nesting deeper than 128 levels')
rendered('obj-invalid-utf8', with_obj(sub(GOOD_NS, 'name: serving', b'name: serv\xffing')), '%s:4:[0-9]+: .*(UTF-8|octet)' % O)
rendered('obj-no-cluster-label', with_obj(b'apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n'), 'no object carries a gpuform.io/cluster label')
rendered('obj-two-clusters', with_obj(GOOD_NS + b'---\n' + sub(GOOD_NS, 'ml-prod', 'other')), "mixes clusters 'ml-prod' and 'other'")
rendered('obj-cluster-label-injection', with_obj(sub(GOOD_NS, 'gpuform.io/cluster: ml-prod', 'gpuform.io/cluster: "a\\nb\\e[2J"')),
         "^gpuform: error: '@': gpuform.io/cluster label 'a\\\\nb\\\\x1b\\[2J' is not a valid cluster name \\(a DNS label\\)$", code=3)
rendered('obj-empty-file', with_obj(b''), 'no object carries a gpuform.io/cluster label')
rendered('obj-many-errors', {'kustomization.yaml': KUST + b''.join(b'- o%d.yaml\n' % i for i in range(120)),
                             **{'o%d.yaml' % i: b'- x\n' for i in range(120)}},
         ['^@/o0.yaml:1:1: error: a Kubernetes object must be a mapping', 'more diagnostics not shown'])

# ---- kubeconfigs --------------------------------------------------------------------------
# reconcile --dry-run of a valid intent with a hostile kubeconfig: the
# loader must refuse it (or the connection to an unreachable loopback port
# must fail) with a clear message; nothing is run that the file names
# except in the exec cases, which run /bin/sh printing fixed text


def kc(name, data, regex, code=3, extra=None):
    rel = 'kubeconfig/%s.yaml' % name
    files[rel] = data if isinstance(data, bytes) else data.encode()
    if extra:
        for p, d in extra.items():
            files['kubeconfig/%s' % p] = d
    for r in regex if isinstance(regex, list) else [regex]:
        expect.append((rel, 'reconcile --dry-run --timeout 1s --request-timeout 1s --kubeconfig @ specs/minimal.yaml', code, r))


def kcfg(cluster='{server: "https://127.0.0.1:1"}', user='{token: t0k3n}', ctx='{cluster: k, user: u}',
         current='c', more=''):
    return ('apiVersion: v1\nkind: Config\ncurrent-context: %s\n'
            'contexts:\n- name: c\n  context: %s\n'
            'clusters:\n- name: k\n  cluster: %s\n'
            'users:\n- name: u\n  user: %s\n%s' % (current, ctx, cluster, user, more))


files[UNREACH[len('tests/hostile/'):]] = kcfg().encode()
expect.append((UNREACH[len('tests/hostile/'):], 'reconcile --dry-run --timeout 1s --request-timeout 1s --kubeconfig @ specs/minimal.yaml', 4,
               '^gpuform: error: .*cannot talk to the API server at https://127.0.0.1:1'))
kc('empty', '', '^gpuform: error: .*')
kc('binary', bytes(range(256)), '^gpuform: error: @:1:1: .*control characters')
kc('not-a-map', '- a\n', "^gpuform: error: @:1:1: a kubeconfig must be a mapping")
kc('two-docs', kcfg() + '---\n' + kcfg(), "^gpuform: error: @:[0-9]+:[0-9]+: a kubeconfig holds one YAML document")
kc('no-current-context', kcfg().replace('current-context: c\n', ''), 'sets no current-context')
kc('current-context-empty', kcfg(current='""'), 'sets no current-context')
kc('current-context-nowhere', kcfg(current='elsewhere'), "context 'elsewhere' is not defined in kubeconfig '@'", code=4)
kc('current-context-injection', kcfg(current='"c\\nkind: Secret"'), "^gpuform: error: @:3:18: current-context contains a control character")
kc('context-cluster-nowhere', kcfg(ctx='{cluster: nope, user: u}'), "cluster 'nope' of context 'c' is not defined", code=4)
kc('context-user-nowhere', kcfg(ctx='{cluster: k, user: nope}'), "user 'nope' of context 'c' is not defined", code=4)
kc('context-no-cluster', kcfg(ctx='{user: u}'), "context 'c' names no cluster")
kc('context-scalar', kcfg(ctx='k'), "must be a mapping")
kc('contexts-map', kcfg().replace('contexts:\n- name: c\n  context: {cluster: k, user: u}', 'contexts: {c: {cluster: k}}'), "'contexts' must be a list")
kc('context-no-name', kcfg().replace('- name: c\n', '- \n'), "has no name")
kc('cluster-no-server', kcfg(cluster='{}'), "cluster 'k' has no server")
kc('server-not-url', kcfg(cluster='{server: "127.0.0.1:1"}'), "server '127.0.0.1:1' of cluster 'k' is not an https:// or http:// URL")
kc('server-file-url', kcfg(cluster='{server: "file:///etc/passwd"}'), "is not an https:// or http:// URL")
kc('server-gopher', kcfg(cluster='{server: "gopher://127.0.0.1:1"}'), "is not an https:// or http:// URL")
kc('server-crlf', kcfg(cluster='{server: "https://127.0.0.1:1\\r\\nHost: evil"}'), "@:9:21: server of cluster 'k' contains a space or control character")
kc('server-space', kcfg(cluster='{server: "https://127.0.0.1:1 x"}'), "server of cluster 'k' contains a space or control character")
kc('server-nul', kcfg(cluster='{server: "https://127.0.0.1:1\\0.evil"}'), "@:9:21: 'server' contains a NUL character")
kc('server-seq', kcfg(cluster='{server: [a]}'), "'server' must be a string")
kc('server-userinfo', kcfg(cluster='{server: "https://user:pass@127.0.0.1:1"}'), "cannot talk to the API server", code=4)
kc('server-no-port-host', kcfg(cluster='{server: "https://"}'), "gpuform: error: .*", code=4)
kc('server-huge', kcfg(cluster='{server: "https://127.0.0.1:1/%s"}' % ('a' * 20000)), "gpuform: error: .*", code=4)
kc('ca-data-garbage', kcfg(cluster='{server: "https://127.0.0.1:1", certificate-authority-data: "!!!not base64!!!"}'), "certificate-authority-data of cluster 'k' is not valid base64")
kc('ca-data-not-pem', kcfg(cluster='{server: "https://127.0.0.1:1", certificate-authority-data: "aGVsbG8="}'), "does not hold a PEM CERTIFICATE")
kc('ca-data-int', kcfg(cluster='{server: "https://127.0.0.1:1", certificate-authority-data: 12}'), "does not hold a PEM|not valid base64|must be a string")
kc('ca-file-missing', kcfg(cluster='{server: "https://127.0.0.1:1", certificate-authority: no-such-ca.crt}'), "no-such-ca.crt", code=4)
kc('ca-file-is-dir', kcfg(cluster='{server: "https://127.0.0.1:1", certificate-authority: .}'), "'tests/hostile/kubeconfig/.' is a directory, not a file")
kc('ca-file-devnull', kcfg(cluster='{server: "https://127.0.0.1:1", certificate-authority: /dev/null}'), "does not hold a PEM CERTIFICATE")
kc('insecure-string', kcfg(cluster='{server: "https://127.0.0.1:1", insecure-skip-tls-verify: "yes"}'), "'insecure-skip-tls-verify' must be true or false")
kc('token-crlf', kcfg(user='{token: "t0k\\r\\nX-Injected: 1"}'), "@:12:17: token of user 'u' contains a control character")
kc('token-ansi', kcfg(user='{token: "\\e[2Jt0k"}'), "token of user 'u' contains a control character")
kc('token-map', kcfg(user='{token: {a: b}}'), "'token' must be a string")
kc('token-file-missing', kcfg(user='{tokenFile: no-such-token}'), "no-such-token", code=4)
kc('token-file-crlf', kcfg(user='{tokenFile: token-crlf.txt}'), "tokenFile of user 'u' \\(@\\): the token contains a control character",
   extra={'token-crlf.txt': b't0k\r\nX-Injected: 1\n'})
kc('client-cert-without-key', kcfg(user='{client-certificate-data: "aGVsbG8="}'), "gpuform: error: ")
kc('client-key-garbage', kcfg(user='{client-key-data: "%%%%"}'), "client-key-data of user 'u' is not valid base64")
kc('auth-provider', kcfg(user='{auth-provider: {name: gcp}}'), "uses an auth-provider")
kc('exec-no-command', kcfg(user='{exec: {apiVersion: client.authentication.k8s.io/v1}}'), "exec of user 'u' has no command")
kc('exec-command-seq', kcfg(user='{exec: {apiVersion: client.authentication.k8s.io/v1, command: [sh]}}'), "'command' must be a string")
kc('exec-args-string', kcfg(user='{exec: {apiVersion: client.authentication.k8s.io/v1, command: sh, args: "-c id"}}'), "exec args must be a list")
kc('exec-args-maps', kcfg(user='{exec: {apiVersion: client.authentication.k8s.io/v1, command: sh, args: [{a: b}]}}'), "exec args must be strings")
kc('exec-env-scalar', kcfg(user='{exec: {apiVersion: client.authentication.k8s.io/v1, command: sh, env: X=1}}'), "exec env must be a list of \\{name, value\\}")
kc('exec-env-equals', kcfg(user='{exec: {apiVersion: client.authentication.k8s.io/v1, command: sh, env: [{name: "A=B", value: x}]}}'), "exec env entry needs a name without '='")
kc('exec-api-unknown', kcfg(user='{exec: {apiVersion: client.authentication.k8s.io/v9, command: sh}}'), "exec apiVersion 'client.authentication.k8s.io/v9' of user 'u' is not supported")
kc('exec-interactive', kcfg(user='{exec: {apiVersion: client.authentication.k8s.io/v1, command: sh, interactiveMode: Always}}'), "needs a terminal")
kc('exec-not-found', kcfg(user='{exec: {apiVersion: client.authentication.k8s.io/v1, command: /nonexistent/gpuform-hostile-plugin}}'),
   "cannot run it: No such file or directory", code=4)
kc('exec-garbage-output', kcfg(user='{exec: {apiVersion: client.authentication.k8s.io/v1, command: sh, args: [-c, "printf \'\\\\033[2J\\\\001garbage\'"]}}'),
   "did not write an ExecCredential", code=4)
kc('exec-token-crlf', kcfg(user='{exec: {apiVersion: client.authentication.k8s.io/v1, command: sh, args: [-c, "printf \'%s\'"]}}' %
                          '{\\"apiVersion\\":\\"client.authentication.k8s.io/v1\\",\\"kind\\":\\"ExecCredential\\",\\"status\\":{\\"token\\":\\"t\\\\\\\\r\\\\\\\\nX-Injected: 1\\"}}'),
   "the bearer token of user 'u' contains a control character; it was not sent", code=4)
kc('exec-fails', kcfg(user='{exec: {apiVersion: client.authentication.k8s.io/v1, command: sh, args: [-c, "echo nope >&2; exit 3"]}}'),
   "failed with exit status 3", code=4)
kc('users-huge-list', kcfg(more=''.join('- name: x%d\n  user: {token: t}\n' % i for i in range(500))),
   "cannot talk to the API server", code=4)
kc('alias-bomb', '\n'.join(l.decode() for l in lol) + '\n' + kcfg(), "expands past the limit")
kc('deep', kcfg(more='preferences: ' + '[' * 300 + '\n'), "nesting deeper than 128 levels")
kc('dup-key', kcfg() + 'current-context: c\n', "duplicate key 'current-context'")
kc('tag', kcfg(current='!!python/object c'), "unsupported YAML tag")
kc('invalid-utf8', kcfg(current='c').encode().replace(b'current-context: c', b'current-context: \xff'), "(UTF-8|octet)")

# ---- placement and image-cache keys (issue 12) ----------------------------------
PZ = 'placement: {zone: us-east-1a}'
intent('placement-zone-injection', sub(BASE, PZ, 'placement: {zone: "us-east-1a\\nkind: Secret"}'),
       at('placement: ', 25, "'us-east-1a\\\\nkind: Secret' is not an availability zone name"))
intent('placement-zone-huge-list', sub(BASE, PZ, 'placement: {zone: [%s]}' % ', '.join(['us-east-1a'] * 200)),
       at('placement: ', 38, "zone 'us-east-1a' is listed twice"))
intent('placement-zone-map', sub(BASE, PZ, 'placement: {zone: {a: b}}'), at('placement: ', 25, "'zone' must be a string"))
intent('placement-pg-shell', sub(BASE, PZ, 'placement: {zone: us-east-1a, placementGroup: "pg-$(id)"}'),
       at('placement: ', 53, "'pg-\\$\\(id\\)' is not a placement group name or id"))
intent('placement-pg-control', sub(BASE, PZ, 'placement: {zone: us-east-1a, placementGroup: "a\\x01b"}'),
       at('placement: ', 53, ".*is not a placement group name or id"))
intent('placement-scalar', sub(BASE, PZ, 'placement: us-east-1a'), at('placement: ', 18, "'placement' must be a mapping"))
intent('network-efaonly-string', sub(BASE, 'efaSecurityGroup: sg-0123456789abcdef0',
       'efaSecurityGroup: sg-0123456789abcdef0\n    efaOnlyInterfaces: "yes"'),
       at('efaOnlyInterfaces', 24, "'efaOnlyInterfaces' must be true or false"))
intent('imagecache-rate-huge', sub(BASE, 'size: 200Gi', 'size: 200Gi\n    initializationRate: 99999999999999999999999'),
       anywhere(".*initializationRate"))


def write():
    for sub_dir in ('intent', 'manifest', 'kubeconfig'):
        shutil.rmtree(os.path.join(HERE, sub_dir), ignore_errors=True)
    for rel, data in sorted(files.items()):
        p = os.path.join(HERE, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, 'wb') as f:
            f.write(data)
    with open(os.path.join(HERE, 'EXPECT'), 'w') as f:
        f.write('# tests/hostile/EXPECT: written by make-corpus.py (see there);\n'
                '# CASE<TAB>COMMAND<TAB>EXIT<TAB>REGEX, "@" = tests/hostile/CASE\n')
        for c, cmd, code, rx in expect:
            assert '\t' not in rx and '\n' not in rx, (c, rx)
            f.write('%s\t%s\t%d\t%s\n' % (c, cmd, code, rx))
    total = sum(len(d) for d in files.values())
    print('%d files, %d bytes, %d checks' % (len(files), total, len(expect)), file=sys.stderr)


write()
