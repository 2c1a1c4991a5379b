"""Configuration: where it is found, how each key is read, and how rules are selected."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from stridelint.config import (
    DEFAULT_EXCLUDE,
    Config,
    ConfigError,
    load_config,
    parse_override,
    settings_toml,
    split_config_arguments,
)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def pyproject(directory: Path, body: str) -> Path:
    return write(directory / "pyproject.toml", f"[tool.stridelint]\n{body}")


def load_error(directory: Path) -> str:
    with pytest.raises(ConfigError) as raised:
        load_config(directory)
    message = str(raised.value)
    assert "\n" not in message
    return message


@pytest.fixture(autouse=True)
def in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Error messages name files relative to the working directory."""
    monkeypatch.chdir(tmp_path)


# Where the configuration comes from


def test_no_file_gives_defaults_rooted_at_start(tmp_path: Path) -> None:
    config = load_config(tmp_path)
    assert config == Config(root=tmp_path, source=None)
    assert config.select == ("SL",)
    assert config.exclude == DEFAULT_EXCLUDE
    assert config.scope == "wrappers"


def test_config_found_in_a_parent_directory(tmp_path: Path) -> None:
    source = pyproject(tmp_path, 'scope = "all"')
    start = tmp_path / "src" / "pkg"
    start.mkdir(parents=True)
    config = load_config(start)
    assert config.scope == "all"
    assert config.source == source
    assert config.root == tmp_path


def test_pyproject_without_table_is_skipped(tmp_path: Path) -> None:
    pyproject(tmp_path, 'scope = "all"')
    write(tmp_path / "pkg" / "pyproject.toml", '[project]\nname = "pkg"\n')
    config = load_config(tmp_path / "pkg")
    assert config.source == tmp_path / "pyproject.toml"


def test_stridelint_toml_wins_over_dot_file_and_pyproject(tmp_path: Path) -> None:
    pyproject(tmp_path, 'scope = "all"')
    write(tmp_path / ".stridelint.toml", 'broadcast-hints = ["hidden"]\n')
    write(tmp_path / "stridelint.toml", 'broadcast-hints = ["visible"]\n')
    config = load_config(tmp_path)
    assert config.source == tmp_path / "stridelint.toml"
    assert config.broadcast_hints == ("visible",)
    assert config.scope == "wrappers"  # files are not merged


def test_dot_stridelint_toml_wins_over_pyproject(tmp_path: Path) -> None:
    pyproject(tmp_path, 'scope = "all"')
    write(tmp_path / ".stridelint.toml", 'scope = "wrappers"\n')
    assert load_config(tmp_path).source == tmp_path / ".stridelint.toml"


def test_nearest_directory_wins(tmp_path: Path) -> None:
    write(tmp_path / "stridelint.toml", 'scope = "all"\n')
    inner = pyproject(tmp_path / "pkg", 'ignore = ["SL9"]')
    config = load_config(tmp_path / "pkg")
    assert config.source == inner
    assert config.scope == "wrappers"


def test_explicit_pyproject_reads_tool_table(tmp_path: Path) -> None:
    source = pyproject(tmp_path / "elsewhere", 'scope = "all"')
    config = load_config(tmp_path, explicit=source)
    assert (config.scope, config.source, config.root) == ("all", source, source.parent)


def test_explicit_toml_reads_top_level(tmp_path: Path) -> None:
    source = write(tmp_path / "ci" / "lint.toml", 'scope = "all"\n')
    pyproject(tmp_path, 'scope = "wrappers"')
    config = load_config(tmp_path, explicit=source)
    assert (config.scope, config.source) == ("all", source)


def test_explicit_pyproject_without_table_gives_defaults(tmp_path: Path) -> None:
    source = write(tmp_path / "pyproject.toml", '[project]\nname = "x"\n')
    config = load_config(tmp_path, explicit=source)
    assert config == Config(root=tmp_path, source=source)


def test_explicit_missing_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"^missing\.toml: cannot read: No such file"):
        load_config(tmp_path, explicit=Path("missing.toml"))


def test_isolated_ignores_every_file(tmp_path: Path) -> None:
    pyproject(tmp_path, 'scope = "all"')
    assert load_config(tmp_path, isolated=True) == Config(root=tmp_path, source=None)


