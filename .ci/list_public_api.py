#!/usr/bin/env python3
"""Lists the public API of a crate from its rustdoc JSON, one line per item path, sorted.

    RUSTC_BOOTSTRAP=1 cargo rustdoc -p guardrails-mcp --all-features -- \
        -Z unstable-options --output-format json
    python3 .ci/list_public_api.py target/doc/guardrails.json

The walk starts at the crate root and follows public modules and `pub use` re-exports (globs
included), so an item is listed under every path a user can name it by: an item reachable by
two paths shows twice. Under each type it lists the public fields (and whether a struct keeps
private ones or is `#[non_exhaustive]`), the variants, the inherent associated items, and one
`impls` line with the traits it implements; under each trait its items. `#[doc(hidden)]`
items and `__private` are left out: they are not part of the API a user may rely on.

With `--one-path-per-item` it fails (after printing the listing) when an item is reachable by
more than one path, and names those paths on standard error.

No dependencies beyond the standard library, so CI runs it anywhere Python 3 is.
"""

import json
import sys

KIND_NAMES = {
    "proc_derive": "derive macro",
    "proc_attribute": "attribute macro",
    "proc_macro": "function-like macro",
}


def main(path, unique):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    index = doc["index"]
    paths = doc["paths"]
    lines = set()
    reached = {}  # item id -> every public path that names it

    def item(id_):
        return index.get(str(id_))

    def attrs_of(it):
        out = []
        for attr in it.get("attrs", []):
            out.append(attr if isinstance(attr, str) else json.dumps(attr))
        return out

    def hidden(it):
        return any("doc(hidden)" in a or "hidden" == a for a in attrs_of(it))

    def flags(it):
        marks = []
        attrs = attrs_of(it)
        if any("non_exhaustive" in a for a in attrs):
            marks.append("non_exhaustive")
        if it.get("deprecation"):
            marks.append("deprecated")
        return marks

    def emit(path, kind, marks=()):
        extra = f" [{', '.join(marks)}]" if marks else ""
        lines.add(f"{'::'.join(path)} {kind}{extra}")

    def type_name(ty):
        if isinstance(ty, dict) and "resolved_path" in ty:
            return ty["resolved_path"]["path"].split("::")[-1]
        return None

    def trait_impls(it, kind_inner):
        names = set()
        for impl_id in kind_inner.get("impls", []):
            impl = item(impl_id)
            if impl is None:
                continue
            inner = impl["inner"]["impl"]
            if inner["trait"] is None or inner["is_synthetic"] or inner["blanket_impl"]:
                continue
            name = inner["trait"]["path"].split("::")[-1]
            if name != "StructuralPartialEq":  # a marker the derive of PartialEq adds
                names.add(name)
        return sorted(names)

    def inherent(path, kind_inner):
        for impl_id in kind_inner.get("impls", []):
            impl = item(impl_id)
            if impl is None:
                continue
            inner = impl["inner"]["impl"]
            if inner["trait"] is not None or inner["is_synthetic"] or inner["blanket_impl"]:
                continue
            for assoc_id in inner["items"]:
                assoc = item(assoc_id)
                if assoc is None or assoc["visibility"] != "public" or hidden(assoc):
                    continue
                kind = next(iter(assoc["inner"]))
                kind = "method" if kind == "function" else kind
                emit(path + [assoc["name"]], kind, flags(assoc))

    def walk(id_, path, seen):
        it = item(id_)
        if it is None or hidden(it):
            return
        kind = next(iter(it["inner"]))
        inner = it["inner"][kind]
        if kind == "use":
            if inner["id"] is None:
                return  # a re-export of a private or hidden item
            target = item(inner["id"])
            if inner["is_glob"]:
                if target is not None and "module" in target["inner"]:
                    for child in target["inner"]["module"]["items"]:
                        walk(child, path, seen)
                return
            name = inner["name"]
            if target is None:
                external = paths.get(str(inner["id"]))
                if external is None:
                    return
                ekind = KIND_NAMES.get(external["kind"], external["kind"])
                emit(path + [name], f"{ekind} (re-export of {'::'.join(external['path'])})")
                return
            walk_named(inner["id"], target, path + [name], seen)
            return
        walk_named(id_, it, path + [it["name"]], seen)

    def walk_named(id_, it, path, seen):
        if hidden(it) or path[-1] == "__private":
            return
        reached.setdefault(id_, set()).add("::".join(path))
        kind = next(iter(it["inner"]))
        inner = it["inner"][kind]
        marks = flags(it)
        if kind == "module":
            emit(path, "module", marks)
            if id_ in seen:
                return
            for child in inner["items"]:
                walk(child, path, seen | {id_})
        elif kind == "struct":
            shape = inner["kind"]
            if shape == "unit":
                emit(path, "struct (unit)", marks)
            elif "tuple" in shape:
                public = [f for f in shape["tuple"] if f is not None]
                private = len(shape["tuple"]) - len(public)
                desc = f"tuple struct ({len(public)} public, {private} private fields)"
                emit(path, desc, marks)
            else:
                plain = shape["plain"]
                private = " + private fields" if plain["has_stripped_fields"] else ""
                emit(path, f"struct{private}", marks)
                for field_id in plain["fields"]:
                    field = item(field_id)
                    if field is not None and not hidden(field):
                        emit(path + [field["name"]], "field", flags(field))
            inherent(path, inner)
            traits = trait_impls(it, inner)
            if traits:
                emit(path, "impls " + ", ".join(traits))
        elif kind == "enum":
            more = " + hidden variants" if inner["has_stripped_variants"] else ""
            emit(path, f"enum{more}", marks)
            for variant_id in inner["variants"]:
                variant = item(variant_id)
                if variant is not None and not hidden(variant):
                    emit(path + [variant["name"]], "variant", flags(variant))
            inherent(path, inner)
            traits = trait_impls(it, inner)
            if traits:
                emit(path, "impls " + ", ".join(traits))
        elif kind == "union":
            emit(path, "union", marks)
            inherent(path, inner)
        elif kind == "trait":
            sealed = ""
            emit(path, f"trait{sealed}", marks)
            for assoc_id in inner["items"]:
                assoc = item(assoc_id)
                if assoc is None or hidden(assoc):
                    continue
                akind = next(iter(assoc["inner"]))
                if akind == "function":
                    body = assoc["inner"]["function"].get("has_body")
                    akind = "provided method" if body else "required method"
                emit(path + [assoc["name"]], akind, flags(assoc))
        elif kind == "function":
            emit(path, "fn", marks)
        elif kind == "type_alias":
            emit(path, "type alias", marks)
        elif kind in ("constant", "static"):
            emit(path, "const" if kind == "constant" else "static", marks)
        elif kind == "proc_macro":
            names = {"derive": "derive macro", "attr": "attribute macro", "bang": "macro"}
            helpers = inner.get("helpers") or []
            extra = f" (helper attributes: {', '.join(helpers)})" if helpers else ""
            emit(path, names.get(inner["kind"], inner["kind"]) + extra, marks)
        elif kind == "macro":
            emit(path, "macro", marks)
        else:
            emit(path, kind, marks)

    root = index[str(doc["root"])]
    crate = root["name"]
    for child in root["inner"]["module"]["items"]:
        walk(child, [crate], frozenset())
    for line in sorted(lines):
        print(line)
    twice = sorted(sorted(names) for names in reached.values() if len(names) > 1)
    for names in twice:
        print("reachable by several paths: " + ", ".join(names), file=sys.stderr)
    return 1 if twice and unique else 0


if __name__ == "__main__":
    args = sys.argv[1:]
    unique = "--one-path-per-item" in args
    args = [a for a in args if a != "--one-path-per-item"]
    if len(args) != 1:
        sys.exit("usage: list_public_api.py [--one-path-per-item] target/doc/CRATE.json")
    sys.exit(main(args[0], unique))
