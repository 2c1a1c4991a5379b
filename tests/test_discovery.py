"""File discovery: what a walk finds, what it prunes, and what explicit paths always get."""

from __future__ import annotations

import os
from pathlib import Path

import pathspec
import pytest

from stridelint.config import DEFAULT_EXCLUDE, Config
from stridelint.discovery import DiscoveryError, _Matcher, discover, is_excluded


def touch(root: Path, *relative_paths: str) -> None:
    for relative in relative_paths:
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")


def found(*paths: str, config: Config | None = None, force_exclude: bool = False) -> list[str]:
    """Discover from the working directory (the test's tmp_path), as the CLI does."""
    config = config or Config(root=Path.cwd(), source=None)
    discovered = discover([Path(p) for p in paths or ["."]], config, force_exclude=force_exclude)
    return [path.as_posix() for path in discovered]


@pytest.fixture(autouse=True)
def in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def test_walks_recursively_for_py_and_pyi_sorted(tmp_path: Path) -> None:
    touch(tmp_path, "b.py", "a/z.pyi", "a/deep/er/m.py", "a/notes.txt", "a/data.pyc", "c.py")
    assert found() == ["a/deep/er/m.py", "a/z.pyi", "b.py", "c.py"]


def test_default_excludes_prune_directories_at_any_depth(tmp_path: Path) -> None:
    touch(
        tmp_path,
        "pkg/ops.py",
        ".venv/lib/torch/x.py",
        "pkg/build/gen.py",
        "pkg/__pycache__/ops.py",
        "stridelint.egg-info/x.py",
        ".git/hooks/h.py",
    )
    assert found() == ["pkg/ops.py"]


def test_extend_exclude_adds_to_defaults(tmp_path: Path) -> None:
    touch(tmp_path, "pkg/ops.py", "pkg/generated/g.py", "third_party/a.py", "pkg/third_party/b.py")
    touch(tmp_path, "venv/x.py")
    config = Config(root=tmp_path, source=None, extend_exclude=("generated", "/third_party"))
    assert found(config=config) == ["pkg/ops.py", "pkg/third_party/b.py"]


def test_exclude_with_slash_is_anchored_at_root(tmp_path: Path) -> None:
    touch(tmp_path, "foo/a.py", "foo/sub/b.py", "bar/foo/c.py")
    config = Config(root=tmp_path, source=None, exclude=("foo/*.py",))
    assert found(config=config) == ["bar/foo/c.py", "foo/sub/b.py"]


def test_replacing_exclude_drops_the_defaults(tmp_path: Path) -> None:
    touch(tmp_path, "build/gen.py")
    assert found(config=Config(root=tmp_path, source=None, exclude=())) == ["build/gen.py"]


def test_excludes_are_relative_to_config_root(tmp_path: Path) -> None:
    touch(tmp_path, "project/gen/a.py", "project/src/gen/b.py", "project/src/ok.py")
    config = Config(root=tmp_path / "project", source=None, exclude=("/gen", "src/gen"))
    assert found("project", config=config) == ["project/src/ok.py"]


