"""The versions' shared store on the published branch: each download, and each static package
(MathJax, Vega), stored once under its content's digest and linked from every version.

mike puts each version in a folder of its own, a full copy; at 1,000 runs that copy is 444 MB,
309 MB of it downloads that the next version mostly repeats, and three versions would pass
GitHub Pages' 1 GB. So before a version is committed, its copy of the built site is changed:
each file under `DATA_DIR/` moves to `_shared/<h[:2]>/<h>/<name>` (h: the SHA-256 of its
bytes, name: its own file name, which a reader's browser saves it as), each folder of
`STATIC_DIRS` as a whole to `_shared/<h[:2]>/<h>/<folder>/` (h: the digest of its files'
paths and digests; MathJax loads its parts relative to itself), and every link of the
version's HTML into them (`href`, `src`, a chart's `data-src`; relative, or absolute under the
version's own URL, as the 404 page's are) is rewritten to the shared path. A shared path
names its content, so it is never rewritten: the links of a published version, and what they
lead to, never change. The version's folder also lists the shared paths it uses
(`MANIFEST`), so that a publish may remove those no version lists any more (a `dev` published
again), and never one that a version links to.

site/ itself is not changed: a build, and `nox -s serve`, keep each download beside its page.
"""

from __future__ import annotations

import hashlib
import html
import os
import posixpath
import re
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

from generator.atomic import write_text
from generator.errors import UserError
from generator.pages.paths import DATA_DIR
from generator.site.stamp import MATHJAX_DIR, VEGA_DIR

SHARED_DIR = "_shared"  # at the top of the branch, beside the versions' folders
MANIFEST = "shared-files.txt"  # in a version's folder: the shared paths it uses, one a line
STATIC_DIRS = (MATHJAX_DIR.as_posix(), VEGA_DIR.as_posix())  # moved as wholes
_LINK = re.compile(r"""(\s(?:href|src|data-src)=)(["'])(.*?)\2""")  # either quote
_CHUNK = 1 << 20


@dataclass
class Shared:
    """What a version's copy shares: each shared path (branch-relative) and the file in the
    store folder that holds its bytes."""

    store: Path
    files: dict[str, Path] = field(default_factory=dict)

    def paths(self) -> list[str]:
        return sorted(self.files)

    def manifest(self) -> str:
        return "".join(f"{path}\n" for path in self.paths())


def file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while chunk := file.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _address(digest: str, name: str) -> str:
    return f"{SHARED_DIR}/{digest[:2]}/{digest}/{name}"


def _files_under(folder: Path) -> list[str]:
    """Every file under folder, relative, '/'-separated, sorted."""
    found = []
    for here, _, names in os.walk(folder):
        inner = os.path.relpath(here, folder).replace(os.sep, "/")
        found += [name if inner == "." else f"{inner}/{name}" for name in names]
    return sorted(found)


def _folder_digest(folder: Path, files: list[str]) -> str:
    digest = hashlib.sha256()
    for relative in files:
        digest.update(f"{relative}\0{file_digest(folder / relative)}\n".encode())
    return digest.hexdigest()


def share(tree: Path, store: Path, version_path: str = "") -> Shared:
    """Move tree's downloads and static packages into `store` at their shared paths, rewrite
    the links of tree's HTML to them, and write tree's MANIFEST. `tree`: a copy of site/ that
    becomes one version's folder, one level below the branch's top. `version_path`: the URL
    path the version is served from ('/roofline-atlas/2026.11/'), for absolute links."""
    shared = Shared(store)
    files: dict[str, str] = {}  # version-relative file -> its shared path
    folders: dict[str, str] = {}  # version-relative folder + "/" -> its shared folder + "/"
    data = tree / DATA_DIR
    for relative in _files_under(data) if data.is_dir() else []:
        source = data / relative
        address = _address(file_digest(source), posixpath.basename(relative))
        files[f"{DATA_DIR}/{relative}"] = address
        _move(source, store / address, shared, address)
    for static in STATIC_DIRS:
        folder = tree / static
        if not folder.is_dir():
            continue
        inside = _files_under(folder)
        address = _address(_folder_digest(folder, inside), posixpath.basename(static))
        folders[f"{static}/"] = f"{address}/"
        for relative in inside:
            _move(folder / relative, store / address / relative, shared, f"{address}/{relative}")
        shutil.rmtree(folder)
    shutil.rmtree(data, ignore_errors=True)
    root_path = _root_of(version_path)
    for page in tree.rglob("*.html"):
        url = _page_url(page.relative_to(tree).as_posix())
        text = page.read_text(encoding="utf-8")
        rewrite = partial(
            _rewritten,
            url=url,
            files=files,
            folders=folders,
            version_path=version_path,
            root_path=root_path,
        )
        changed = _LINK.sub(rewrite, text)
        if changed != text:
            write_text(page, changed)
    check_moved_links(tree, shared)
    write_text(tree / MANIFEST, shared.manifest())
    return shared


