"""Put a built report on the gh-pages branch as one version, with mike.

`mike deploy` runs `properdocs build` itself (mike 2.2 finds ProperDocs and runs it instead of
`mkdocs`), which would be a second build path beside the report's own (the stages, the
derived config, the checks). So the report is built by
`build_site` first, and mike's Python API (`mike.commands.deploy`) only commits that folder:
the version's folder, its aliases as redirects, versions.json (which Material's version
selector reads) and the root's redirect to `latest`, one commit each, written straight into
the branch with `git fast-import`, never through a working tree. Folders already there for
other versions are left as they are, so a cited version keeps its numbers.

Before that, the version's copy shares what versions repeat (site/shared.py): its downloads
and its MathJax and Vega are stored once in `_shared/`, under their content's digest, in a
commit of their own holding only the files the branch lacks; the version's links point there.
After it, the shared files that no version lists any more are removed. `publish` then says
how many bytes the version added to the branch.

Nothing is written unless every check passed: a valid version, a site built as that version,
no checkout of gh-pages with its own changes, and a local gh-pages that the remote's has not
diverged from.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Callable
from contextlib import chdir, suppress
from pathlib import Path
from urllib.parse import urlsplit

# mike imports `mkdocs.*` (its config loader, for its own command line); ProperDocs' alias
# serves those imports from ProperDocs, so the mkdocs distribution that Material,
# mkdocs-jupyter and mike still declare is never imported (tests/test_docs_core.py).
import properdocs.replacement  # noqa: F401

# isort: split
from mike import commands, git_utils

from generator.errors import UserError
from generator.formatting import si
from generator.records.versions import LATEST
from generator.site.release import Release, built_release
from generator.site.shared import MANIFEST, Shared, share, unused

PAGES_BRANCH = "gh-pages"


def _git(repository: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-C", str(repository), *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def check_pages_branch(repository: Path, branch: str, remote: str, push: bool) -> None:
    """Refuse, before anything is built or written, a tree that publishing would harm."""
    if _git(repository, "rev-parse", "--git-dir").returncode != 0:
        raise UserError(
            "not a git repository",
            file=repository,
            fix="publish from the repository's checkout, or pass --repository PATH",
        )
    for checkout in _checkouts_of(repository, branch):
        changed = _git(checkout, "status", "--porcelain").stdout.strip()
        raise UserError(
            f"the {branch} branch is checked out here"
            + (" with uncommitted changes" if changed else "")
            + "; publishing moves the branch under it"
            + (", and would leave those changes looking like reverts" if changed else ""),
            file=checkout,
            fix=f"commit or discard what is there, then switch that checkout to another branch "
            f"(or `git worktree remove {checkout}`)",
        )
    if not _has_remote(repository, remote):
        if push:
            raise UserError(
                f"no git remote named '{remote}' to push to",
                key="--remote",
                fix=f"add it (git remote add {remote} URL), pass --remote NAME, or leave out "
                "--push to commit locally only",
            )
        return
    _fetch(repository, branch, remote)
    with chdir(repository):  # mike runs git in the current folder
        try:
            git_utils.update_from_upstream(remote, branch)  # fast-forwards a branch behind
        except (git_utils.GitBranchDiverged, git_utils.GitRevUnrelated) as error:
            raise UserError(
                f"{error}: the published versions there and here differ",
                key=branch,
                fix=f"merge or rebase {branch} onto {remote}/{branch} (`git fetch {remote}` "
                f"first), or reset it to {remote}/{branch} to drop local-only versions",
            ) from None


def _checkouts_of(repository: Path, branch: str) -> list[Path]:
    listing = _git(repository, "worktree", "list", "--porcelain").stdout
    found, path = [], None
    for line in listing.splitlines():
        if line.startswith("worktree "):
            path = Path(line.removeprefix("worktree "))
        elif line == f"branch refs/heads/{branch}" and path is not None:
            found.append(path)
    return found


def _has_remote(repository: Path, remote: str) -> bool:
    return _git(repository, "remote", "get-url", remote).returncode == 0


def _fetch(repository: Path, branch: str, remote: str) -> None:
    """The remote's branch as it is now, when it has one yet."""
    heads = _git(repository, "ls-remote", "--heads", remote, branch)
    if heads.returncode != 0:
        raise UserError(
            f"cannot reach the git remote '{remote}': {heads.stderr.strip()}",
            key="--remote",
            fix="check the remote's URL and your access (git remote -v), or leave out --push",
        )
    if heads.stdout.strip():
        refspec = f"+refs/heads/{branch}:refs/remotes/{remote}/{branch}"
        fetched = _git(repository, "fetch", "--quiet", remote, refspec)
        if fetched.returncode != 0:
            raise UserError(f"git fetch {remote} {branch} failed: {fetched.stderr.strip()}")