def test_nested_gitignore_with_negation(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("*_gen.py\nscratch/\n")
    touch(tmp_path, "a.py", "a_gen.py", "scratch/s.py", "pkg/b_gen.py", "pkg/keep_gen.py")
    touch(tmp_path, "pkg/sub/c.py", "pkg/sub/d.py")
    (tmp_path / "pkg" / ".gitignore").write_text("!keep_gen.py\n")
    (tmp_path / "pkg" / "sub" / ".gitignore").write_text("# only a comment\nd.py\n")
    assert found() == ["a.py", "pkg/keep_gen.py", "pkg/sub/c.py"]


def test_gitignore_of_parents_apply_when_walking_a_subdirectory(tmp_path: Path) -> None:
    (tmp_path / ".git" / "info").mkdir(parents=True)
    (tmp_path / ".git" / "info" / "exclude").write_text("local.py\n")
    (tmp_path / ".gitignore").write_text("pkg/skip/\n*_gen.py\n")
    touch(tmp_path, "pkg/ok.py", "pkg/skip/s.py", "pkg/x_gen.py", "pkg/local.py")
    assert found("pkg") == ["pkg/ok.py"]


def test_gitignore_above_the_repository_does_not_apply(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("*.py\n")
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    touch(tmp_path, "repo/a.py")
    assert found("repo") == ["repo/a.py"]


def test_explicit_file_is_always_included(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("ignored.py\n")
    touch(tmp_path, "build/gen.py", "ignored.py", "script")
    assert found("script", "ignored.py", "build/gen.py") == [
        "build/gen.py",
        "ignored.py",
        "script",
    ]


def test_explicit_excluded_directory_is_walked(tmp_path: Path) -> None:
    touch(tmp_path, "build/lib/gen.py", "build/lib/__pycache__/gen.py")
    assert found("build") == ["build/lib/gen.py"]


def test_force_exclude_drops_excluded_explicit_paths(tmp_path: Path) -> None:
    touch(tmp_path, "build/gen.py", "pkg/ops.py", "vendor/v.py")
    config = Config(root=tmp_path, source=None, extend_exclude=("vendor",))
    explicit = ("build/gen.py", "pkg/ops.py", "vendor")
    assert found(*explicit, config=config, force_exclude=True) == ["pkg/ops.py"]


def test_force_exclude_does_not_apply_gitignore(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("ignored.py\n")
    touch(tmp_path, "ignored.py")
    assert found("ignored.py", force_exclude=True) == ["ignored.py"]


def test_is_excluded_checks_parent_directories(tmp_path: Path) -> None:
    config = Config(root=tmp_path, source=None)
    assert is_excluded(Path("build/gen.py"), config)
    assert is_excluded(tmp_path / "pkg" / ".venv" / "x.py", config)
    assert not is_excluded(Path("pkg/builder.py"), config)


def test_nonexistent_path_is_an_error() -> None:
    with pytest.raises(DiscoveryError, match=r"^no such file or directory: foo/bar\.py$"):
        found("foo/bar.py")


def test_duplicates_are_removed(tmp_path: Path) -> None:
    touch(tmp_path, "pkg/a.py")
    assert found(".", "pkg", "pkg/a.py", str(tmp_path / "pkg" / "a.py")) == ["pkg/a.py"]


def test_directory_named_like_a_python_file_is_walked(tmp_path: Path) -> None:
    touch(tmp_path, "odd.py/inner.py")
    assert found() == ["odd.py/inner.py"]


def test_symlink_loop_terminates(tmp_path: Path) -> None:
    touch(tmp_path, "pkg/a.py")
    (tmp_path / "pkg" / "loop").symlink_to(tmp_path / "pkg", target_is_directory=True)
    (tmp_path / "pkg" / "up").symlink_to(tmp_path, target_is_directory=True)
    assert found() == ["pkg/a.py"]


def test_symlink_to_outside_directory_is_followed(tmp_path: Path) -> None:
    touch(tmp_path, "outside/x.py")
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "linked").symlink_to(tmp_path / "outside", target_is_directory=True)
    assert found("project") == ["project/linked/x.py"]


def test_broken_symlink_is_skipped(tmp_path: Path) -> None:
    touch(tmp_path, "a.py")
    (tmp_path / "gone.py").symlink_to(tmp_path / "missing.py")
    (tmp_path / "gone_dir").symlink_to(tmp_path / "missing", target_is_directory=True)
    assert found() == ["a.py"]


def test_symlink_to_file_is_linted_as_the_link(tmp_path: Path) -> None:
    touch(tmp_path, "real/impl.txt")
    (tmp_path / "alias.py").symlink_to(tmp_path / "real" / "impl.txt")
    assert found() == ["alias.py"]


def test_unreadable_directory_is_skipped(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads every directory")
    touch(tmp_path, "a.py", "locked/b.py")
    (tmp_path / "locked").chmod(0)
    try:
        assert found() == ["a.py"]
    finally:
        (tmp_path / "locked").chmod(0o755)


def test_results_keep_the_form_of_the_given_path(tmp_path: Path) -> None:
    touch(tmp_path, "pkg/a.py")
    config = Config(root=tmp_path, source=None)
    assert discover([tmp_path / "pkg"], config) == [tmp_path / "pkg" / "a.py"]


def test_symlinked_directory_yields_to_its_real_directory(tmp_path: Path) -> None:
    touch(tmp_path, "z_real/x.py")
    (tmp_path / "a_link").symlink_to(tmp_path / "z_real", target_is_directory=True)
    assert found() == ["z_real/x.py"]


def test_explicit_directory_ignored_by_parent_gitignore_is_walked(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("scratch/\n*.tmp.py\n")
    touch(tmp_path, "scratch/a.py", "scratch/b.tmp.py")
    assert found("scratch") == ["scratch/a.py"]


@pytest.mark.parametrize(
    "patterns",
    [DEFAULT_EXCLUDE, ("foo/*.py", "!foo/keep.py", "a/**/b", "/top", "dir/", "*.py", "!x.py")],
)
def test_pre_check_never_changes_a_decision(patterns: tuple[str, ...]) -> None:
    spec = pathspec.GitIgnoreSpec.from_lines(patterns)
    paths = """a.py x.py foo/a.py foo/keep.py foo/sub/a.py a/b/ a/c/d/b top/ sub/top/ dir/ dir
    x/dir/y.py build/ pkg/build pkg.egg-info/ .git/ src/.venv/lib/x.py site-packages/torch/
    x.pyi""".split()
    matcher = _Matcher(spec)
    for path in paths:
        assert matcher.decision(path) == spec.check_file(path).include, path