def _move(source: Path, target: Path, shared: Shared, address: str) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    os.replace(source, target)  # the same content under the same address: one copy
    shared.files[address] = target


def _root_of(version_path: str) -> str:
    """The site's root path from a version's ('/a/2026.11/' -> '/a/'); '' when unknown."""
    if not version_path:
        return ""
    return posixpath.dirname(version_path.rstrip("/")).rstrip("/") + "/"


def _page_url(relative: str) -> str:
    """The folder a page's relative links resolve from: 'a/b/index.html' -> 'a/b/'."""
    folder = posixpath.dirname(relative)
    return f"{folder}/" if folder else ""


def _rewritten(
    match: re.Match[str],
    url: str,
    files: dict[str, str],
    folders: dict[str, str],
    version_path: str,
    root_path: str,
) -> str:
    value = match.group(3)
    split = re.search(r"[?#]", value)
    path, rest = (value[: split.start()], value[split.start() :]) if split else (value, "")
    parts = urlsplit(html.unescape(path))
    if parts.scheme or parts.netloc or not parts.path:
        return match.group(0)
    if parts.path.startswith("/"):  # absolute: only under the version's own URL
        if not version_path or not parts.path.startswith(version_path):
            return match.group(0)
        target, up = unquote(parts.path[len(version_path) :]), root_path
    else:
        target = posixpath.normpath(posixpath.join(url, unquote(parts.path)))
        up = "../" * (url.count("/") + 1)  # out of the page's folders and the version's
    address = _address_of(target, files, folders)
    if address is None:
        return match.group(0)
    new = html.escape(up + quote(address), quote=True)
    return f"{match.group(1)}{match.group(2)}{new}{rest}{match.group(2)}"


def _address_of(target: str, files: dict[str, str], folders: dict[str, str]) -> str | None:
    if target in files:
        return files[target]
    for folder, address in folders.items():
        if target.startswith(folder):
            return address + target[len(folder) :]
    return None


def check_moved_links(tree: Path, shared: Shared) -> None:
    """No link of tree's HTML may still point where a moved file was: each would be broken.
    (Every link into them was rewritten; this states it, as the build's link check does.)"""
    moved = (f"{DATA_DIR}/", *(f"{s}/" for s in STATIC_DIRS))
    broken = []
    for page in tree.rglob("*.html"):
        relative = page.relative_to(tree).as_posix()
        url = _page_url(relative)
        for match in _LINK.finditer(page.read_text(encoding="utf-8")):
            parts = urlsplit(html.unescape(match.group(3)))
            if parts.scheme or parts.netloc or not parts.path or parts.path.startswith("/"):
                continue
            target = posixpath.normpath(posixpath.join(url, unquote(parts.path)))
            if target.startswith(moved) and not (tree / target).exists():
                broken.append(f"  {relative} links {target}")
            elif target.startswith("../"):
                branch_path = posixpath.normpath(
                    posixpath.join("version", url, unquote(parts.path))
                )
                if branch_path.startswith(f"{SHARED_DIR}/") and branch_path not in shared.files:
                    broken.append(f"  {relative} links {branch_path}, which no version holds")
    if broken:
        raise UserError(
            f"{len(broken)} link(s) of the version would be broken on the published branch; "
            "nothing was committed:\n" + "\n".join(broken[:20]),
            fix="a page links a download in a way the shared store does not rewrite: report "
            "it with the page and the link",
        )


def unused(stored: Iterable[str], manifests: Iterable[str]) -> list[str]:
    """The shared paths on the branch (`stored`) that no version's manifest lists."""
    listed = {line for text in manifests for line in text.splitlines() if line}
    return sorted(p for p in stored if p.startswith(f"{SHARED_DIR}/") and p not in listed)