def built_as(site_dir: Path, version: str) -> Release:
    """The release site_dir holds, which must be `version`."""
    release = built_release(site_dir)
    if release is None:
        raise UserError(
            "no built report here",
            file=site_dir,
            fix=f"`nox -s publish -- {version}` builds it first (leave out --no-build)",
        )
    if release.version != version:
        raise UserError(
            f"built as {release.version or 'an unversioned local build'}, not as {version}",
            file=site_dir,
            fix=f"`nox -s publish -- {version}` builds it as {version} (leave out --no-build)",
        )
    return release


def deploy(
    site_dir: Path,
    repository: Path,
    version: str,
    aliases: list[str],
    *,
    branch: str = PAGES_BRANCH,
    remote: str = "origin",
    push: bool = False,
) -> str:
    """Commit site_dir into `branch` as `version` (and `aliases`); push when asked. Returns
    what happened, in words."""
    release = built_as(site_dir, version)
    check_pages_branch(repository, branch, remote, push)
    with tempfile.TemporaryDirectory(prefix="publish-") as staging:
        # the build's own state files (dot-files at the top) stay out of the published tree
        tree = Path(staging) / "site"
        shutil.copytree(site_dir.resolve(), tree, ignore=_top_dot_files(site_dir.resolve()))
        shared = share(tree, Path(staging) / "shared", _version_path(release))
        config = {"site_dir": str(tree), "use_directory_urls": True}
        message = f"Report {version}" + (f" from commit {release.commit}" if release.commit else "")
        with chdir(repository):  # mike runs git in the current folder
            before = branch_files(branch)
            changed, removed = _commit(config, version, aliases, branch, message, shared, before)
            after = branch_files(branch)
            if push:
                try:
                    git_utils.push_branch(remote, branch)
                except git_utils.GitError as error:
                    raise UserError(
                        str(error),  # git's own words included
                        fix=f"the commit is on the local {branch}; fix access to {remote} "
                        "and publish again (it pushes what is there)",
                    ) from None
    where = f"{branch}" + (f", pushed to {remote}" if push else " (local only: --push sends it)")
    return (
        f"published {version}"
        + (f" as {', '.join(aliases)}" if aliases else "")
        + (f" on {where}" if changed else f": {branch} already held this build ({where})")
        + "\n"
        + growth(before, after, version, shared, removed, branch)
    )


def _version_path(release: Release) -> str:
    """The URL path the version is served from ('/roofline-atlas/2026.11/'), or ''."""
    return urlsplit(release.url).path if release.url else ""


def branch_files(branch: str) -> dict[str, int]:
    """Every file of the branch and its size in bytes (none when there is no branch yet):
    what GitHub Pages serves, and counts against its limit."""
    listed = subprocess.run(
        ["git", "ls-tree", "-r", "-l", "-z", "--full-tree", branch],
        capture_output=True,
        text=True,
        check=False,
    )
    if listed.returncode != 0:
        return {}
    files = {}
    for line in filter(None, listed.stdout.split("\0")):
        meta, path = line.split("\t", 1)
        size = meta.split()[3]
        files[path] = int(size) if size.isdigit() else 0
    return files