# Each key


def test_every_key_in_kebab_case(tmp_path: Path) -> None:
    pyproject(
        tmp_path,
        """
select = ["SL1", "SL201"]
extend-select = ["SL9"]
ignore = ["SL102"]
exclude = ["generated"]
extend-exclude = ["third_party/*.py"]
scope = "all"
broadcast-hints = ["bias", "scale"]
wrapper-decorators = ["mylib.kernel_wrapper", "triton_op"]
fixable = ["SL1", "SL3"]
unfixable = ["SL102"]
unsafe-fixes = true

[tool.stridelint.per-file-ignores]
"tests/*.py" = ["SL1"]
"bench_*.py" = ["SL201", "SL3"]
""",
    )
    config = load_config(tmp_path)
    assert config.select == ("SL1", "SL201")
    assert config.extend_select == ("SL9",)
    assert config.ignore == ("SL102",)
    assert config.exclude == ("generated",)
    assert config.extend_exclude == ("third_party/*.py",)
    assert config.scope == "all"
    assert config.broadcast_hints == ("bias", "scale")
    assert config.wrapper_decorators == ("mylib.kernel_wrapper", "triton_op")
    assert (config.fixable, config.unfixable) == (("SL1", "SL3"), ("SL102",))
    assert config.unsafe_fixes is True
    assert config.per_file_ignores == (("tests/*.py", ("SL1",)), ("bench_*.py", ("SL201", "SL3")))


def test_unknown_key_suggests_closest(tmp_path: Path) -> None:
    pyproject(tmp_path, 'selct = ["SL1"]')
    assert load_error(tmp_path) == (
        "pyproject.toml: [tool.stridelint] selct: unknown key (did you mean 'select'?)"
    )


def test_snake_case_key_suggests_kebab_case(tmp_path: Path) -> None:
    pyproject(tmp_path, 'extend_select = ["SL1"]')
    assert load_error(tmp_path).endswith(
        "extend_select: unknown key (did you mean 'extend-select'?)"
    )


def test_unknown_key_without_close_match(tmp_path: Path) -> None:
    write(tmp_path / "stridelint.toml", 'target-version = "py39"\n')
    assert load_error(tmp_path) == "stridelint.toml: target-version: unknown key"


def test_string_instead_of_list(tmp_path: Path) -> None:
    pyproject(tmp_path, 'select = "SL101"')
    assert load_error(tmp_path) == (
        "pyproject.toml: [tool.stridelint] select: expected an array of strings, got a string"
    )


def test_non_string_list_item(tmp_path: Path) -> None:
    pyproject(tmp_path, 'broadcast-hints = ["bias", 3]')
    assert load_error(tmp_path).endswith("broadcast-hints[1]: expected a string, got an integer")


def test_unknown_scope(tmp_path: Path) -> None:
    pyproject(tmp_path, 'scope = "everything"')
    assert load_error(tmp_path) == (
        "pyproject.toml: [tool.stridelint] scope: expected one of 'wrappers', 'all', "
        "got 'everything'"
    )


@pytest.mark.parametrize("selector", ["E501", "SL1011", "sl101", "SL1a", ""])
def test_bad_selector(tmp_path: Path, selector: str) -> None:
    pyproject(tmp_path, f'ignore = ["SL1", "{selector}"]')
    assert f"ignore[1]: invalid rule selector {selector!r}" in load_error(tmp_path)


def test_per_file_ignores_must_be_a_table(tmp_path: Path) -> None:
    pyproject(tmp_path, 'per-file-ignores = ["tests/*.py"]')
    assert load_error(tmp_path).endswith(
        "per-file-ignores: expected a table of glob = [rule selectors], got an array"
    )


def test_per_file_ignores_values_must_be_lists(tmp_path: Path) -> None:
    pyproject(tmp_path, 'per-file-ignores = { "tests/*.py" = "SL1" }')
    assert load_error(tmp_path).endswith(
        'per-file-ignores."tests/*.py": expected an array of strings, got a string'
    )


