#!/usr/bin/env python3
"""The docs' and fuzz seeds' lists of the lab's table rows, against the tables.

usage: check_tables.py LISTING CHECK FILE [ARGS...]

LISTING is the output of `vmbench list --lab`: the matrix keys with their
values, the device models, back ends, images, profiles and filesystems, from
the rows themselves. CHECK is one of:

  list FILE KEY [ANCHOR]   the first KEY=V1,V2,... after ANCHOR (default: the
                           first of two values or more) names all of the
                           key's values, or all but none: a list of every
                           model, every profile
  words FILE KEY ANCHOR END [TABLE]
                           the backticked words between ANCHOR and END, and
                           the first column of the table whose header starts
                           with TABLE, are all of the key's values (or all
                           but none)
  backends FILE KEY TABLE  the first column of the table whose header starts
                           with TABLE is the key's back ends, in their order
  valid FILE               every KEY=V1,V2 list of a matrix key (two values
                           or more, "..." allowed last) and every word of a
                           --matrix "..." names a key and its values that
                           there are

Prints what it compared, for the TAP log; exits 1 on a difference.
"""
import re
import sys


def parse_listing(path):
    keys, rows, backends = {}, {}, {}
    section = None
    for line in open(path):
        line = line.rstrip("\n")
        if not line:
            continue
        if not line.startswith(" "):
            section = line.split(" ")[0]
            continue
        word = line.split()[0]
        if section == "Matrix":
            m = re.match(r"  ([a-z0-9_-]+)(=|:)(\S*)", line)
            keys[m.group(1)] = m.group(3).split(",") if m.group(2) == "=" else None
        elif section == "Back":
            backends.setdefault(word, []).append(line.split()[1])
        elif "=" in word:
            k, _, v = word.partition("=")
            rows.setdefault(k, []).append(v)
    return keys, rows, backends


def flat(path):
    """the file's text with its line breaks and runs of spaces made one space"""
    return re.sub(r"\s+", " ", open(path).read())


def complete(keys, key, listed, where):
    values = keys.get(key)
    if values is None:
        return "%s: %s is no matrix key of listed values" % (where, key)
    dup = sorted({v for v in listed if listed.count(v) > 1})
    if dup:
        return "%s: %s lists %s twice" % (where, key, ", ".join(dup))
    for want in (values, [v for v in values if v != "none"]):
        if set(listed) == set(want):
            return None
    rows = [v for v in values if v != "none"] if "none" not in listed else values
    return "%s: %s=%s lacks %s%s" % (
        where, key, ",".join(listed), ", ".join(v for v in rows if v not in listed) or "nothing",
        "; names %s, no value of the key" % ", ".join(v for v in listed if v not in values)
        if any(v not in values for v in listed) else "")


TOKEN = r"(?<![\w,.=/-])(%s)=([\w.+-]+(?:[,|][\w.+-]+)*(?:,\.\.\.)?)"


def values_of(m, text):
    """the values of a KEY=... match; in a selector (disk=ide,accel=tcg) the
    word before the next '=' is the next key's"""
    listed = re.split(r"[,|]", m.group(2))
    if m.end() < len(text) and text[m.end()] == "=" and len(listed) > 1:
        listed.pop()
    return listed


def check_list(keys, path, key, anchor=""):
    text = flat(path)
    at = text.find(anchor) if anchor else 0
    if at < 0:
        return "%s: '%s' not found (the sentence before its list of %s)" % (path, anchor, key)
    for m in re.finditer(TOKEN % re.escape(key), text[at:]):
        listed = values_of(m, text[at:])
        if anchor or len(listed) > 1:
            print("# %s: %s=%s" % (path, key, ",".join(listed)))
            return complete(keys, key, listed, path)
    return "%s: no %s= list%s" % (path, key, " after '%s'" % anchor if anchor else "")


def table_column(text, header):
    """the first column's backticked word of each row of the table whose header starts with header"""
    at = text.find("\n" + header)
    if at < 0:
        return None
    out = []
    for line in text[at + 1:].split("\n")[2:]:
        if not line.startswith("|"):
            break
        m = re.match(r"\|\s*`([^`]+)`", line)
        if m:
            out.append(m.group(1))
    return out


def check_words(keys, path, key, anchor, end, table=None):
    text = flat(path)
    a = text.find(anchor)
    e = text.find(end, a + len(anchor)) if a >= 0 else -1
    if a < 0 or e < 0:
        return "%s: '%s' ... '%s' not found (the sentence of the values of %s)" % (path, anchor, end, key)
    listed = re.findall(r"`([\w.+-]+)`", text[a + len(anchor):e])
    if table:
        column = table_column(open(path).read(), table)
        if column is None:
            return "%s: no table whose header starts with '%s'" % (path, table)
        listed += column
    print("# %s: %s: %s" % (path, key, ",".join(listed)))
    return complete(keys, key, listed, path)


def check_backends(backends, path, key, table):
    column = table_column(open(path).read(), table)
    if column is None:
        return "%s: no table whose header starts with '%s'" % (path, table)
    print("# %s: %s back ends %s; the table's %s" % (path, key, ",".join(column), ",".join(backends.get(key, []))))
    if column != backends.get(key, []):
        return "%s: the table of %s back ends lists %s; LAB_BACKENDS has %s, in that order" % (
            path, key, ",".join(column), ",".join(backends.get(key, [])))
    return None


def check_valid(keys, path):
    text = open(path).read()
    bad, n = [], 0
    spans = []
    for m in re.finditer(TOKEN % "[a-z]+", text):
        listed = values_of(m, text)
        if m.group(1) in keys and len(listed) > 1:
            spans.append((m.group(1), listed))
    for spec in re.findall(r'--matrix "([^"]*)"', text):
        for word in spec.split():
            word = word[1:-1] if word.startswith("[") and word.endswith("]") else word  # [optional]
            key, eq, rest = word.partition("=")
            if word == "|":
                continue
            if not eq or key not in keys:
                bad.append("--matrix \"%s\": %s is no KEY=VALUE of a matrix key" % (spec, word))
            else:
                spans.append((key, re.split(r"[,|]", rest)))
    for key, listed in spans:
        values = keys.get(key)
        if not values:
            continue
        n += 1
        if listed[-1] == "...":
            listed = listed[:-1]
        for v in listed:
            if v not in values:
                bad.append("%s=%s: %s is no value of %s (its values: %s)" % (key, ",".join(listed), v, key,
                                                                        ",".join(values)))
    print("# %s: %d lists of values checked" % (path, n))
    return "\n".join("%s: %s" % (path, b) for b in bad) or None


def main():
    keys, rows, backends = parse_listing(sys.argv[1])
    check, args = sys.argv[2], sys.argv[3:]
    if not keys or not rows.get("disk") or not rows.get("nic"):
        print("the listing has no matrix keys or no device models")
        return 1
    err = {"list": lambda: check_list(keys, *args),
           "words": lambda: check_words(keys, *args),
           "backends": lambda: check_backends(backends, *args),
           "valid": lambda: check_valid(keys, *args)}[check]()
    if err:
        print(err)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