def _commit_shared(shared: Shared, present: dict[str, int], branch: str, message: str) -> None:
    """The version's shared files that the branch lacks, in one commit before the version's:
    once the version is there, everything it links to is."""
    missing = [path for path in shared.paths() if path not in present]
    if not missing:
        return
    with git_utils.Commit(branch, f"{message}: {len(missing)} shared files") as commit:
        for path in missing:
            commit.add_file(git_utils.FileInfo(path, shared.files[path].read_bytes()))


def _remove_unused(branch: str, message: str) -> list[str]:
    """Remove the shared files that no version's MANIFEST lists (a version published again,
    `dev`, leaves its old ones behind); a file some version lists is never touched."""
    files = branch_files(branch)
    manifests = [
        git_utils.read_file(branch, path, universal_newlines=True)
        for path in files
        if path.count("/") == 1 and path.endswith(f"/{MANIFEST}")
    ]
    gone = unused(files, manifests)
    if gone:
        with git_utils.Commit(branch, f"{message}: {len(gone)} unused shared files") as commit:
            commit.delete_files(gone)
    return gone


def growth(
    before: dict[str, int],
    after: dict[str, int],
    version: str,
    shared: Shared,
    removed: list[str],
    branch: str = PAGES_BRANCH,
) -> str:
    """How many bytes the version added to the branch (what GitHub Pages serves), and of
    what: its own folder, and the shared files that were not there yet."""
    own = sum(size for path, size in after.items() if path.startswith(f"{version}/"))
    new = [p for p in shared.paths() if p not in before]
    reused = [p for p in shared.paths() if p in before]
    total = sum(after.values())
    return (
        f"{version} added {si(total - sum(before.values()), 'B')} to {branch}, now "
        f"{si(total, 'B')}: its folder {si(own, 'B')}, {_files(len(new), 'new shared file')} "
        f"{si(sum(after.get(p, 0) for p in new), 'B')}; {_files(len(reused), 'shared file')} "
        f"({si(sum(before[p] for p in reused), 'B')}) already there, linked, not copied"
        + (f"; {_files(len(removed), 'shared file')} no version uses removed" if removed else "")
    )


def _files(count: int, what: str) -> str:
    return f"{count:,} {what}" + ("" if count == 1 else "s")


def _commit(
    config: dict[str, object],
    version: str,
    aliases: list[str],
    branch: str,
    message: str,
    shared: Shared,
    present: dict[str, int],
) -> tuple[bool, list[str]]:
    """The shared files the branch lacks, the version (mike), the root's redirect, and the
    removal of what no version uses: whether the version's commit changed anything, and the
    shared files removed."""
    try:
        _commit_shared(shared, present, branch, message)
        try:
            with commands.deploy(
                config,
                version,
                aliases=aliases,
                update_aliases=True,  # `latest` moves from the previous version to this one
                alias_type=commands.AliasType.redirect,  # plain HTML: any host, any server
                branch=branch,
                message=message,
            ):
                pass  # built already, by build_site
            changed = True
        except git_utils.GitEmptyCommit:
            changed = False
        if LATEST in aliases:  # the site's root opens the newest version
            with suppress(git_utils.GitEmptyCommit):
                commands.set_default(LATEST, branch=branch, message=f"{message}: / -> {LATEST}/")
        removed = _remove_unused(branch, message)
    except git_utils.GitError as error:
        raise UserError(
            f"git could not commit to {branch}: {error}",
            fix="git needs an identity for the commit: git config user.name and user.email "
            "(or GIT_COMMITTER_NAME and GIT_COMMITTER_EMAIL)",
        ) from None
    return changed, removed


def _top_dot_files(root: Path) -> Callable[[str, list[str]], list[str]]:
    def ignore(folder: str, names: list[str]) -> list[str]:
        return [n for n in names if n.startswith(".")] if Path(folder) == root else []

    return ignore