def test_per_file_ignores_codes_are_selectors(tmp_path: Path) -> None:
    pyproject(tmp_path, 'per-file-ignores = { "tests/*.py" = ["F401"] }')
    assert "per-file-ignores.\"tests/*.py\"[0]: invalid rule selector 'F401'" in load_error(
        tmp_path
    )


def test_invalid_exclude_pattern(tmp_path: Path) -> None:
    pyproject(tmp_path, 'extend-exclude = ["ok", "!"]')
    assert "extend-exclude[1]: invalid pattern '!'" in load_error(tmp_path)


def test_wrapper_decorators_are_dotted_names(tmp_path: Path) -> None:
    pyproject(tmp_path, 'wrapper-decorators = ["@mylib.wrap"]')
    assert "wrapper-decorators[0]: '@mylib.wrap' is not a dotted name" in load_error(tmp_path)


def test_broadcast_hints_are_identifiers(tmp_path: Path) -> None:
    pyproject(tmp_path, 'broadcast-hints = ["x.bias"]')
    assert "broadcast-hints[0]: 'x.bias' is not a Python identifier" in load_error(tmp_path)


def test_tool_stridelint_must_be_a_table(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[tool]\nstridelint = 1\n")
    assert load_error(tmp_path) == (
        "pyproject.toml: tool.stridelint: expected a table, got an integer"
    )


@pytest.mark.parametrize("filename", ["stridelint.toml", ".stridelint.toml"])
@pytest.mark.parametrize("header", ["tool.stridelint", "stridelint"])
def test_a_table_header_in_a_stridelint_toml_gets_a_hint(
    tmp_path: Path, filename: str, header: str
) -> None:
    write(tmp_path / filename, f'[{header}]\nscope = "all"\n')
    assert load_error(tmp_path) == (
        f"{filename}: [{header}]: in {filename} the settings go at the top level; remove the "
        f"[{header}] header ([{header}.per-file-ignores] becomes [per-file-ignores]); only "
        "pyproject.toml uses [tool.stridelint]"
    )


def test_a_stridelint_table_without_tool_in_pyproject_gets_a_hint(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[stridelint]\nscope = "all"\n')
    assert load_error(tmp_path) == (
        "pyproject.toml: [stridelint]: in pyproject.toml the settings go in a "
        "[tool.stridelint] table (rename [stridelint] to [tool.stridelint])"
    )
    with pytest.raises(ConfigError, match=r"rename \[stridelint\]"):
        load_config(tmp_path, explicit=tmp_path / "pyproject.toml")


def test_malformed_toml_reports_position_on_one_line(tmp_path: Path) -> None:
    pyproject(tmp_path, 'scope = "all\nselect = []\n')
    message = load_error(tmp_path)
    assert message.startswith("pyproject.toml: invalid TOML: ")
    assert "line 2" in message


def test_malformed_toml_while_walking_up_is_an_error(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[tool.stridelint\n")
    (tmp_path / "pkg").mkdir()
    with pytest.raises(ConfigError, match="invalid TOML"):
        load_config(tmp_path / "pkg")


# CLI overrides


def test_select_flag_replaces_select_and_extend_select(tmp_path: Path) -> None:
    config = Config(root=tmp_path, source=None, select=("SL1",), extend_select=("SL9",))
    overridden = config.with_overrides(select=["SL2"])
    assert (overridden.select, overridden.extend_select) == (("SL2",), ())


def test_extend_select_and_ignore_flags_add(tmp_path: Path) -> None:
    config = Config(root=tmp_path, source=None, select=("SL1",), ignore=("SL102",))
    overridden = config.with_overrides(extend_select=["SL9"], ignore=["SL101"])
    assert overridden.select == ("SL1",)
    assert overridden.extend_select == ("SL9",)
    assert overridden.ignore == ("SL102", "SL101")


def test_no_flags_keep_the_config(tmp_path: Path) -> None:
    config = Config(root=tmp_path, source=None, select=("SL1",), extend_select=("SL9",))
    assert config.with_overrides() == config


def test_bad_selector_flag(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"^--ignore: invalid rule selector 'E501'"):
        Config(root=tmp_path, source=None).with_overrides(ignore=["E501"])


def test_fix_flags_scope_and_unsafe_fixes_override(tmp_path: Path) -> None:
    config = Config(root=tmp_path, source=None, fixable=("SL1",), unfixable=("SL102",))
    overridden = config.with_overrides(
        fixable=["SL2"], unfixable=["SL201"], scope="all", unsafe_fixes=True
    )
    assert overridden.fixable == ("SL2",)
    assert overridden.unfixable == ("SL102", "SL201")
    assert (overridden.scope, overridden.unsafe_fixes) == ("all", True)
    assert overridden.with_overrides(unsafe_fixes=False).unsafe_fixes is False


def test_bad_scope_and_fixable_flags(tmp_path: Path) -> None:
    config = Config(root=tmp_path, source=None)
    with pytest.raises(ConfigError, match=r"^--scope: expected one of 'wrappers', 'all'"):
        config.with_overrides(scope="most")
    with pytest.raises(ConfigError, match=r"^--fixable: invalid rule selector 'F401'"):
        config.with_overrides(fixable=["F401"])


# --config KEY=VALUE


def test_config_arguments_split_into_one_file_and_overrides(tmp_path: Path) -> None:
    write(tmp_path / "ci" / "a=b.toml", "")  # an existing file wins even with `=` in its name
    file, overrides = split_config_arguments(
        ["scope = 'all'", "ci/a=b.toml", 'select = ["SL1"]']
    )
    assert file == Path("ci/a=b.toml")
    assert overrides == [{"scope": "all"}, {"select": ["SL1"]}]
    assert split_config_arguments(["missing.toml"]) == (Path("missing.toml"), [])
    with pytest.raises(ConfigError, match="only one configuration file"):
        split_config_arguments(["a.toml", "b.toml"])


def test_override_values_are_toml(tmp_path: Path) -> None:
    assert parse_override('per-file-ignores = { "tests/*" = ["SL1"] }') == {
        "per-file-ignores": {"tests/*": ["SL1"]}
    }
    with pytest.raises(ConfigError, match=r"^--config 'scope=all': not a file, and not a TOML"):
        parse_override("scope=all")
    with pytest.raises(ConfigError, match="one `KEY = VALUE` pair per --config"):
        parse_override("scope = 'all'\nselect = []")


def test_overrides_replace_the_file_settings_and_are_checked(tmp_path: Path) -> None:
    pyproject(tmp_path, 'scope = "wrappers"\nignore = ["SL102"]')
    config = load_config(tmp_path).with_settings({"scope": "all"}, "--config ")
    assert (config.scope, config.ignore) == ("all", ("SL102",))
    with pytest.raises(ConfigError, match=r"^--config unsafe-fixes: expected true or false"):
        config.with_settings({"unsafe-fixes": "yes"}, "--config ")
    with pytest.raises(ConfigError, match=r"did you mean 'unfixable'"):
        config.with_settings({"unfixabel": []}, "--config ")


def test_settings_toml_reads_back_as_the_same_settings(tmp_path: Path) -> None:
    config = Config(
        root=tmp_path, source=None, select=("SL1",), scope="all", unsafe_fixes=True,
        broadcast_hints=("bias",), per_file_ignores=(('tests/"q".py', ("SL101",)),),
        unfixable=("SL301",),
    )
    text = settings_toml(config)
    assert text.startswith(f"# settings file: none (defaults)\n# root: {tmp_path}\n")
    write(tmp_path / "again" / "stridelint.toml", text)
    again = load_config(tmp_path / "again")
    assert again.fingerprint() == config.fingerprint()


# Rule selection


def selection(tmp_path: Path, **settings: Any) -> Config:
    return Config(root=tmp_path, source=None, **settings)


def test_default_enables_every_rule(tmp_path: Path) -> None:
    assert selection(tmp_path).is_enabled("SL101")
    assert selection(tmp_path).is_enabled("SL901")


def test_more_specific_ignore_wins(tmp_path: Path) -> None:
    config = selection(tmp_path, select=("SL1",), ignore=("SL101",))
    assert not config.is_enabled("SL101")
    assert config.is_enabled("SL102")
    assert not config.is_enabled("SL201")


def test_more_specific_select_wins(tmp_path: Path) -> None:
    config = selection(tmp_path, select=("SL101",), ignore=("SL1",))
    assert config.is_enabled("SL101")
    assert not config.is_enabled("SL102")


def test_ignore_wins_a_tie(tmp_path: Path) -> None:
    assert not selection(tmp_path, select=("SL1",), ignore=("SL1",)).is_enabled("SL101")


def test_extend_select_adds_to_select(tmp_path: Path) -> None:
    config = selection(tmp_path, select=("SL1",), extend_select=("SL901",))
    assert config.is_enabled("SL101")
    assert config.is_enabled("SL901")
    assert not config.is_enabled("SL900")


def test_fixable_and_unfixable_decide_like_select_and_ignore(tmp_path: Path) -> None:
    assert selection(tmp_path).is_fixable("SL101")
    config = selection(tmp_path, fixable=("SL1",), unfixable=("SL101",))
    assert not config.is_fixable("SL101") and config.is_fixable("SL102")
    assert not config.is_fixable("SL201")
    specific = selection(tmp_path, fixable=("SL101",), unfixable=("SL1",))
    assert specific.is_fixable("SL101") and not specific.is_fixable("SL102")
    assert not selection(tmp_path, unfixable=("SL",)).is_fixable("SL101")  # a tie: unfixable


def test_code_outside_select_is_disabled(tmp_path: Path) -> None:
    assert not selection(tmp_path, select=("SL2",)).is_enabled("SL101")


def test_per_file_ignores_apply_to_matching_paths(tmp_path: Path) -> None:
    config = selection(
        tmp_path,
        per_file_ignores=(("tests/*.py", ("SL1",)), ("conftest.py", ("SL2",))),
    )
    assert not config.is_enabled("SL101", tmp_path / "tests" / "test_ops.py")
    assert config.is_enabled("SL201", tmp_path / "tests" / "test_ops.py")
    assert config.is_enabled("SL101", tmp_path / "src" / "tests" / "test_ops.py")  # anchored
    assert not config.is_enabled("SL201", tmp_path / "src" / "deep" / "conftest.py")  # basename
    assert config.is_enabled("SL101", tmp_path / "src" / "ops.py")
    assert config.is_enabled("SL101")  # no path, no per-file ignores


def test_per_file_ignores_match_paths_relative_to_working_directory(tmp_path: Path) -> None:
    config = selection(tmp_path, per_file_ignores=(("tests/", ("SL1",)),))
    assert not config.is_enabled("SL101", Path("tests/test_ops.py"))


def test_per_file_select_beats_less_specific_per_file_ignore(tmp_path: Path) -> None:
    config = selection(tmp_path, select=("SL101",), per_file_ignores=(("*.py", ("SL1",)),))
    assert config.is_enabled("SL101", tmp_path / "a.py")


def test_paths_outside_root_match_as_given(tmp_path: Path) -> None:
    config = selection(tmp_path / "project", per_file_ignores=(("vendor/*.py", ("SL",)),))
    assert not config.is_enabled("SL101", Path("vendor/x.py"))  # relative to cwd, outside root
    assert config.relative_path(Path("vendor/x.py")) == "vendor/x.py"


# Fingerprint


def test_fingerprint_ignores_location(tmp_path: Path) -> None:
    here = Config(root=tmp_path, source=tmp_path / "pyproject.toml")
    there = Config(root=tmp_path / "copy", source=None)
    assert here.fingerprint() == there.fingerprint()
    assert len(here.fingerprint()) == 64


def test_fingerprint_is_stable_across_loads(tmp_path: Path) -> None:
    pyproject(tmp_path, 'select = ["SL1"]\nper-file-ignores = { "a.py" = ["SL101"] }')
    assert load_config(tmp_path).fingerprint() == load_config(tmp_path).fingerprint()


@pytest.mark.parametrize(
    "change",
    [
        {"select": ("SL1",)},
        {"extend_select": ("SL9",)},
        {"ignore": ("SL101",)},
        {"exclude": ()},
        {"extend_exclude": ("gen",)},
        {"per_file_ignores": (("a.py", ("SL1",)),)},
        {"scope": "all"},
        {"broadcast_hints": ("bias",)},
        {"wrapper_decorators": ("mylib.wrap",)},
        {"fixable": ("SL1",)},
        {"unfixable": ("SL101",)},
        {"unsafe_fixes": True},
    ],
)
def test_fingerprint_changes_with_every_setting(tmp_path: Path, change: dict[str, Any]) -> None:
    default = Config(root=tmp_path, source=None)
    assert Config(root=tmp_path, source=None, **change).fingerprint() != default.fingerprint()


# How fixes write code: line-length and helper-module


def test_line_length_and_helper_module_are_read_and_checked(tmp_path: Path) -> None:
    write(tmp_path / "stridelint.toml", 'line-length = 100\nhelper-module = "pkg._broadcast"\n')
    config = load_config(tmp_path)
    assert (config.line_length, config.helper_module) == (100, "pkg._broadcast")
    write(tmp_path / "stridelint.toml", "line-length = 0\n")
    assert load_error(tmp_path) == (
        "stridelint.toml: line-length: expected an integer from 1 to 320, got 0"
    )
    write(tmp_path / "stridelint.toml", 'line-length = "88"\n')
    assert load_error(tmp_path).endswith("expected an integer from 1 to 320, got a string")
    write(tmp_path / "stridelint.toml", 'helper-module = "pkg.-x"\n')
    assert load_error(tmp_path) == (
        "stridelint.toml: helper-module: expected a dotted module name such as "
        "'mypkg._broadcast', got 'pkg.-x'"
    )


def test_without_settings_the_line_length_is_88(tmp_path: Path) -> None:
    assert load_config(tmp_path).line_length == 88
    assert load_config(tmp_path, isolated=True).line_length == 88


@pytest.mark.parametrize(
    ("filename", "text", "expected"),
    [
        ("ruff.toml", "line-length = 100\n", 100),
        (".ruff.toml", "line-length = 79\n", 79),
        ("ruff.toml", "[lint]\nselect = ['E']\n", 88),  # Ruff's own default
        ("pyproject.toml", "[tool.ruff]\nline-length = 120\n", 120),
        ("pyproject.toml", "[tool.black]\nline-length = 99\n", 99),
        ("pyproject.toml", "[tool.ruff]\nline-length = 110\n[tool.black]\nline-length = 99\n", 110),
        ("pyproject.toml", "[tool.ruff.lint]\nselect = ['E']\n[tool.black]\nline-length = 99\n", 99),
        ("pyproject.toml", "[project]\nname = 'x'\n", 88),
    ],
)  # fmt: skip
def test_the_formatters_line_length_applies_when_stridelint_sets_none(
    tmp_path: Path, filename: str, text: str, expected: int
) -> None:
    write(tmp_path / filename, text)
    (tmp_path / "src").mkdir()
    assert load_config(tmp_path / "src").line_length == expected


def test_stridelints_own_line_length_wins_over_ruffs(tmp_path: Path) -> None:
    write(tmp_path / "ruff.toml", "line-length = 100\n")
    pyproject(tmp_path, "line-length = 72")
    assert load_config(tmp_path).line_length == 72
    pyproject(tmp_path, 'scope = "all"')
    assert load_config(tmp_path).line_length == 100  # read beside stridelint's settings


def test_a_nearer_ruff_file_wins_and_a_broken_one_is_passed_over(tmp_path: Path) -> None:
    write(tmp_path / "ruff.toml", "line-length = 100\n")
    write(tmp_path / "sub" / "ruff.toml", "line-length = 90\n")
    assert load_config(tmp_path / "sub").line_length == 90
    write(tmp_path / "sub" / "ruff.toml", "line-length = [\n")  # Ruff's to report
    assert load_config(tmp_path / "sub").line_length == 100


def test_the_fix_settings_show_and_read_back(tmp_path: Path) -> None:
    config = Config(root=tmp_path, source=None, line_length=100, helper_module="pkg._b")
    text = settings_toml(config)
    assert 'line-length = 100\nhelper-module = "pkg._b"\n' in text
    write(tmp_path / "again" / "stridelint.toml", text)
    assert load_config(tmp_path / "again").fingerprint() == config.fingerprint()
    unset = settings_toml(Config(root=tmp_path, source=None))
    assert "# helper-module: not set" in unset
    write(tmp_path / "unset" / "stridelint.toml", unset)
    assert load_config(tmp_path / "unset").helper_module is None
